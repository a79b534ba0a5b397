// Reservations as the API sees them: finding the caller's reservation, buying one (credit check,
// Macs available, rate kept), editing one, and the wire shape of the spec's Reservation object.
import { randomUUID } from 'node:crypto';
import {
  API_VERSION,
  type Account,
  type ApiKey,
  type Mini,
  type Rate,
  type Reservation,
  type Sandbox,
} from '../../crds/index.ts';
import { isMiniForSale } from '../../operator/reservation/minis.ts';
import { isStoreError } from '../../store/store.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { endAtMs } from './reservation-end.ts';
import { apiKeyResource, generateKey } from '../keys.ts';
import type { ReservationCreate, ReservationEdit, ReservationWire } from '../schemas/reservations.ts';
import type { ApiContext } from './context.ts';
import { waitForResource } from './wait.ts';

/** Label on resources that belong to a reservation (its name), for listing them by selector. */
export const RESERVATION_LABEL = 'sandbay.io/reservation';

/** How long a purchase waits for the reconciler to activate it before answering with `pending`. */
export const ACTIVATION_WAIT_MS = 10_000;

/** True when the reservation is active and its end has not passed. */
export function isActive(reservation: Reservation, now: number): boolean {
  return (
    reservation.status?.phase === 'active' &&
    !reservation.metadata.deletionTimestamp &&
    endAtMs(reservation) > now
  );
}

/** A reservation the principal may see: its account's, and for a reservation key only its own. */
export async function findReservation(
  ctx: ApiContext,
  principal: Principal,
  id: string,
): Promise<Reservation> {
  if (principal.reservation !== undefined && principal.reservation !== id)
    throw new ApiError('reservation_not_found');
  const reservation = await ctx.reads.reservation(principal.account, id);
  if (!reservation) throw new ApiError('reservation_not_found');
  return reservation;
}

export async function listReservations(ctx: ApiContext, principal: Principal): Promise<Reservation[]> {
  const { items } = await ctx.store.list<Reservation>('Reservation', { namespace: principal.account });
  return items
    .filter((r) => principal.reservation === undefined || r.metadata.name === principal.reservation)
    .sort(byCreation);
}

/**
 * The reservation a sandbox is created in (spec behavior rule 3): the reservation key's own; the
 * one named; or the account's only active one.
 */
export async function reservationForCreate(
  ctx: ApiContext,
  principal: Principal,
  reservationId: string | undefined,
): Promise<Reservation> {
  const now = ctx.clock.now();
  const id = reservationId ?? principal.reservation;
  if (id !== undefined) {
    const reservation = await findReservation(ctx, principal, id);
    if (!isActive(reservation, now)) throw new ApiError('reservation_not_active');
    return reservation;
  }
  // From the cache, not a store list per create; only a miss asks the store (a reservation written a
  // moment ago by someone else, not in the cache yet).
  let active = ctx.reads.reservationsIn(principal.account).filter((r) => isActive(r, now));
  if (active.length === 0) active = (await listReservations(ctx, principal)).filter((r) => isActive(r, now));
  if (active.length === 0) throw new ApiError('no_active_reservation');
  if (active.length > 1) throw new ApiError('reservation_id_required');
  return active[0]!;
}

/** Buys a reservation: the reconciler then charges the ledger, binds Macs and activates it. */
export async function createReservation(
  ctx: ApiContext,
  principal: Principal,
  body: ReservationCreate,
): Promise<{ reservation: Reservation; key: string }> {
  const { store } = ctx;
  const rate = await store.get<Rate>({ kind: 'Rate', name: body.mac_model });
  if (!rate) throw new ApiError('pricing_unavailable', `No rate is configured for ${body.mac_model}.`);
  const totalCents = rate.spec.centsPerHour * body.mini_count * body.hours;
  await requireCredit(ctx, principal.account, totalCents);
  await requireMinis(ctx, body.mac_model, body.mini_count);

  const name = randomUUID();
  const key = generateKey();
  // The key first: a key whose reservation never got written authenticates nothing.
  await store.create<ApiKey>(
    apiKeyResource(key, {
      kind: 'reservation',
      account: principal.account,
      reservation: `${principal.account}/${name}`,
    }),
  );
  const created = await store.create<Reservation>({
    apiVersion: API_VERSION,
    kind: 'Reservation',
    metadata: { name, namespace: principal.account },
    spec: {
      hours: body.hours,
      miniCount: body.mini_count,
      macModel: body.mac_model,
      vmLayout: body.vm_layout,
    },
  });
  // The rate at purchase is the API's to record: later edits keep it (spec behavior rule 1).
  const priced = await store.patch<Reservation>(
    { kind: 'Reservation', namespace: principal.account, name },
    { status: { rateCents: rate.spec.centsPerHour, totalCents, keyRef: key.name } },
    { subresource: 'status' },
  );
  ctx.operatorHooks?.written?.('Reservation', `${principal.account}/${name}`);
  const reservation = await waitForActivation(ctx, priced ?? created);
  return { reservation, key: key.plaintext };
}

async function waitForActivation(ctx: ApiContext, reservation: Reservation): Promise<Reservation> {
  return waitForResource<Reservation, Reservation>({
    store: ctx.store,
    clock: ctx.clock,
    kind: 'Reservation',
    namespace: reservation.metadata.namespace!,
    name: reservation.metadata.name,
    fromVersion: reservation.metadata.resourceVersion,
    decide: (obj) =>
      obj && obj.status?.phase !== undefined && obj.status.phase !== 'pending' ? { result: obj } : undefined,
    timeoutMs: ACTIVATION_WAIT_MS,
    onTimeout: () => reservation,
    signal: ctx.shutdown,
  }).then(async (r) => {
    const fresh = (await ctx.store.get<Reservation>(keyOf(r))) ?? r;
    await ctx.reads.synced(fresh);
    return fresh;
  });
}

