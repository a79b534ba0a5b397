// Conditions change through one function that says whether anything changed (Orchard's
// ConditionsSet), and every reason string the operator writes is a constant here
// (kubebuilder's conditions.go), so the API, the CLI and the docs read the same words.
import type { Condition } from '../crds/index.ts';

export type ConditionStatus = Condition['status'];

export interface ConditionInput {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
}

/**
 * Sets one condition by type. `lastTransitionTime` moves only when the status flips. Returns the new
 * list (the input is not modified) and whether anything changed.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  next: ConditionInput,
  now: Date,
): { conditions: Condition[]; changed: boolean } {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const old = i >= 0 ? list[i] : undefined;
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message) {
    return { conditions: list, changed: false };
  }
  const updated: Condition = {
    type: next.type,
    status: next.status,
    ...(next.reason !== undefined && { reason: next.reason }),
    ...(next.message !== undefined && { message: next.message }),
    lastTransitionTime:
      old && old.status === next.status && old.lastTransitionTime
        ? old.lastTransitionTime
        : now.toISOString(),
  };
  if (i >= 0) list[i] = updated;
  else list.push(updated);
  return { conditions: list, changed: true };
}

export function findCondition(
  conditions: readonly Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Condition types. */
export const ConditionTypes = {
  /** Reservation: paid, Macs bound, key issued. Sandbox: running. Mini: host answering and usable. */
  Ready: 'Ready',
  /** Reservation: the ledger holds the payment for the hours in spec. */
  Paid: 'Paid',
  /** Reservation: the Macs run the layout asked for in spec. */
  LayoutApplied: 'LayoutApplied',
  /** Reservation: the latest spec edit could be honoured (False says which part could not). */
  EditAccepted: 'EditAccepted',
  /** Mini: the host answered its last probe. */
  Reachable: 'Reachable',
  /**
   * Mini: the Mac starts the VMs sandbay's accounting has room for (False: it refused one, e.g. a VM
   * sandbay did not start holds a licence slot).
   */
  RoomForVMs: 'RoomForVMs',
  /** VM: the boot for the current claim finished (True) or failed (False, reason = failure code). */
  Booted: 'Booted',
  /**
   * Sandbox: its VM is paused as `spec.paused` asks (True), runs as asked (False, reason Running), or
   * the last pause or resume failed (False, reason `pause_failed` / `resume_failed`, for the spec
   * generation in `status.observedGeneration`).
   */
  Paused: 'Paused',
} as const;

/** Reasons written into conditions. */
export const Reasons = {
  // Reservation
  AwaitingPayment: 'AwaitingPayment',
  Charged: 'Charged',
  InsufficientCredit: 'InsufficientCredit',
  RateMissing: 'RateMissing',
  InsufficientMinis: 'InsufficientMinis',
  Activated: 'Activated',
  CancelledByUser: 'CancelledByUser',
  Expired: 'Expired',
  Completed: 'Completed',
  SandboxesRunning: 'SandboxesRunning',
  LayoutApplied: 'LayoutApplied',
  EditRejected: 'EditRejected',
  EditsApplied: 'EditsApplied',
  // Mini
  HostAnswered: 'HostAnswered',
  HostUnreachable: 'HostUnreachable',
  /** The host refused the Mini's SSH key. */
  HostAuthFailed: 'HostAuthFailed',
  /** The host presented another SSH host key than the one pinned for it. */
  HostKeyChanged: 'HostKeyChanged',
  /** A tool the driver needs is missing on the host, or in a version it does not support. */
  HostToolMissing: 'HostToolMissing',
  /** The Mini names something that does not exist or cannot be used (credentials, driver). */
  HostMisconfigured: 'HostMisconfigured',
  /** Any other failure of the probe (the message quotes it). */
  HostProbeFailed: 'HostProbeFailed',
  /** The Mac refused to start a VM there was room for by sandbay's count (RoomForVMs=False). */
  HostRefusedStart: 'HostRefusedStart',
  /** The Mac started what it was asked to again (RoomForVMs=True). */
  HostStartsVMs: 'HostStartsVMs',
  // VM / Sandbox
  Booted: 'Booted',
  BootFailed: 'BootFailed',
  Running: 'Running',
  // Sandbox pause (the API answers these codes)
  Paused: 'Paused',
  PauseFailed: 'pause_failed',
  ResumeFailed: 'resume_failed',
} as const;

