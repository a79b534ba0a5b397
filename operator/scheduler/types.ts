// The scheduler's inputs and outputs. Plain data, so that the API (answering capacity errors at
// once) and the sandbox reconciler (binding) build the same input from what they read.
import type { MacModel, VM, VmLayout, WarmSlot } from '../../crds/index.ts';
import type { ScheduleErrorCode } from './errors.ts';

export interface Size {
  cpu: number;
  memoryGiB: number;
}

/** What the scheduler needs of one Mini of the reservation (see `miniView` for a Mini resource). */
export interface MiniView {
  name: string;
  model: MacModel;
  /** A linux Mac's VM slots (`Mini.spec.vmSlots`, crds/mac-models.ts); absent: the model's two. */
  vmSlots?: number;
  /** The layout in force on the Mac. */
  layout: VmLayout;
  /** The warm VM sizes the Mac keeps, by slot; a legacy profile is kept until the Mac is idle. */
  warmProfile: WarmSlot[];
  /** Images present on the host, each with the disk size its VMs get. */
  images: { name: string; diskGiB: number }[];
  /** Host unreachable: none of its VMs is chosen, nothing is planned on it. */
  down: boolean;
  /** The Mac's address (`Mini.spec.address`): a request pinned by IP names it. */
  address?: string;
}

/** A sandbox placed on a Mac (claimed a VM), with the size it actually got. */
export interface SandboxUse {
  /** `namespace/name`, as `VM.spec.sandbox` holds it. */
  name: string;
  mini: string;
  vm?: string;
  cpu: number;
  memoryGiB: number;
}

export interface ScheduleRequest {
  /** Omitted: the warm size of the slot the sandbox lands in. */
  cpu?: number;
  memoryGiB?: number;
  /** Must equal the image's disk size when given. */
  diskGiB?: number;
  /**
   * Restore: the base image recorded in the snapshot, and its disk size. A fork asks the same: the
   * image its source runs on (its disk is copied onto that image).
   */
  snapshot?: { baseImage: string; diskGiB: number };
  /**
   * A Mac to prefer over the others once warm before cold is decided (a fork: the source's Mac,
   * where its disk is copied without being moved). Only a preference, never a refusal.
   */
  near?: string;
  /**
   * A pin (the create's `host`): only this Mac, named by its Mini name or its address, may take
   * the sandbox; a pin that names none of the Macs given is `host_not_reserved`.
   */
  host?: string;
}

export interface ScheduleInput {
  /** The reservation's Minis. */
  minis: MiniView[];
  /** Every VM on those Minis. */
  vms: VM[];
  /** The sandboxes placed on those Minis. */
  sandboxes: SandboxUse[];
  request: ScheduleRequest;
}

export interface ScheduleChoice {
  mini: string;
  /** The VM to claim (conditional write of `VM.spec.sandbox`). */
  vm: string;
  /** `warm`: a running warm VM of exactly this size, used as is. `cold`: it must (re)boot. */
  boot: 'warm' | 'cold';
  /** The size the sandbox gets (M5 Pro split default: the claimed slot's 8 or 7 vCPU). */
  cpu: number;
  memoryGiB: number;
  /** The VM must be resized to cpu/memoryGiB before booting. */
  resize: boolean;
  /** The VM is stopped (kept aside): it boots rather than being stopped first. */
  fromStopped: boolean;
  /** The image the sandbox runs on (a restore: the snapshot's base) and its disk size. */
  image: string;
  diskGiB: number;
  /** The VM was cloned from another image: re-create it from `image` before booting. */
  reclone: boolean;
  /**
   * Unclaimed warm (or cloning) VMs on the same Mac that no longer fit once this sandbox runs:
   * stop them and keep them aside BEFORE booting the claimed VM, so the VMs running on the Mac
   * never add up to more than it has (behavior rule 6).
   */
  stopAside: string[];
}

export interface ScheduleFailure {
  error: ScheduleErrorCode;
  message: string;
}

export type ScheduleResult = ScheduleChoice | ScheduleFailure;

export function isScheduleFailure(result: ScheduleResult): result is ScheduleFailure {
  return 'error' in result;
}