function keyOf(r: Reservation) {
  return { kind: 'Reservation', namespace: r.metadata.namespace!, name: r.metadata.name };
}

/** Edits hours (only more) and the layout (only with no sandboxes); pays added hours at the kept rate. */
export async function editReservation(
  ctx: ApiContext,
  principal: Principal,
  id: string,
  edit: ReservationEdit,
): Promise<Reservation> {
  await findReservation(ctx, principal, id);
  // The reconciler writes the reservation's status at any time: the edit is checked against a
  // fresh read and applied with its resourceVersion, again on a conflict.
  for (let attempt = 0; ; attempt++) {
    const reservation = await ctx.store.get<Reservation>({
      kind: 'Reservation',
      namespace: principal.account,
      name: id,
    });
    if (!reservation) throw new ApiError('reservation_not_found');
    const change = await checkEdit(ctx, principal, reservation, edit);
    if (!change) return reservation;
    try {
      const edited = await ctx.store.patch<Reservation>(
        keyOf(reservation),
        { spec: change },
        { resourceVersion: reservation.metadata.resourceVersion! },
      );
      await ctx.reads.synced(edited);
      return edited;
    } catch (err) {
      if (!isStoreError(err, 'Conflict')) throw err;
      if (attempt >= 4) throw new ApiError('conflict');
    }
  }
}

/** The spec change an edit makes (undefined: none), or the error it answers with. */
async function checkEdit(
  ctx: ApiContext,
  principal: Principal,
  reservation: Reservation,
  edit: ReservationEdit,
): Promise<Pick<Reservation['spec'], 'hours' | 'vmLayout'> | undefined> {
  const phase = reservation.status?.phase ?? 'pending';
  if (phase !== 'pending' && phase !== 'active') throw new ApiError('reservation_not_editable');
  const hours = edit.hours ?? reservation.spec.hours;
  if (hours < reservation.spec.hours) {
    throw new ApiError(
      'invalid_hours',
      `A reservation edit may only add hours (now ${reservation.spec.hours}).`,
    );
  }
  const addedHours = hours - reservation.spec.hours;
  if (addedHours > 0) {
    const rate = reservation.status?.rateCents ?? 0;
    await requireCredit(ctx, principal.account, rate * reservation.spec.miniCount * addedHours);
  }
  const layout = edit.vm_layout ?? reservation.spec.vmLayout;
  if (layout !== reservation.spec.vmLayout && (await sandboxesOf(ctx, reservation)).length > 0) {
    throw new ApiError('sandboxes_running');
  }
  if (hours === reservation.spec.hours && layout === reservation.spec.vmLayout) return undefined;
  return { hours, vmLayout: layout };
}

async function sandboxesOf(ctx: ApiContext, reservation: Reservation): Promise<Sandbox[]> {
  const { items } = await ctx.store.list<Sandbox>('Sandbox', { namespace: reservation.metadata.namespace! });
  // A failed sandbox holds no VM; one being deleted still runs until its VM is released.
  return items.filter(
    (s) => s.spec.reservation === reservation.metadata.name && s.status?.phase !== 'failed',
  );
}

async function requireCredit(ctx: ApiContext, account: string, cents: number): Promise<void> {
  const acct = await ctx.store.get<Account>({ kind: 'Account', name: account });
  const balance = acct?.status?.balanceCents ?? 0;
  if (balance < cents) {
    throw new ApiError(
      'insufficient_credit',
      `This costs ${cents} cents; the account balance is ${balance} cents.`,
    );
  }
}

async function requireMinis(ctx: ApiContext, model: string, count: number): Promise<void> {
  const { items } = await ctx.store.list<Mini>('Mini');
  const free = items.filter((m) => isMiniForSale(m, model, isOccupied(ctx, m))).length;
  if (free < count) {
    throw new ApiError('minis_unavailable', `${count} ${model} Mac(s) asked, ${free} available now.`);
  }
}

/** A Mac still holding a sandbox (a pool sandbox on a Mac whose `pool` was just turned off). */
export function isOccupied(ctx: ApiContext, mini: Mini): boolean {
  return ctx.reads.fleetOf([mini.metadata.name]).sandboxes.length > 0;
}

function byCreation(a: Reservation, b: Reservation): number {
  return (
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

/** The user id the spec's Reservation object reports: the account's `userId`. */
export async function userIdOf(ctx: ApiContext, account: string): Promise<string> {
  const acct = await ctx.store.get<Account>({ kind: 'Account', name: account });
  return acct?.spec.userId ?? '00000000-0000-0000-0000-000000000000';
}

export function reservationWire(r: Reservation, userId: string): ReservationWire {
  const s = r.status ?? {};
  return {
    id: r.metadata.name,
    user_id: userId,
    mini_count: r.spec.miniCount,
    hours: r.spec.hours,
    start_at: s.startAt ?? null,
    end_at: s.endAt ?? null,
    // At the rate kept from the purchase, so edits that add hours show in the total at once.
    total_cents:
      s.rateCents !== undefined ? s.rateCents * r.spec.miniCount * r.spec.hours : (s.totalCents ?? 0),
    status: s.phase ?? 'pending',
    mini_ips: s.miniIps ?? [],
    mac_model: r.spec.macModel,
    vm_layout: s.layout ?? r.spec.vmLayout,
    created_at: r.metadata.creationTimestamp ?? new Date(0).toISOString(),
  };
}
