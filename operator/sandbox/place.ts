// Placing a pending sandbox: the reservation must be active (a pool sandbox: its model priced and
// its first hour paid); a restore needs its snapshot ready, a fork its source running (its image is
// the base, its Mac preferred); then the scheduler (pure) chooses a VM
// on the reservation's Macs (a pool sandbox: the pool Macs of its model) and the claim is written as a
// conditional update of `VM.spec.sandbox`: of two creates that chose the same VM, one wins and
// the other reconciles again on fresh data.
import { DEFAULT_MAC_MODEL, type Sandbox, type VM } from '../../crds/index.ts';
import {
  forkRequest,
  isScheduleFailure,
  scheduleRequest,
  snapshotRequest,
  type ScheduleRequest,
} from '../scheduler/index.ts';
import type { SandboxFailureCode } from '../conditions.ts';
import { reservationKeyOf, sandboxKeyOf, type OperatorContext } from '../context.ts';
import type { ClaimsInFlight } from './claims.ts';
import { chooseVm } from './choose.ts';
import { askedEgress, ensureEgress, macsForEgress } from './egress.ts';
import { POOL_LIFETIME_MS, poolMiniNames, poolRateCents } from './pool.ts';
import { chargeHours } from './pool-billing.ts';
import { writeClaimStatus } from './status.ts';

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
  const target = sb.spec.pool ? poolTarget(ctx, sb) : reservationTarget(ctx, sb);
  if ('refused' in target) return target.refused;
  const request: ScheduleRequest = scheduleRequest(sb.spec);
  if (sb.spec.snapshot !== undefined) {
    const base = snapshotRequest(ctx.informers.snapshots.get(`${sb.metadata.namespace}/${sb.spec.snapshot}`));
    if (base === 'not_found') {
      return refuse('snapshot_not_found', `snapshot ${sb.spec.snapshot} does not exist or failed to capture`);
    }
    if (base === 'not_ready') return wait;
    request.snapshot = base;
  }
  if (sb.spec.forkOf !== undefined) {
    const fork = forkOf(ctx, sb);
    if (fork === 'not_running') {
      return refuse('fork_source_unavailable', `sandbox ${sb.spec.forkOf} is not running: nothing to fork`);
    }
    Object.assign(request, { snapshot: fork.snapshot, near: fork.near });
  }

  // Only Macs that enforce the sandbox's egress policy (API checks the same, crds/egress.ts).
  const asked = askedEgress(sb);
  if ('error' in asked) return refuse('invalid_egress', asked.error);
  const macs = macsForEgress((n) => ctx.informers.minis.get(n), target.minis, asked.policy);
  if ('refusal' in macs) return refuse('egress_not_allowed', macs.refusal);

  const choice = chooseVm(ctx, claims, key, macs.names, request);
  if (isScheduleFailure(choice)) {
    return refuse(choice.error, choice.message);
  }

  // No await between schedule() and assume(): no other reconcile here can choose this VM meanwhile.
  claims.assume(choice.vm, key);
  let claimed: VM;
  try {
    if (target.poolCents !== undefined) {
      // A pool sandbox pays its first hour before it holds a VM (a failure before it runs refunds it).
      const paid = await chargeHours(ctx, sb, 0, target.poolCents);
      if (!paid.ok) return refuse(paid.reason, paid.message);
    }
    const vm = ctx.informers.vms.get(choice.vm)!;
    const { snapshot: _old, fork: _oldFork, ...spec } = vm.spec;
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
        ...(sb.spec.forkOf !== undefined && { fork: `${sb.metadata.namespace}/${sb.spec.forkOf}` }),
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
    ...(target.poolCents !== undefined && {
      endAt: new Date(ctx.clock.now() + POOL_LIFETIME_MS).toISOString(),
      poolCentsPerHour: target.poolCents,
    }),
  };
  // A warm VM runs already: its policy goes on before the sandbox is `running` (a cold one's, in follow).
  const vmIp = claimed.status?.vmIp;
  let egress;
  if (choice.boot === 'warm' && vmIp !== undefined) {
    const outcome = await ensureEgress(ctx, sb, claimed, true);
    if ('code' in outcome) return refuse(outcome.code, outcome.message);
    egress = outcome.egress;
  }
  if (!(await writeClaimStatus(ctx, sb, { ...placement, ...(egress && { egress }) }, vmIp)))
    ctx.enqueue.pool(choice.mini);
  return { placed: true };
}

/** What a fork asks of the scheduler, from its source as the caches show it now. */
function forkOf(ctx: OperatorContext, sb: Sandbox): ScheduleRequest | 'not_running' {
  const source = ctx.informers.sandboxes.get(`${sb.metadata.namespace}/${sb.spec.forkOf}`);
  if (!source) return 'not_running';
  const vm = source.status?.vm ? ctx.informers.vms.get(source.status.vm) : undefined;
  return forkRequest(source, vm);
}

type Target = { minis: string[]; poolCents?: number } | { refused: PlaceOutcome };

/** A reserved sandbox: its reservation's Macs, while the reservation is active. */
function reservationTarget(ctx: OperatorContext, sb: Sandbox): Target {
  const rkey = reservationKeyOf(sb);
  const reservation = rkey === undefined ? undefined : ctx.informers.reservations.get(rkey);
  const endAt = Date.parse(reservation?.status?.endAt ?? '');
  if (!reservation || reservation.status?.phase !== 'active' || !(endAt > ctx.clock.now())) {
    return { refused: refuse('reservation_not_active', `reservation ${sb.spec.reservation} is not active`) };
  }
  return { minis: reservation.status.minis ?? [] };
}

/** A pool sandbox: every pool Mac of its model, at the model's pool price. */
function poolTarget(ctx: OperatorContext, sb: Sandbox): Target {
  const model = sb.spec.macModel ?? DEFAULT_MAC_MODEL;
  const cents = poolRateCents(ctx.informers.rates.list(), model);
  if (cents === undefined) {
    return { refused: refuse('pricing_unavailable', `no pool price is configured for ${model}`) };
  }
  const minis = poolMiniNames(ctx.informers.minis.list(), model);
  if (minis.length === 0) {
    return { refused: refuse('minis_unavailable', `no ${model} pool Mac is available now`) };
  }
  return { minis, poolCents: cents };
}
