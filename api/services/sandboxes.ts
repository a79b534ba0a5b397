// The sandbox lifecycle as the API drives it: it never touches a Mac. Create answers capacity
// refusals at once with the pure scheduler, then writes a Sandbox and waits until the sandbox
// reconciler reports `running` or `failed`; delete writes the deletion and lets the reconciler
// release the VM (finalizer). Reads map the resource to the spec's wire shapes.
import { randomUUID } from 'node:crypto';
import {
  API_VERSION,
  DEFAULT_MAC_MODEL,
  SNAPSHOT_TRANSFER_DEADLINE_MS,
  type Account,
  type MacModel,
  type Rate,
  type Reservation,
  type Sandbox,
} from '../../crds/index.ts';
import { Finalizers } from '../../operator/conditions.ts';
import { balanceCents } from '../../operator/reservation/ledger.ts';
import { poolMiniNames, poolRateCents } from '../../operator/sandbox/pool.ts';
import {
  isScheduleFailure,
  scheduleOn,
  scheduleRequest,
  scheduleShortlisted,
  sizeFailure,
  snapshotRequest,
  type ScheduleRequest,
} from '../../operator/scheduler/index.ts';
import type { Principal } from '../auth.ts';
import { ApiError, isErrorCode } from '../errors.ts';
import {
  SANDBOX_TYPE,
  type SandboxCreate,
  type SandboxCreated,
  type SandboxInfo,
} from '../schemas/sandboxes.ts';
import { VIEWERS_REVOKED_AT, vncPath } from '../viewer-token.ts';
import type { ApiContext } from './context.ts';
import { RESERVATION_LABEL, findReservation, isActive, reservationForCreate } from './reservations.ts';
import { requireRunning } from './guests.ts';
import { waitForCached } from './wait.ts';
import { egressWire, parseEgressOrRefuse, refuseEgressAtOnce } from './network.ts';
import { isStoreError } from '../../store/store.ts';

/** Attempt deadlines (spec, Limits): an ordinary create, and a snapshot restore. */
export const CREATE_DEADLINE_MS = 10 * 60 * 1000;
export const RESTORE_DEADLINE_MS = SNAPSHOT_TRANSFER_DEADLINE_MS;

export function sshPath(sandboxId: string): string {
  return `/v1/sandboxes/${sandboxId}/ssh`;
}

/**
 * `sb-` and 32 hex digits: a random UUID's (122 random bits). `randomUUID` draws from a pool it
 * refills in bulk; `randomBytes(16)` asked the system's generator on every create (1.6% of a burst
 * of creates' main-thread time, measured with perf).
 */
export function newSandboxId(): string {
  return `sb-${randomUUID().replaceAll('-', '')}`;
}

/** True while customers see the sandbox: not deleted, except while `completing` at reservation expiry. */
function visible(sandbox: Sandbox): boolean {
  return !sandbox.metadata.deletionTimestamp || sandbox.status?.phase === 'completing';
}

/** A sandbox the principal owns (404 for anyone else, and for a reservation key of another reservation). */
export async function findSandbox(ctx: ApiContext, principal: Principal, id: string): Promise<Sandbox> {
  const sandbox = await ctx.reads.sandbox(principal.account, id);
  if (!sandbox || !ownedBy(sandbox, principal)) throw new ApiError('sandbox_not_found');
  return sandbox;
}

/**
 * `findSandbox` from a cache hit alone, without a promise: the sandbox when the cache holds it and
 * the principal may see it; undefined otherwise (then `findSandbox` decides, reading the store).
 */
export function cachedSandbox(ctx: ApiContext, principal: Principal, id: string): Sandbox | undefined {
  const sandbox = ctx.reads.hit<Sandbox>('Sandbox', id, principal.account);
  return sandbox && ownedBy(sandbox, principal) ? sandbox : undefined;
}

function ownedBy(sandbox: Sandbox, principal: Principal): boolean {
  return (
    visible(sandbox) &&
    (principal.reservation === undefined || sandbox.spec.reservation === principal.reservation) &&
    (principal.sandbox === undefined || sandbox.metadata.name === principal.sandbox)
  );
}

