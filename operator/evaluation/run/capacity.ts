// How much of a reservation an evaluation run may use, and whether an attempt may take a VM now.
//
// The run admits attempts up to the reservation's sandbox places (2 per Mac split, 1 whole; fewer
// when `concurrency` says so). An admitted attempt writes its sandbox only when the scheduler (the
// same pure function sandbox creates go through) has a VM for a default-size sandbox on the
// reservation's Macs right now, and no other sandbox of the reservation waits to be placed: a VM
// still cloning after the last attempt, or taken by the account's own sandboxes, makes it wait, as
// a create would retry on 503 `no_warm_vm`. Should two writes still race for one VM, the scheduler's
// conditional claim gives it to one; the other sandbox is refused, and its attempt waits again.
import type { Reservation } from '../../../crds/index.ts';
import { maxSandboxesPerMac } from '../../../crds/index.ts';
import { Indexes, type OperatorContext } from '../../context.ts';
import { isScheduleFailure, miniView, scheduleOn, type ScheduleErrorCode } from '../../scheduler/index.ts';

/** Refusals that pass with time or with the account's other sandboxes going away: the attempt waits. */
export const WAIT_CODES: ReadonlySet<string> = new Set<ScheduleErrorCode>([
  'no_warm_vm',
  'insufficient_capacity',
  'sandbox_limit_reached',
]);

/** Sandboxes the reservation's Macs can run at once. */
export function reservationPlaces(ctx: OperatorContext, reservation: Reservation): number {
  return (reservation.status?.minis ?? []).reduce((n, name) => {
    const mini = ctx.informers.minis.get(name);
    if (!mini) return n;
    const view = miniView(mini);
    return n + maxSandboxesPerMac(view.layout, view.vmSlots);
  }, 0);
}

/** `namespace/name` of a reservation, as sandboxes are indexed by it. */
export function reservationKeyOfRun(namespace: string, reservation: string): string {
  return `${namespace}/${reservation}`;
}

export type VmDecision = { free: true } | { free: false; wait: boolean; code: string; message: string };

/** Whether a default-size sandbox of the reservation would be placed now. */
export function vmFor(ctx: OperatorContext, reservation: Reservation): VmDecision {
  const key = reservationKeyOfRun(reservation.metadata.namespace!, reservation.metadata.name);
  const unplaced = ctx.informers.sandboxes
    .byIndex(Indexes.sandboxByReservation, key)
    .find((s) => !s.metadata.deletionTimestamp && (s.status?.phase ?? 'pending') === 'pending');
  if (unplaced)
    return {
      free: false,
      wait: true,
      code: 'placing',
      message: `sandbox ${unplaced.metadata.name} is being placed first`,
    };
  const names = reservation.status?.minis ?? [];
  const result = scheduleOn(
    names.flatMap((n) => ctx.informers.minis.get(n) ?? []),
    names.flatMap((n) => ctx.informers.vms.byIndex(Indexes.vmByMini, n)),
    names.flatMap((n) => ctx.informers.sandboxes.byIndex(Indexes.sandboxByMini, n)),
    {},
  );
  if (!isScheduleFailure(result)) return { free: true };
  return { free: false, wait: WAIT_CODES.has(result.error), code: result.error, message: result.message };
}
