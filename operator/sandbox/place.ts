// Placing a pending sandbox: the reservation must be active; a restore needs its snapshot ready;
// then the scheduler (pure) chooses a VM on the reservation's Macs and the claim is written as a
// conditional update of `VM.spec.sandbox`: of two creates that chose the same VM, one wins and
// the other reconciles again on fresh data.
import type { Sandbox, VM } from '../../crds/index.ts';
import { isScheduleFailure, type ScheduleRequest } from '../scheduler/index.ts';
import type { SandboxFailureCode } from '../conditions.ts';
import { reservationKeyOf, sandboxKeyOf, type OperatorContext } from '../context.ts';
import type { ClaimsInFlight } from './claims.ts';
import { chooseVm } from './choose.ts';
import { isStoreError } from '../../store/store.ts';
import { sandboxRef, writeClaimStatus } from './status.ts';

/**
 * On a claimed VM: `warm` or `cold`, as the scheduler decided. Written with the claim, so a sandbox
 * whose status write was lost to a crash right after its claim reports the right boot on recovery.
 */
export const BOOT_ANNOTATION = 'sandbay.io/boot';

export type PlaceOutcome =
  | { placed: true }
  | { placed: false; wait: true }
  | { placed: false; wait: false; code: string; message: string };

const wait: PlaceOutcome = { placed: false, wait: true };
const refuse = (code: SandboxFailureCode | string, message: string): PlaceOutcome => ({
  placed: false,
  wait: false,
  code,
  message,
});

export async function place(
  ctx: OperatorContext,
  claims: ClaimsInFlight,
  sb: Sandbox,
): Promise<PlaceOutcome> {
  const key = sandboxKeyOf(sb);
  const reservation = ctx.informers.reservations.get(reservationKeyOf(sb));
  const endAt = Date.parse(reservation?.status?.endAt ?? '');
  if (!reservation || reservation.status?.phase !== 'active' || !(endAt > ctx.clock.now())) {
    return refuse('reservation_not_active', `reservation ${sb.spec.reservation} is not active`);
  }
  const request: ScheduleRequest = {
    ...(sb.spec.cpu !== undefined && { cpu: sb.spec.cpu }),
    ...(sb.spec.memoryGiB !== undefined && { memoryGiB: sb.spec.memoryGiB }),
    ...(sb.spec.diskGiB !== undefined && { diskGiB: sb.spec.diskGiB }),
  };
  if (sb.spec.snapshot !== undefined) {
    const snap = ctx.informers.snapshots.get(`${sb.metadata.namespace}/${sb.spec.snapshot}`);
    if (!snap || snap.metadata.deletionTimestamp || snap.status?.phase === 'failed') {
      return refuse('snapshot_not_found', `snapshot ${sb.spec.snapshot} does not exist or failed to capture`);
    }
    const { phase, baseImage, diskGiB } = snap.status ?? {};
    if (phase !== 'ready' || baseImage === undefined || diskGiB === undefined) return wait;
    request.snapshot = { baseImage, diskGiB };
  }

  const choice = chooseVm(ctx, claims, key, reservation.status.minis ?? [], request);
  if (isScheduleFailure(choice)) {
    return refuse(choice.error, choice.message);
  }

  // No await between schedule() and assume(): no other reconcile here can choose this VM meanwhile.
  claims.assume(choice.vm, key);
  let claimed: VM;
  try {
    const vm = ctx.informers.vms.get(choice.vm)!;
    const { snapshot: _old, ...spec } = vm.spec;
    claimed = await ctx.client.update<VM>({
      ...vm,
      metadata: {
        ...vm.metadata,
        annotations: { ...vm.metadata.annotations, [BOOT_ANNOTATION]: choice.boot },
      },
      spec: {
        ...spec,
        sandbox: key,
        cpu: choice.cpu,
        memoryGiB: choice.memoryGiB,
        image: choice.image,
        diskGiB: choice.diskGiB,
        ...(sb.spec.snapshot !== undefined && { snapshot: sb.spec.snapshot }),
      },
    });
  } finally {
    claims.forget(choice.vm);
  }
  const placement = {
    boot: choice.boot,
    vm: claimed.metadata.name,
    mini: choice.mini,
    cpu: choice.cpu,
    memoryGiB: choice.memoryGiB,
  };
  // Conditional on the sandbox as this reconcile saw it: an operator in another process sharing the
  // store may have placed it meanwhile (its informer saw the sandbox before this one saw its claim).
  let runs: boolean;
  try {
    runs = await writeClaimStatus(ctx, sb, placement, claimed.status?.vmIp, sb.metadata.resourceVersion);
  } catch (err) {
    if (!isStoreError(err, 'Conflict')) throw err;
    const fresh = await ctx.store.get<Sandbox>(sandboxRef(sb));
    if (fresh?.status?.vm !== undefined && fresh.status.vm !== claimed.metadata.name) {
      // Placed elsewhere: give this VM back untouched (it never booted for the sandbox).
      const { [BOOT_ANNOTATION]: _boot, ...annotations } = claimed.metadata.annotations ?? {};
      await ctx.client.update<VM>({
        ...claimed,
        metadata: { ...claimed.metadata, annotations },
        spec: withoutClaim(claimed.spec),
      });
      return { placed: true };
    }
    if (!fresh) throw err;
    // Only something else changed (e.g. the API's lastActive): write the claim on the fresh version.
    runs = await writeClaimStatus(
      ctx,
      fresh,
      placement,
      claimed.status?.vmIp,
      fresh.metadata.resourceVersion,
    );
  }
  if (!runs) ctx.enqueue.pool(choice.mini);
  return { placed: true };
}

function withoutClaim(spec: VM['spec']): VM['spec'] {
  const { sandbox: _sandbox, snapshot: _snapshot, ...rest } = spec;
  return rest;
}
