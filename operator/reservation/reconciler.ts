// The reservation reconciler: pending → paid, Macs bound, key issued → active; edits (more hours
// at the kept rate, a layout change once no sandbox runs); at end_at: sandboxes completing then
// destroyed, key revoked, Macs released → completed. Cancelling a pending reservation refunds it.
// Each step reads the world again, so a crash anywhere resumes where the store says it stands.
import type { Reservation, Sandbox } from '../../crds/index.ts';
import { ConditionTypes, Finalizers, Reasons } from '../conditions.ts';
import { Indexes, type OperatorContext } from '../context.ts';
import type { ReconcileFn, ReconcileResult } from '../runtime/index.ts';
import { sandboxMachine } from '../sandbox/states.ts';
import { ensureKey, revokeKeys } from './keys.ts';
import { applyHours, applyLayout, noteRejectedEdits, priceCents } from './edits.ts';
import { settle } from './ledger.ts';
import { availableMinis, bindMini, boundMinis, miniIpsOf, releaseMinis, reservationKey } from './minis.ts';
import { moveTo, patchReservationStatus, phaseOf } from './status.ts';

const HOUR_MS = 3_600_000;
/** How often a reservation that cannot proceed (no rate, no account) looks again. */
const RETRY_MS = 30_000;

export function reservationReconciler(ctx: OperatorContext): ReconcileFn {
  return async (key) => {
    let r = ctx.informers.reservations.get(key);
    if (!r) return;
    if (r.metadata.deletionTimestamp) return finalize(ctx, r);
    r = await ensureFinalizer(ctx, r);
    switch (phaseOf(r)) {
      case 'pending':
        return reconcilePending(ctx, r);
      case 'active':
        return reconcileActive(ctx, r);
      case 'completing':
        return reconcileCompleting(ctx, r);
      case 'completed':
      case 'cancelled':
        return;
    }
  };
}

async function ensureFinalizer(ctx: OperatorContext, r: Reservation): Promise<Reservation> {
  const finalizers = r.metadata.finalizers ?? [];
  if (finalizers.includes(Finalizers.releaseMinis)) return r;
  return ctx.client.update<Reservation>({
    ...r,
    metadata: { ...r.metadata, finalizers: [...finalizers, Finalizers.releaseMinis] },
  });
}

// ---- pending ----

async function reconcilePending(ctx: OperatorContext, r: Reservation): Promise<ReconcileResult | void> {
  const key = reservationKey(r);
  if (r.spec.cancelled) {
    return cancel(ctx, r, 'cancel', Reasons.CancelledByUser, 'cancelled by the customer before activation');
  }
  const rate = await ensureRate(ctx, r);
  if (rate === undefined) return { requeueAfterMs: RETRY_MS };
  r = ctx.informers.reservations.get(key) ?? r;

  const paid = await settle(ctx, r.metadata.namespace!, key, priceCents(r, rate));
  if (!paid.ok) {
    if (paid.reason === 'no_account') {
      await patchReservationStatus(ctx, r, {}, [
        {
          type: ConditionTypes.Paid,
          status: 'False',
          reason: Reasons.AwaitingPayment,
          message: paid.message,
        },
      ]);
      return { requeueAfterMs: RETRY_MS };
    }
    return cancel(ctx, r, 'noCredit', Reasons.InsufficientCredit, paid.message);
  }

  const bound = await bindMinis(ctx, r);
  if (bound === undefined) {
    const free = availableMinis(ctx, r.spec.macModel).length + boundMinis(ctx, key).length;
    return cancel(
      ctx,
      r,
      'noMinis',
      Reasons.InsufficientMinis,
      `insufficient_minis: ${r.spec.miniCount} ${r.spec.macModel} Mac(s) asked, ${free} available`,
    );
  }

  const keyRef = await ensureKey(ctx, r);
  r = ctx.informers.reservations.get(key) ?? r;
  const now = ctx.clock.now();
  const endAt = now + r.spec.hours * HOUR_MS;
  await moveTo(
    ctx,
    r,
    'activate',
    { status: 'True', reason: Reasons.Activated },
    {
      startAt: new Date(now).toISOString(),
      endAt: new Date(endAt).toISOString(),
      minis: bound.map((m) => m.metadata.name),
      miniIps: miniIpsOf(bound),
      rateCents: rate,
      paidHours: r.spec.hours,
      totalCents: priceCents(r, rate),
      layout: r.spec.vmLayout,
      keyRef,
    },
  );
  // A deadline, not a delay: a delay counted from a `now` read before this reconcile's writes runs late.
  return { requeueAtMs: endAt };
}

/** The rate kept for the reservation: the API's record at purchase, else today's Rate resource. */
async function ensureRate(ctx: OperatorContext, r: Reservation): Promise<number | undefined> {
  if (r.status?.rateCents !== undefined) return r.status.rateCents;
  const rate = ctx.informers.rates.list().find((x) => x.spec.macModel === r.spec.macModel);
  if (!rate) {
    await patchReservationStatus(ctx, r, { phase: 'pending' }, [
      {
        type: ConditionTypes.Ready,
        status: 'False',
        reason: Reasons.RateMissing,
        message: `no Rate is configured for ${r.spec.macModel}`,
      },
    ]);
    return undefined;
  }
  await patchReservationStatus(ctx, r, { phase: 'pending', rateCents: rate.spec.centsPerHour }, [
    { type: ConditionTypes.Ready, status: 'False', reason: Reasons.AwaitingPayment },
  ]);
  return rate.spec.centsPerHour;
}