export async function listSandboxes(
  ctx: ApiContext,
  principal: Principal,
  reservationId?: string,
  pool?: boolean,
): Promise<Sandbox[]> {
  const { items } = await ctx.store.list<Sandbox>('Sandbox', { namespace: principal.account });
  const only = principal.reservation ?? reservationId;
  return items
    .filter(
      (s) =>
        visible(s) &&
        (only === undefined || s.spec.reservation === only) &&
        (pool === undefined || (s.spec.pool === true) === pool),
    )
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
}

export async function createSandbox(
  ctx: ApiContext,
  principal: Principal,
  body: SandboxCreate,
  name: string = newSandboxId(),
): Promise<SandboxCreated> {
  const badSize = sizeFailure({
    ...(body.cpu !== undefined && { cpu: body.cpu }),
    ...(body.memory_gib !== undefined && { memoryGiB: body.memory_gib }),
  });
  if (badSize) throw new ApiError(badSize.error, badSize.message);
  const egress = body.egress === undefined ? undefined : parseEgressOrRefuse(body.egress);
  const target = body.pool ? await poolTarget(ctx, principal, body) : undefined;
  if (!body.pool && body.mac_model !== undefined) {
    throw new ApiError('invalid_request', 'body/mac_model applies to pool sandboxes only ("pool": true).');
  }
  const reservation = target ? undefined : await reservationForCreate(ctx, principal, body.reservation_id);
  const request = await requestFor(ctx, principal, body);
  const macs = target?.minis ?? reservation?.status?.minis ?? [];
  // A policy these Macs never enforce first: a busy Mac's 503 would send the client retrying a
  // request that cannot succeed.
  refuseEgressAtOnce(ctx, macs, egress);
  refuseAtOnce(ctx, macs, request);

  const sandbox = await createOrAdopt(ctx, {
    apiVersion: API_VERSION,
    kind: 'Sandbox',
    metadata: {
      name,
      namespace: principal.account,
      // The reconciler's finalizer, written with the sandbox: one write per create fewer (the
      // reconciler would add it as its first step anyway).
      finalizers: [Finalizers.releaseVm],
      ...(reservation && { labels: { [RESERVATION_LABEL]: reservation.metadata.name } }),
    },
    spec: {
      ...(reservation && { reservation: reservation.metadata.name }),
      ...(target && { pool: true, macModel: target.model }),
      ...(body.cpu !== undefined && { cpu: body.cpu }),
      ...(body.memory_gib !== undefined && { memoryGiB: body.memory_gib }),
      ...(body.disk_gib !== undefined && { diskGiB: body.disk_gib }),
      ...(body.snapshot !== undefined && { snapshot: body.snapshot }),
      ...(body.host !== undefined && { host: body.host }),
      ephemeral: body.ephemeral ?? false,
      ...(egress && { egress }),
    },
  });
  ctx.operatorHooks?.written?.('Sandbox', `${principal.account}/${sandbox.metadata.name}`);
  // Read from the cache: a later GET finds it at least this fresh.
  const running = await waitUntilRunning(ctx, sandbox);
  return createdWire(ctx, running, reservation);
}

/**
 * Creates the sandbox, or, when one of this name exists, answers it: the name comes from the
 * request's Idempotency-Key record, so an existing one is what an earlier attempt of the same
 * request (same account, path and body) created before its process died (docs/api.md, Crash
 * consistency). A name from `newSandboxId` never collides.
 */
export async function createOrAdopt(ctx: ApiContext, sandbox: Sandbox): Promise<Sandbox> {
  try {
    return await ctx.store.create<Sandbox>(sandbox);
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    const key = { kind: 'Sandbox', namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name };
    const existing = await ctx.store.get<Sandbox>(key);
    if (!existing) throw new ApiError('sandbox_failed', 'The sandbox was deleted before it started.');
    return existing;
  }
}

