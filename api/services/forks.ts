// Forking a running sandbox into N (POST /v1/sandboxes/{id}/fork): N new Sandboxes whose `forkOf`
// names the source, each placed by the scheduler like a restore (the source's image as the base, its
// Mac preferred) and booted from a copy of the source's disk by the pool reconciler (operator/pool/
// fork.ts). The API never touches a Mac: it answers capacity refusals at once for all N together
// (the pure scheduler placing them one after another), writes the N sandboxes, and waits until all
// run. All or nothing: when one fails, every one of them is deleted and the failure is the answer.
import { createHash, randomUUID } from 'node:crypto';
import { API_VERSION, DEFAULT_MAC_MODEL, type Account, type Rate, type Sandbox } from '../../crds/index.ts';
import { Finalizers } from '../../operator/conditions.ts';
import { balanceCents } from '../../operator/reservation/ledger.ts';
import { poolMiniNames, poolRateCents } from '../../operator/sandbox/pool.ts';
import { forkRequest, scheduleManyOn, type ScheduleRequest } from '../../operator/scheduler/index.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { SandboxCreated } from '../schemas/sandboxes.ts';
import type { ApiContext } from './context.ts';
import { requireRunning } from './guests.ts';
import { findReservation, isActive, RESERVATION_LABEL } from './reservations.ts';
import { createdWire, createOrAdopt, waitUntilRunning } from './sandboxes.ts';

/** A fork call's forks carry this label: the call's id (`FORK_GROUP` of the Idempotency-Key record). */
export const FORK_LABEL = 'sandbay.io/fork';

/** A fork call's id: names its sandboxes, so that a retry under the same Idempotency-Key finds them. */
export function newForkGroup(): string {
  return randomUUID().replaceAll('-', '');
}

/** The i-th fork of a call: `sb-` and 32 hex digits, the same for every attempt of that call. */
export function forkName(group: string, i: number): string {
  return `sb-${createHash('sha256').update(`${group}/${i}`).digest('hex').slice(0, 32)}`;
}

export interface ForkResult {
  source_id: string;
  sandboxes: SandboxCreated[];
}

export async function forkSandbox(
  ctx: ApiContext,
  principal: Principal,
  source: Sandbox,
  count: number,
  group: string = newForkGroup(),
): Promise<ForkResult> {
  requireRunning(source);
  const vm = source.status?.vm ? await ctx.reads.vm(source.status.vm) : undefined;
  const request = forkRequest(source, vm);
  if (request === 'not_running') throw new ApiError('sandbox_not_running');
  const target = await targetOf(ctx, principal, source, count);
  refuseAtOnce(ctx, target.minis, request, count);

  const written: Sandbox[] = [];
  for (let i = 0; i < count; i++) written.push(await createOrAdopt(ctx, forkSpec(source, request, group, i)));
  for (const sb of written)
    ctx.operatorHooks?.written?.('Sandbox', `${principal.account}/${sb.metadata.name}`);
  const running = await allRunning(ctx, written);
  return {
    source_id: source.metadata.name,
    sandboxes: await Promise.all(running.map((sb) => createdWire(ctx, sb, target.reservation))),
  };
}

/** Where the forks may run: the source's reservation (active), or the pool Macs of its model. */
async function targetOf(ctx: ApiContext, principal: Principal, source: Sandbox, count: number) {
  if (!source.spec.pool) {
    const reservation = await findReservation(
      ctx,
      { ...principal, reservation: undefined },
      source.spec.reservation!,
    );
    if (!isActive(reservation, ctx.clock.now())) throw new ApiError('reservation_not_active');
    return { minis: reservation.status?.minis ?? [], reservation };
  }
  // Pool forks are pool sandboxes: each pays its first hour at placement, so the credit must cover N.
  const model = source.spec.macModel ?? DEFAULT_MAC_MODEL;
  const [rates, account] = await Promise.all([
    ctx.store.list<Rate>('Rate'),
    ctx.store.get<Account>({ kind: 'Account', name: principal.account }),
  ]);
  const cents = poolRateCents(rates.items, model);
  if (cents === undefined)
    throw new ApiError('pricing_unavailable', `No pool price is configured for ${model}.`);
  const balance = account ? balanceCents(account) : 0;
  if (balance < cents * count) {
    throw new ApiError(
      'insufficient_credit',
      `${count} pool sandboxes cost ${cents * count} cents for their first hour; the account balance is ${balance} cents.`,
    );
  }
  return { minis: poolMiniNames(ctx.reads.fleet().minis, model), reservation: undefined };
}

/** All N placed together by the scheduler on the cached fleet, or its refusal before anything is written. */
function refuseAtOnce(ctx: ApiContext, miniNames: string[], request: ScheduleRequest, count: number): void {
  const { minis, vms, sandboxes } = ctx.reads.fleetOf(miniNames);
  const result = scheduleManyOn(minis, vms, sandboxes, request, count);
  if ('error' in result) throw new ApiError(result.error, result.message);
}

function forkSpec(source: Sandbox, request: ScheduleRequest, group: string, i: number): Sandbox {
  const { reservation, pool, macModel, ephemeral } = source.spec;
  return {
    apiVersion: API_VERSION,
    kind: 'Sandbox',
    metadata: {
      name: forkName(group, i),
      namespace: source.metadata.namespace!,
      finalizers: [Finalizers.releaseVm],
      labels: { [FORK_LABEL]: group, ...(reservation !== undefined && { [RESERVATION_LABEL]: reservation }) },
    },
    spec: {
      ...(reservation !== undefined && { reservation }),
      ...(pool && { pool: true, macModel }),
      cpu: request.cpu!,
      memoryGiB: request.memoryGiB!,
      ephemeral,
      forkOf: source.metadata.name,
      // The source's policy: a fork never runs under a wider one than what it was forked from.
      ...(source.spec.egress && { egress: source.spec.egress }),
    },
  };
}

/**
 * Waits until every fork runs. The first that fails deletes them all at once (the others' waits
 * then end too), and its failure is the answer: no fork of a failed call is left behind.
 */
async function allRunning(ctx: ApiContext, written: Sandbox[]): Promise<Sandbox[]> {
  let first: unknown;
  const deleteAll = () =>
    Promise.all(
      written.map((sb) =>
        ctx.store
          .delete(
            { kind: 'Sandbox', namespace: sb.metadata.namespace!, name: sb.metadata.name },
            { uid: sb.metadata.uid! },
          )
          .catch(() => undefined),
      ),
    );
  const results = await Promise.allSettled(
    written.map((sb) =>
      waitUntilRunning(ctx, sb).catch((err: unknown) => {
        // A shutdown leaves the call in flight: its retry (same Idempotency-Key) finds the forks.
        if (ctx.shutdown?.aborted) throw err;
        if (first === undefined) {
          first = err;
          void deleteAll();
        }
        throw err;
      }),
    ),
  );
  if (first !== undefined) {
    await deleteAll();
    throw first;
  }
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<Sandbox>).value);
}