/** Binds Macs until the reservation has miniCount of them; undefined when too few are free. */
async function bindMinis(ctx: OperatorContext, r: Reservation) {
  const key = reservationKey(r);
  const need = r.spec.miniCount - boundMinis(ctx, key).length;
  if (need > 0) {
    const free = availableMinis(ctx, r.spec.macModel);
    if (free.length < need) return undefined;
    for (const mini of free.slice(0, need)) await bindMini(ctx, mini, key, r.spec.vmLayout);
  }
  return boundMinis(ctx, key);
}

/** Refunds what was paid, releases any Mac bound so far, revokes the key, and ends as cancelled. */
async function cancel(
  ctx: OperatorContext,
  r: Reservation,
  event: 'cancel' | 'noMinis' | 'noCredit',
  reason: string,
  message: string,
): Promise<void> {
  const key = reservationKey(r);
  const refunded = await settle(ctx, r.metadata.namespace!, key, 0);
  if (!refunded.ok && refunded.reason !== 'no_account') throw new Error(refunded.message);
  await releaseMinis(ctx, key);
  await revokeKeys(ctx, key);
  await moveTo(ctx, ctx.informers.reservations.get(key) ?? r, event, { status: 'False', reason, message });
}

// ---- active ----

async function reconcileActive(ctx: OperatorContext, r: Reservation): Promise<ReconcileResult | void> {
  const now = ctx.clock.now();
  const endAt = Date.parse(r.status?.endAt ?? '');
  if (Number.isNaN(endAt) || now >= endAt) {
    const expired = await moveTo(ctx, r, 'expire', { status: 'False', reason: Reasons.Expired });
    return reconcileCompleting(ctx, expired);
  }
  r = await applyHours(ctx, r);
  r = await applyLayout(ctx, r);
  await noteRejectedEdits(ctx, r);
  const end = Date.parse(r.status?.endAt ?? '');
  return { requeueAtMs: end };
}

// ---- expiry ----

/** Marks every sandbox completing and deletes it; once none is left, revokes the key and frees the Macs. */
async function reconcileCompleting(ctx: OperatorContext, r: Reservation): Promise<ReconcileResult | void> {
  const key = reservationKey(r);
  if (!(await drainSandboxes(ctx, key))) return;
  await revokeKeys(ctx, key);
  await releaseMinis(ctx, key);
  await moveTo(ctx, ctx.informers.reservations.get(key) ?? r, 'cleaned', {
    status: 'False',
    reason: Reasons.Completed,
  });
}

/** Returns true once the reservation has no sandbox left. */
async function drainSandboxes(ctx: OperatorContext, key: string): Promise<boolean> {
  const sandboxes = ctx.informers.sandboxes.byIndex(Indexes.sandboxByReservation, key);
  await Promise.all(sandboxes.map((sb) => completeSandbox(ctx, sb)));
  return sandboxes.length === 0;
}

async function completeSandbox(ctx: OperatorContext, sb: Sandbox): Promise<void> {
  const ref = { kind: 'Sandbox', namespace: sb.metadata.namespace!, name: sb.metadata.name };
  const phase = sb.status?.phase ?? 'pending';
  if (phase !== 'completing') {
    sandboxMachine.transition(phase, 'reservationEnded');
    await ctx.client.patch(ref, { status: { phase: 'completing' } }, { subresource: 'status' });
  }
  if (!sb.metadata.deletionTimestamp) await ctx.client.delete(ref);
}

// ---- deletion ----

/** A deleted reservation cleans up like an expiry (or a cancellation, when it never activated). */
async function finalize(ctx: OperatorContext, deleted: Reservation): Promise<void> {
  let r = deleted;
  const key = reservationKey(r);
  if (!(r.metadata.finalizers ?? []).includes(Finalizers.releaseMinis)) return;
  if (phaseOf(r) === 'pending' || phaseOf(r) === 'cancelled') {
    const refunded = await settle(ctx, r.metadata.namespace!, key, 0);
    if (!refunded.ok && refunded.reason !== 'no_account') throw new Error(refunded.message);
  }
  if (phaseOf(r) === 'active') {
    // Deleted while active: its sandboxes report `completing` as at expiry (no refund).
    r = await moveTo(ctx, r, 'expire', {
      status: 'False',
      reason: Reasons.Expired,
      message: 'reservation deleted',
    });
  }
  if (!(await drainSandboxes(ctx, key))) return;
  await revokeKeys(ctx, key);
  await releaseMinis(ctx, key);
  await ctx.client.update<Reservation>({
    ...r,
    metadata: {
      ...r.metadata,
      finalizers: (r.metadata.finalizers ?? []).filter((f) => f !== Finalizers.releaseMinis),
    },
  });
}
