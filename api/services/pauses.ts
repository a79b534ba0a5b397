// Pausing and resuming (POST /v1/sandboxes/{id}/pause, …/resume): the API writes what the user wants
// (`spec.paused`) and waits until the sandbox reconciler reports the VM paused or running again
// (operator/sandbox/pause.ts). It never touches the Mac. A pause of a paused sandbox, or a resume of
// a running one, is refused and writes nothing; a driver that cannot pause at all (tart) is refused
// by name before anything is written; a failed attempt puts `spec.paused` back, so the sandbox stays
// as it was.
import type { Sandbox } from '../../crds/index.ts';
import { ConditionTypes, findCondition, Reasons } from '../../operator/conditions.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import { requireRunning } from './guests.ts';
import { waitForCached } from './wait.ts';

/** A pause or resume is a freeze or thaw: it answers in milliseconds unless the host is in trouble. */
export const PAUSE_DEADLINE_MS = 60_000;

export async function pauseSandbox(ctx: ApiContext, sandbox: Sandbox): Promise<Sandbox> {
  requireRunning(sandbox); // a paused one: 409 sandbox_paused, saying so
  await refuseUnsupported(ctx, sandbox);
  return settle(ctx, sandbox, true);
}

export async function resumeSandbox(ctx: ApiContext, sandbox: Sandbox): Promise<Sandbox> {
  const phase = sandbox.status?.phase;
  if (sandbox.metadata.deletionTimestamp)
    throw new ApiError('sandbox_not_running', 'The sandbox is being deleted.');
  if (phase !== 'paused' || sandbox.spec.paused !== true) {
    if (phase === 'running' && sandbox.spec.paused === true)
      throw new ApiError(
        'sandbox_paused',
        'The sandbox is being paused: resume it once its pause has answered.',
      );
    if (phase === 'paused') throw new ApiError('sandbox_not_paused', 'The sandbox is being resumed already.');
    throw new ApiError('sandbox_not_paused', `The sandbox is ${phase ?? 'pending'}, not paused.`);
  }
  return settle(ctx, sandbox, false);
}

async function refuseUnsupported(ctx: ApiContext, sandbox: Sandbox): Promise<void> {
  const mini = sandbox.status?.mini ? await ctx.reads.mini(sandbox.status.mini) : undefined;
  const why = mini ? ctx.drivers[mini.spec.driver]?.unsupported?.pause : undefined;
  if (why !== undefined) {
    throw new ApiError(
      'feature_not_supported',
      `Pause is not supported on ${mini!.metadata.name} (${mini!.spec.driver} driver): ${why}.`,
    );
  }
}

type Outcome = { ok: Sandbox } | { err: ApiError };

/**
 * Writes `spec.paused` and waits. Unconditional (the request's own activity write moves the
 * sandbox's version): two pauses at once write the same wish, and of a pause and a resume at once
 * the later write is what the reconciler brings about.
 */
async function settle(ctx: ApiContext, sandbox: Sandbox, paused: boolean): Promise<Sandbox> {
  const ref = { kind: 'Sandbox', namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name };
  const written = await ctx.store.patch<Sandbox>(ref, { spec: { paused } });
  const generation = written.metadata.generation ?? 0;
  const want = paused ? 'paused' : 'running';
  const failure = paused ? Reasons.PauseFailed : Reasons.ResumeFailed;
  const outcome = await waitForCached<Sandbox, Outcome>({
    reads: ctx.reads,
    clock: ctx.clock,
    kind: 'Sandbox',
    written,
    decide: (obj) => {
      if (!obj || obj.metadata.uid !== written.metadata.uid || obj.metadata.deletionTimestamp)
        return { result: { err: new ApiError('sandbox_not_found', 'The sandbox was deleted meanwhile.') } };
      if (obj.status?.phase === want) return { result: { ok: obj } };
      if (obj.status?.phase !== 'running' && obj.status?.phase !== 'paused')
        return {
          result: { err: new ApiError('sandbox_not_running', `The sandbox is ${obj.status?.phase}.`) },
        };
      const cond = findCondition(obj.status?.conditions, ConditionTypes.Paused);
      if ((obj.status?.observedGeneration ?? 0) >= generation && cond?.reason === failure)
        return { result: { err: new ApiError(failure, cond.message) } };
      return undefined;
    },
    timeoutMs: PAUSE_DEADLINE_MS,
    onTimeout: () => ({
      err: new ApiError('operation_timeout', `The sandbox was not ${want} before its deadline.`),
    }),
    ...(ctx.shutdown && { signal: ctx.shutdown }),
  });
  if ('ok' in outcome) return outcome.ok;
  if (outcome.err.code !== 'sandbox_not_found' && outcome.err.code !== 'sandbox_not_running') {
    // Not done: the wish goes back to what the sandbox is, so it stays as it was.
    await ctx.store.patch(ref, { spec: { paused: !paused } }).catch(() => undefined);
  }
  throw outcome.err;
}