/** The scheduler's request; a restore carries the base image recorded in the snapshot. */
async function requestFor(
  ctx: ApiContext,
  principal: Principal,
  body: SandboxCreate,
): Promise<ScheduleRequest> {
  const request = scheduleRequest({
    ...(body.cpu !== undefined && { cpu: body.cpu }),
    ...(body.memory_gib !== undefined && { memoryGiB: body.memory_gib }),
    ...(body.disk_gib !== undefined && { diskGiB: body.disk_gib }),
    ...(body.host !== undefined && { host: body.host }),
  });
  if (body.snapshot === undefined) return request;
  // As the reconciler sees it: a snapshot that failed to capture does not exist.
  const base = snapshotRequest(await ctx.reads.snapshot(principal.account, body.snapshot));
  if (base === 'not_found') throw new ApiError('snapshot_not_found');
  if (base === 'not_ready') throw new ApiError('snapshot_not_ready');
  return { ...request, snapshot: base };
}

/**
 * A pool create (docs/api.md, Pool sandboxes): the account key only, no reservation; the model's
 * pool price must be configured and the credit must cover the first hour (the reconciler charges
 * it at placement, and refunds it if the sandbox never runs). Answers the pool Macs to schedule on.
 */
async function poolTarget(
  ctx: ApiContext,
  principal: Principal,
  body: SandboxCreate,
): Promise<{ model: MacModel; minis: string[] }> {
  if (principal.reservation !== undefined) {
    throw new ApiError(
      'account_key_required',
      'A pool sandbox is created with the account key (a reservation key is bound to its reservation).',
    );
  }
  if (body.reservation_id !== undefined) {
    throw new ApiError('invalid_request', 'body/reservation_id and body/pool exclude each other.');
  }
  // The pool's Macs are the operator's, not the caller's to name (nor to learn from a refusal).
  if (body.host !== undefined) {
    throw new ApiError('invalid_request', 'body/host pins a Mac of a reservation; pool sandboxes take none.');
  }
  const model = body.mac_model ?? DEFAULT_MAC_MODEL;
  const [rates, account] = await Promise.all([
    ctx.store.list<Rate>('Rate'),
    ctx.store.get<Account>({ kind: 'Account', name: principal.account }),
  ]);
  const cents = poolRateCents(rates.items, model);
  if (cents === undefined) {
    throw new ApiError('pricing_unavailable', `No pool price is configured for ${model}.`);
  }
  const balance = account ? balanceCents(account) : 0;
  if (balance < cents) {
    throw new ApiError(
      'insufficient_credit',
      `An hour of a pool sandbox costs ${cents} cents; the account balance is ${balance} cents.`,
    );
  }
  const minis = poolMiniNames(ctx.reads.fleet().minis, model);
  if (minis.length === 0) throw new ApiError('minis_unavailable', `No ${model} pool Mac is available now.`);
  return { model, minis };
}

/**
 * Runs the scheduler on the cached fleet of the reservation's (or the pool's) Macs and answers its
 * refusal before anything is written. A yes is only advice: the reconciler schedules again and
 * claims by a conditional write.
 */
function refuseAtOnce(ctx: ApiContext, miniNames: string[], request: ScheduleRequest): void {
  const result = scheduleShortlisted(
    miniNames,
    (n) => ctx.reads.vmsOn(n),
    request,
    (names) => {
      const { minis, vms, sandboxes } = ctx.reads.fleetOf(names);
      return scheduleOn(minis, vms, sandboxes, request);
    },
    'first',
  );
  if (isScheduleFailure(result)) throw new ApiError(result.error, result.message);
}

type Outcome = { ok: Sandbox } | { err: ApiError };

