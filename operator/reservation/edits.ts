// An active reservation: edits it can honour (more hours at the kept rate; a layout change once no
// sandbox is left, price unchanged), edits it cannot (noted on a condition), and its end.
import type { Reservation, Sandbox } from '../../crds/index.ts';
import { ConditionTypes, Reasons } from '../conditions.ts';
import { Indexes, type OperatorContext } from '../context.ts';
import { settle } from './ledger.ts';
import { boundMinis, relayoutMini, reservationKey } from './minis.ts';
import { moveTo, patchReservationStatus } from './status.ts';

const HOUR_MS = 3_600_000;

export function priceCents(r: Reservation, rateCents: number, hours = r.spec.hours): number {
  return rateCents * r.spec.miniCount * hours;
}

/** More hours are paid at the rate kept from the purchase; end_at moves accordingly. */
export async function applyHours(ctx: OperatorContext, r: Reservation): Promise<Reservation> {
  const paidHours = r.status?.paidHours ?? r.spec.hours;
  const rate = r.status?.rateCents;
  if (r.spec.hours <= paidHours || rate === undefined) return r;
  const paid = await settle(ctx, r.metadata.namespace!, reservationKey(r), priceCents(r, rate));
  if (!paid.ok) {
    return patchReservationStatus(ctx, r, {}, [
      {
        type: ConditionTypes.Paid,
        status: 'False',
        reason: Reasons.InsufficientCredit,
        message: paid.message,
      },
    ]);
  }
  const startAt = Date.parse(r.status!.startAt!);
  const next = await moveTo(
    ctx,
    ctx.informers.reservations.get(reservationKey(r)) ?? r,
    'edit',
    {
      status: 'True',
      reason: Reasons.Activated,
    },
    {
      paidHours: r.spec.hours,
      endAt: new Date(startAt + r.spec.hours * HOUR_MS).toISOString(),
      totalCents: priceCents(r, rate),
    },
  );
  return patchReservationStatus(ctx, next, {}, [
    { type: ConditionTypes.Paid, status: 'True', reason: Reasons.Charged },
  ]);
}

/** Sandboxes that still hold (or are about to hold) a VM: every one not failed. */
function liveSandboxes(ctx: OperatorContext, key: string): Sandbox[] {
  return ctx.informers.sandboxes
    .byIndex(Indexes.sandboxByReservation, key)
    .filter((s) => s.status?.phase !== 'failed');
}

/** A layout change applies once all the reservation's sandboxes are stopped; the price is unchanged. */
export async function applyLayout(ctx: OperatorContext, r: Reservation): Promise<Reservation> {
  const key = reservationKey(r);
  const current = r.status?.layout ?? r.spec.vmLayout;
  if (r.spec.vmLayout === current) return r;
  const running = liveSandboxes(ctx, key);
  if (running.length > 0) {
    return patchReservationStatus(ctx, r, {}, [
      {
        type: ConditionTypes.LayoutApplied,
        status: 'False',
        reason: Reasons.SandboxesRunning,
        message: `${running.length} sandbox(es) must be stopped before the layout changes to ${r.spec.vmLayout}`,
      },
    ]);
  }
  for (const mini of boundMinis(ctx, key)) await relayoutMini(ctx, mini, r.spec.vmLayout);
  return patchReservationStatus(ctx, ctx.informers.reservations.get(key) ?? r, { layout: r.spec.vmLayout }, [
    { type: ConditionTypes.LayoutApplied, status: 'True', reason: Reasons.LayoutApplied },
  ]);
}

/** Edits the reservation cannot honour: fewer hours, another Mac count, cancelling once active. */
export async function noteRejectedEdits(ctx: OperatorContext, r: Reservation): Promise<void> {
  const problems: string[] = [];
  const paidHours = r.status?.paidHours ?? r.spec.hours;
  if (r.spec.hours < paidHours) problems.push(`hours can only grow (paid for ${paidHours})`);
  const minis = r.status?.minis?.length ?? r.spec.miniCount;
  if (r.spec.miniCount !== minis) problems.push(`mini_count is fixed at activation (${minis})`);
  if (r.spec.cancelled) problems.push('an active reservation cannot be cancelled; it ends at end_at');
  await patchReservationStatus(ctx, r, {}, [
    problems.length > 0
      ? {
          type: ConditionTypes.EditAccepted,
          status: 'False',
          reason: Reasons.EditRejected,
          message: problems.join('; '),
        }
      : { type: ConditionTypes.EditAccepted, status: 'True', reason: Reasons.EditsApplied },
  ]);
}
