// Writing a Reservation's status: merge patches carrying the resourceVersion they were computed
// from, and phase changes only through the transition table.
import type { Reservation, ReservationPhase, ReservationStatus } from '../../crds/index.ts';
import { ConditionTypes, setCondition, type ConditionInput } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import { reservationMachine, type ReservationEvent } from './states.ts';

export function phaseOf(r: Reservation): ReservationPhase {
  return r.status?.phase ?? 'pending';
}

export async function patchReservationStatus(
  ctx: OperatorContext,
  r: Reservation,
  status: Partial<ReservationStatus>,
  conditions: ConditionInput[] = [],
): Promise<Reservation> {
  let list = r.status?.conditions;
  let changed = false;
  for (const c of conditions) {
    const res = setCondition(list, c, new Date(ctx.clock.now()));
    list = res.conditions;
    changed ||= res.changed;
  }
  const fields = Object.entries(status).filter(
    ([k, v]) => JSON.stringify((r.status as Record<string, unknown> | undefined)?.[k]) !== JSON.stringify(v),
  );
  if (fields.length === 0 && !changed) return r;
  return ctx.client.patch<Reservation>(
    { kind: 'Reservation', namespace: r.metadata.namespace!, name: r.metadata.name },
    { status: { ...Object.fromEntries(fields), ...(changed && { conditions: list }) } },
    { subresource: 'status', resourceVersion: r.metadata.resourceVersion! },
  );
}

/** Moves the reservation through `event`, with the Ready condition saying why. */
export function moveTo(
  ctx: OperatorContext,
  r: Reservation,
  event: ReservationEvent,
  ready: { status: 'True' | 'False'; reason: string; message?: string },
  extra: Partial<ReservationStatus> = {},
): Promise<Reservation> {
  const phase = reservationMachine.transition(phaseOf(r), event);
  ctx.logger.info(
    { reservation: `${r.metadata.namespace}/${r.metadata.name}`, phase, reason: ready.reason },
    'reservation',
  );
  return patchReservationStatus(
    ctx,
    r,
    { ...extra, phase, ...(ready.message !== undefined && { message: ready.message }) },
    [{ type: ConditionTypes.Ready, ...ready }],
  );
}
