// The sandbox reconciler: places a pending sandbox (scheduler + conditional claim), follows its
// VM's boot to `running` (or `failed` with the failure code), pauses and resumes it as `spec.paused`
// asks (pause.ts), reaps idle ephemeral sandboxes, keeps
// a pool sandbox's hours paid and ends it at its end (pool-life.ts), and
// on deletion releases the VM before letting the sandbox go (finalizer `sandbay.io/release-vm`).
import type { Sandbox, VM } from '../../crds/index.ts';
import { ConditionTypes, Finalizers, Reasons, SANDBOX_FAILURES, findCondition } from '../conditions.ts';
import { Indexes, sandboxKeyOf, type OperatorContext } from '../context.ts';
import type { ReconcileFn, ReconcileResult } from '../runtime/index.ts';
import { ClaimsInFlight } from './claims.ts';
import { BOOT_ANNOTATION, place } from './place.ts';
import { settlePause } from './pause.ts';
import { reapIfIdle } from './reaper.ts';
import { ensureEgress } from './egress.ts';
import { keepPoolSandbox } from './pool-life.ts';
import { refundSandbox } from './pool-billing.ts';
import { releaseVm } from './release.ts';
import { patchSandboxStatus, readyCondition, sandboxPhase, sandboxRef, writeClaimStatus } from './status.ts';

export function sandboxReconciler(ctx: OperatorContext): ReconcileFn {
  const claims = new ClaimsInFlight();
  return async (key) => {
    let sb = ctx.informers.sandboxes.get(key);
    if (!sb) return;
    if (sb.metadata.deletionTimestamp) return finalize(ctx, sb);
    const phase = sandboxPhase(sb);
    if (phase === 'completing') {
      // A reserved sandbox is deleted by the reservation reconciler; a pool sandbox by its own end.
      if (sb.spec.pool) await ctx.client.delete(sandboxRef(sb));
      return;
    }
    sb = await ensureFinalizer(ctx, sb);
    const vm = claimedVm(ctx, key);
    if (phase === 'failed') {
      if (vm) await releaseVm(ctx, key, vm);
      return;
    }
    if (!vm) {
      if (phase !== 'pending') return fail(ctx, sb, 'vm_lost', 'the sandbox VM is gone');
      const outcome = await place(ctx, claims, sb);
      if (!outcome.placed && !outcome.wait) await fail(ctx, sb, outcome.code, outcome.message);
      return;
    }
    if (!sb.spec.pool || phase === 'pending') return follow(ctx, sb, vm);
    const life = await keepPoolSandbox(ctx, sb);
    if (life.ended) return;
    return earliest(await follow(ctx, sb, vm), life.nextAtMs);
  };
}

/** The reconcile's own next look, or the pool sandbox's next hour boundary if that comes first. */
function earliest(result: ReconcileResult | void, atMs: number): ReconcileResult {
  const at = result?.requeueAtMs;
  return { ...result, requeueAtMs: at === undefined ? atMs : Math.min(at, atMs) };
}

function claimedVm(ctx: OperatorContext, key: string): VM | undefined {
  return ctx.informers.vms.byIndex(Indexes.vmByClaim, key).find((vm) => !vm.metadata.deletionTimestamp);
}

async function ensureFinalizer(ctx: OperatorContext, sb: Sandbox): Promise<Sandbox> {
  const finalizers = sb.metadata.finalizers ?? [];
  if (finalizers.includes(Finalizers.releaseVm)) return sb;
  return ctx.client.update<Sandbox>({
    ...sb,
    metadata: { ...sb.metadata, finalizers: [...finalizers, Finalizers.releaseVm] },
  });
}