/** Waits until the written sandbox runs; a sandbox that fails or times out is deleted and answered. */
export async function waitUntilRunning(ctx: ApiContext, sandbox: Sandbox): Promise<Sandbox> {
  const restore = sandbox.spec.snapshot !== undefined;
  const outcome = await waitForCached<Sandbox, Outcome>({
    reads: ctx.reads,
    clock: ctx.clock,
    kind: 'Sandbox',
    written: sandbox,
    decide: (obj) => {
      if (!obj || obj.metadata.uid !== sandbox.metadata.uid) {
        return {
          result: { err: new ApiError('sandbox_failed', 'The sandbox was deleted before it started.') },
        };
      }
      if (obj.status?.phase === 'running') return { result: { ok: obj } };
      if (obj.status?.phase === 'failed' || obj.metadata.deletionTimestamp)
        return { result: { err: failureOf(obj) } };
      return undefined;
    },
    timeoutMs: restore ? RESTORE_DEADLINE_MS : CREATE_DEADLINE_MS,
    onTimeout: () => ({
      err: new ApiError('operation_timeout', 'The sandbox did not start before its deadline.'),
    }),
    signal: ctx.shutdown,
  });
  if ('ok' in outcome) return outcome.ok;
  // The caller never learns this sandbox's id: do not leave it holding a VM.
  await ctx.store
    .delete(
      { kind: 'Sandbox', namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name },
      { uid: sandbox.metadata.uid! },
    )
    .catch(() => undefined);
  throw outcome.err;
}

/** The error a failed sandbox answers with: the scheduler's code, or a boot/restore failure (502). */
function failureOf(sandbox: Sandbox): ApiError {
  const reason = sandbox.status?.reason;
  const message = sandbox.status?.message;
  if (reason !== undefined && isErrorCode(reason)) return new ApiError(reason, message);
  if (sandbox.spec.snapshot !== undefined) return new ApiError('snapshot_failed', message);
  return new ApiError(
    'sandbox_failed',
    message ??
      (sandbox.metadata.deletionTimestamp ? 'The sandbox was deleted before it started.' : undefined),
  );
}

/** Deletes a sandbox; the reconciler releases its VM (finalizer) and a fresh one is cloned. */
export async function deleteSandbox(ctx: ApiContext, sandbox: Sandbox): Promise<void> {
  const after = await ctx.store.delete<Sandbox>(
    { kind: 'Sandbox', namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name },
    { uid: sandbox.metadata.uid! },
  );
  // Read-your-writes: a GET after this 204 must not find the sandbox running in the cache.
  await (after ? ctx.reads.synced(after) : ctx.reads.gone(sandbox));
}

/** Whether a pool sandbox is still before its end. */
function poolLive(sandbox: Sandbox, now: number): boolean {
  return Date.parse(sandbox.status?.endAt ?? '') > now;
}

/**
 * A fresh viewer link, when the sandbox runs in an active reservation (a pool sandbox: before its
 * end); the bare path otherwise.
 */
export async function vncUrlOf(
  ctx: ApiContext,
  sandbox: Sandbox,
  reservation?: Reservation,
): Promise<string> {
  const r =
    reservation ??
    (sandbox.spec.reservation === undefined || !linkable(sandbox)
      ? undefined
      : await ctx.reads.reservation(sandbox.metadata.namespace!, sandbox.spec.reservation));
  return vncUrlWith(ctx, sandbox, r);
}

/** `vncUrlOf` from cache hits alone; undefined when the reservation it needs is not cached. */
export function cachedVncUrl(ctx: ApiContext, sandbox: Sandbox): string | undefined {
  if (sandbox.spec.reservation === undefined || !linkable(sandbox))
    return vncUrlWith(ctx, sandbox, undefined);
  const r = ctx.reads.hit<Reservation>('Reservation', sandbox.spec.reservation, sandbox.metadata.namespace);
  return r && vncUrlWith(ctx, sandbox, r);
}

/** Whether the sandbox may get a viewer link at all (running and not being deleted). */
function linkable(sandbox: Sandbox): boolean {
  return sandbox.status?.phase === 'running' && !sandbox.metadata.deletionTimestamp;
}

function vncUrlWith(ctx: ApiContext, sandbox: Sandbox, reservation: Reservation | undefined): string {
  const now = ctx.clock.now();
  if (!linkable(sandbox)) return vncPath(sandbox.metadata.name);
  if (sandbox.spec.pool) {
    return poolLive(sandbox, now)
      ? ctx.viewerTokens.mint(sandbox, undefined, now).vncUrl
      : vncPath(sandbox.metadata.name);
  }
  if (!reservation || !isActive(reservation, now)) return vncPath(sandbox.metadata.name);
  return ctx.viewerTokens.mint(sandbox, reservation, now).vncUrl;
}