/**
 * Why a sandbox failed after the scheduler said yes (`Sandbox.status.reason`), with the HTTP status
 * the API answers. The scheduler's own refusals (`operator/scheduler/errors.ts`) are reasons too.
 */
export const SANDBOX_FAILURES = {
  /** The Mac hosting the sandbox stopped answering. */
  host_down: { status: 503, summary: 'the Mac hosting the sandbox stopped answering' },
  /** The VM vanished from its host (host restarted or the VM was removed behind our back). */
  vm_lost: { status: 503, summary: 'the sandbox VM disappeared from its host' },
  /** A cold boot (resize, start) failed. */
  boot_failed: { status: 502, summary: 'the VM failed to boot' },
  /** The reservation is not active (pending, completing, completed or cancelled). */
  reservation_not_active: { status: 409, summary: 'the reservation is not active' },
  /** No snapshot of that version in the account, or it failed to capture. */
  snapshot_not_found: { status: 404, summary: 'no such snapshot' },
  /** The snapshot artifact could not be read or reach the Mac, or its digest did not match. */
  snapshot_transfer_failed: { status: 502, summary: 'the snapshot could not be transferred to the Mac' },
  /** The Mac could not apply the snapshot's disk delta on its base image. */
  snapshot_apply_failed: { status: 502, summary: 'the snapshot could not be applied' },
  /** The VM restored from the snapshot did not start. */
  snapshot_startup_failed: { status: 502, summary: 'the restored VM did not start' },
  /** The sandbox's egress policy does not parse (a Sandbox written past the API's checks). */
  invalid_egress: { status: 400, summary: 'the egress policy does not parse' },
  /** The sandbox's Mac (or none of its reservation's) enforces the egress policy it asks for. */
  egress_not_allowed: { status: 422, summary: 'no Mac of the sandbox can enforce its egress policy' },
  /** The driver failed to put the egress policy in force on the VM. */
  egress_failed: { status: 502, summary: 'the egress policy could not be applied to the VM' },
  /** A fork's source sandbox was deleted, paused or failed before its disk was copied. */
  fork_source_unavailable: {
    status: 409,
    summary: 'the sandbox to fork is not running (deleted, paused or failed) so its disk cannot be copied',
  },
  /** The source's disk could not be copied to the fork's VM, or the fork did not start. */
  fork_failed: {
    status: 502,
    summary: "the source's disk could not be copied to the fork, or the fork did not start",
  },
} as const satisfies Record<string, { status: number; summary: string }>;

export type SandboxFailureCode = keyof typeof SANDBOX_FAILURES;

/** Why a snapshot capture failed (`Snapshot.status.message` carries the detail). */
export const SNAPSHOT_FAILURES = {
  source_not_found: 'the source sandbox does not exist or is not running',
  snapshot_capture_failed: 'the disk delta could not be exported from the source Mac',
} as const;

/** Finalizers the operator holds. */
export const Finalizers = {
  /** On a Sandbox: held until its VM is released (marked dirty for a fresh clone). */
  releaseVm: 'sandbay.io/release-vm',
  /** On a Reservation: held until its Macs are released and its key revoked. */
  releaseMinis: 'sandbay.io/release-minis',
  /** On a Snapshot: held until its artifact is removed from the blob store. */
  deleteArtifact: 'sandbay.io/delete-artifact',
  /** On a VM: held until the VM is deleted from its host. */
  deleteHostVm: 'sandbay.io/delete-host-vm',
} as const;