/** Tracks the claimed VM: booted → running; boot failed or host down → failed (and released). */
async function follow(ctx: OperatorContext, sb: Sandbox, vm: VM): Promise<ReconcileResult | void> {
  const key = sandboxKeyOf(sb);
  if (sandboxPhase(sb) === 'pending') return adoptClaim(ctx, sb, vm);
  if (vm.status?.phase === 'down') {
    const booted = findCondition(vm.status.conditions, ConditionTypes.Booted);
    const code = booted?.status === 'False' && booted.reason === 'vm_lost' ? 'vm_lost' : 'host_down';
    return fail(ctx, sb, code, SANDBOX_FAILURES[code].summary);
  }
  const booted = findCondition(vm.status?.conditions, ConditionTypes.Booted);
  if (vm.status?.sandbox !== key) {
    if (booted?.status === 'False')
      return fail(ctx, sb, booted.reason ?? 'boot_failed', booted.message ?? 'boot failed');
    return sandboxPhase(sb) === 'running' ? reapIfIdle(ctx, sb) : undefined;
  }
  const booting = sandboxPhase(sb) === 'booting';
  // Its egress policy: on a VM that just booted for it (before it runs), or a changed spec.
  const egress = await ensureEgress(ctx, sb, vm, booting);
  if ('code' in egress) {
    if (booting) return fail(ctx, sb, egress.code, egress.message);
    const generation = sb.metadata.generation ?? 1;
    await patchSandboxStatus(ctx, sb, undefined, {
      egressFailure: { generation, reason: egress.code, message: egress.message },
    });
    // A driver's failure is retried (with backoff); a policy no Mac of it enforces is not.
    if (egress.code === 'egress_failed') throw new Error(egress.message);
    return;
  }
  const now = new Date(ctx.clock.now()).toISOString();
  const placed = await patchSandboxStatus(
    ctx,
    sb,
    booting ? 'booted' : undefined,
    {
      vm: vm.metadata.name,
      mini: vm.spec.mini,
      cpu: vm.status.cpu ?? vm.spec.cpu,
      memoryGiB: vm.status.memoryGiB ?? vm.spec.memoryGiB,
      ...(vm.status.vmIp !== undefined && { vmIp: vm.status.vmIp }),
      ...(booting && { lastActive: now, ranAt: now }),
      ...(egress.egress && { egress: egress.egress }),
      // A failure of an earlier policy is history once a later one is in force (merge patch: null removes).
      ...(sb.status?.egressFailure && { egressFailure: null as never }),
    },
    readyCondition('True', Reasons.Running),
  );
  return reapIfIdle(ctx, await settlePause(ctx, placed, vm));
}

/**
 * A claim whose sandbox status was never written (the process died between the two writes): the
 * status catches up from the VM, with the boot the scheduler chose (recorded on the claim).
 */
async function adoptClaim(ctx: OperatorContext, sb: Sandbox, vm: VM): Promise<void> {
  const boot = vm.metadata.annotations?.[BOOT_ANNOTATION] === 'warm' ? 'warm' : 'cold';
  const placement = {
    boot,
    vm: vm.metadata.name,
    mini: vm.spec.mini,
    cpu: vm.spec.cpu,
    memoryGiB: vm.spec.memoryGiB,
  } as const;
  ctx.logger.info(
    { sandbox: sandboxKeyOf(sb), vm: vm.metadata.name, boot },
    'adopting a claim made before a restart',
  );
  const vmIp = vm.status?.vmIp;
  let egress;
  if (boot === 'warm' && vmIp !== undefined) {
    // The policy may or may not have gone on before the restart: put on again (idempotent).
    const outcome = await ensureEgress(ctx, sb, vm, false);
    if ('code' in outcome) return fail(ctx, sb, outcome.code, outcome.message);
    egress = outcome.egress;
  }
  await writeClaimStatus(ctx, sb, { ...placement, ...(egress && { egress }) }, vmIp);
}

/** Fails the sandbox with a code the API maps to HTTP, then releases whatever VM it holds. */
async function fail(ctx: OperatorContext, sb: Sandbox, code: string, message: string): Promise<void> {
  const phase = sandboxPhase(sb);
  await refundIfNeverRan(ctx, sb);
  const event = phase === 'pending' ? 'refused' : 'fail';
  ctx.logger.info({ sandbox: sandboxKeyOf(sb), code, message }, 'sandbox failed');
  await patchSandboxStatus(ctx, sb, event, { reason: code, message }, readyCondition('False', code, message));
  const vm = claimedVm(ctx, sandboxKeyOf(sb));
  if (vm) await releaseVm(ctx, sandboxKeyOf(sb), vm);
}

async function finalize(ctx: OperatorContext, sb: Sandbox): Promise<void> {
  const finalizers = sb.metadata.finalizers ?? [];
  if (!finalizers.includes(Finalizers.releaseVm)) return;
  const key = sandboxKeyOf(sb);
  for (const vm of ctx.informers.vms.byIndex(Indexes.vmByClaim, key)) await releaseVm(ctx, key, vm);
  // Deleted while pending or booting (by its user, or by a create past its deadline).
  await refundIfNeverRan(ctx, sb);
  await ctx.client.update<Sandbox>({
    ...sb,
    metadata: { ...sb.metadata, finalizers: finalizers.filter((f) => f !== Finalizers.releaseVm) },
  });
}

/** A pool sandbox that never ran gets back the hour it paid at placement (idempotent). */
async function refundIfNeverRan(ctx: OperatorContext, sb: Sandbox): Promise<void> {
  if (sb.spec.pool && sb.status?.ranAt === undefined && sandboxPhase(sb) !== 'running') {
    await refundSandbox(ctx, sb);
  }
}
