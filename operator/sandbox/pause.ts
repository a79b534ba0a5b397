// Pausing and resuming a placed sandbox: `spec.paused` is what the user wants, the phase (`running`
// or `paused`) what the VM is. When they differ the reconciler asks the driver (the cgroup freezer on
// the linux driver) and moves the phase; when they agree it does nothing, so a second reconcile
// writes nothing. A driver failure is recorded on the `Paused` condition for the spec generation it
// answers (status.observedGeneration): the API, which waits on that, tells its caller; an outage
// is thrown and retried.
import type { Sandbox, SandboxStatus, VM } from '../../crds/index.ts';
import { DriverError } from '../../hosts/driver.ts';
import { ConditionTypes, findCondition, Reasons, type ConditionInput } from '../conditions.ts';
import { sandboxKeyOf, type OperatorContext } from '../context.ts';
import { isUnreachable } from '../mini/hosts.ts';
import { sandboxPhase, patchSandboxStatus } from './status.ts';

export function pausedCondition(status: 'True' | 'False', reason: string, message?: string): ConditionInput {
  return { type: ConditionTypes.Paused, status, reason, ...(message !== undefined && { message }) };
}

/** Brings a running or paused sandbox's VM to what `spec.paused` asks; returns the sandbox after. */
export async function settlePause(ctx: OperatorContext, sb: Sandbox, vm: VM): Promise<Sandbox> {
  const phase = sandboxPhase(sb);
  const want = sb.spec.paused === true;
  if (phase === 'running' && want && !failedAlready(sb, Reasons.PauseFailed))
    return act(ctx, sb, vm, 'pause');
  if (phase === 'paused' && !want && !failedAlready(sb, Reasons.ResumeFailed))
    return act(ctx, sb, vm, 'resume');
  return sb;
}

/**
 * This wish (the spec's generation) already failed: not tried again until a new one. Else the
 * reconcile that the failure's own status write brings would retry it while the API puts the wish
 * back, and a pause the caller was told failed could still happen.
 */
function failedAlready(sb: Sandbox, failure: string): boolean {
  const cond = findCondition(sb.status?.conditions, ConditionTypes.Paused);
  const generation = sb.metadata.generation;
  return cond?.reason === failure && generation !== undefined && sb.status?.observedGeneration === generation;
}

async function act(ctx: OperatorContext, sb: Sandbox, vm: VM, event: 'pause' | 'resume'): Promise<Sandbox> {
  const mini = ctx.informers.minis.get(vm.spec.mini);
  if (!mini) return sb; // the Mac is gone: the VM goes down and the sandbox fails (follow)
  const host = ctx.hosts.host(mini);
  const generation = sb.metadata.generation;
  const seen = generation === undefined ? {} : { observedGeneration: generation };
  try {
    if (event === 'pause') await host.pauseVm(vm.metadata.name);
    else await host.resumeVm(vm.metadata.name);
  } catch (err) {
    if (isUnreachable(err) || !(err instanceof DriverError)) throw err;
    const reason = event === 'pause' ? Reasons.PauseFailed : Reasons.ResumeFailed;
    ctx.logger.warn({ sandbox: sandboxKeyOf(sb), err: err.message }, `${event} failed`);
    return patchSandboxStatus(ctx, sb, undefined, seen, pausedCondition('False', reason, err.message));
  }
  const now = new Date(ctx.clock.now()).toISOString();
  ctx.logger.info(
    { sandbox: sandboxKeyOf(sb), vm: vm.metadata.name },
    event === 'pause' ? 'paused' : 'resumed',
  );
  if (event === 'pause') {
    return patchSandboxStatus(
      ctx,
      sb,
      'pause',
      { ...seen, pausedAt: now },
      pausedCondition('True', Reasons.Paused),
    );
  }
  // The idle clock starts again at the resume: a paused sandbox was never idle.
  const fields = { ...seen, lastActive: now, ...(sb.status?.pausedAt !== undefined && { pausedAt: null }) };
  return patchSandboxStatus(
    ctx,
    sb,
    'resume',
    fields as Partial<SandboxStatus>,
    pausedCondition('False', Reasons.Running),
  );
}