/** A viewer token for the owner (spec: POST /v1/sandboxes/{id}/viewer-token). */
export async function viewerTokenFor(ctx: ApiContext, principal: Principal, sandbox: Sandbox) {
  requireRunning(sandbox);
  const now = ctx.clock.now();
  let reservation: Reservation | undefined;
  if (sandbox.spec.pool) {
    if (!poolLive(sandbox, now)) throw new ApiError('sandbox_not_running');
  } else {
    reservation = await findReservation(
      ctx,
      { ...principal, reservation: undefined },
      sandbox.spec.reservation!,
    );
    if (!isActive(reservation, now)) throw new ApiError('reservation_not_active');
  }
  const t = ctx.viewerTokens.mint(sandbox, reservation, now);
  return { vnc_url: t.vncUrl, token: t.token, expires_at: t.expiresAt.toISOString() };
}

/** Revokes every viewer link of the sandbox minted until now (an annotation the verify reads). */
export async function revokeViewerTokens(ctx: ApiContext, sandbox: Sandbox): Promise<void> {
  const now = ctx.clock.now();
  const patched = await ctx.store.patch<Sandbox>(
    { kind: 'Sandbox', namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name },
    { metadata: { annotations: { [VIEWERS_REVOKED_AT]: String(now) } } },
  );
  await ctx.reads.synced(patched);
}

export async function createdWire(
  ctx: ApiContext,
  sandbox: Sandbox,
  reservation: Reservation | undefined,
): Promise<SandboxCreated> {
  const s = sandbox.status ?? {};
  return {
    sandbox_id: sandbox.metadata.name,
    created_at: sandbox.metadata.creationTimestamp ?? new Date(ctx.clock.now()).toISOString(),
    vm_ip: s.vmIp ?? '',
    vnc_url: await vncUrlOf(ctx, sandbox, reservation),
    ssh_url: sshPath(sandbox.metadata.name),
    boot: s.boot ?? 'warm',
    cpu: s.cpu ?? sandbox.spec.cpu ?? 0,
    memory_gib: s.memoryGiB ?? sandbox.spec.memoryGiB ?? 0,
    reservation_id: sandbox.spec.reservation ?? null,
    ephemeral: sandbox.spec.ephemeral,
    ...poolWire(sandbox),
    ...placementWire(sandbox),
    egress: egressWire(sandbox),
    fork_of: sandbox.spec.forkOf ?? null,
  };
}

function poolWire(sandbox: Sandbox): { pool: boolean; end_at: string | null } {
  return { pool: sandbox.spec.pool === true, end_at: sandbox.status?.endAt ?? null };
}

/** The platform (always `macos`) and the Mac the sandbox runs on, the create's `host` pin answered. */
function placementWire(sandbox: Sandbox): { type: typeof SANDBOX_TYPE; host: string | null } {
  return { type: SANDBOX_TYPE, host: sandbox.status?.mini ?? null };
}

/** The spec's sandbox info; `state` is the phase, or `deleting` once deletion started. */
export function sandboxInfo(sandbox: Sandbox, vncUrl: string): SandboxInfo {
  const s = sandbox.status ?? {};
  const deleting = sandbox.metadata.deletionTimestamp !== undefined && s.phase !== 'completing';
  return {
    sandbox_id: sandbox.metadata.name,
    created_at: sandbox.metadata.creationTimestamp ?? new Date(0).toISOString(),
    last_active: s.lastActive ?? null,
    vm_ip: s.vmIp ?? '',
    vnc_url: vncUrl,
    ssh_url: sshPath(sandbox.metadata.name),
    state: deleting ? 'deleting' : (s.phase ?? 'pending'),
    reservation_id: sandbox.spec.reservation ?? null,
    boot: s.boot ?? null,
    cpu: s.cpu ?? null,
    memory_gib: s.memoryGiB ?? null,
    ephemeral: sandbox.spec.ephemeral,
    ...poolWire(sandbox),
    ...placementWire(sandbox),
    egress: egressWire(sandbox),
    fork_of: sandbox.spec.forkOf ?? null,
    paused_at: s.pausedAt ?? null,
  };
}
