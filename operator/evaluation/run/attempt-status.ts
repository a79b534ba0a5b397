// What every phase of an attempt shares: its status writes (through the transition table), its
// sandbox (owned by it, so deleting the attempt deletes the sandbox), the sandbox's guest, and the
// cleanup once it ends (sandbox deleted, the agent's key dropped).
import { randomBytes } from 'node:crypto';
import {
  EVALUATION_RUN_LABEL,
  type EvaluationAttempt,
  type EvaluationRun,
  type Sandbox,
} from '../../../crds/index.ts';
import { DriverError, type Guest } from '../../../hosts/driver.ts';
import { isStoreError } from '../../../store/store.ts';
import type { OperatorContext } from '../../context.ts';
import { createOwnedSandbox } from '../../sandbox/owned.ts';
import { changeTask } from '../../trajectory/task-state.ts';
import { dropAgentKey } from './agent.ts';
import { attemptMachine, type AttemptEvent } from './states.ts';

export type AttemptStatus = NonNullable<EvaluationAttempt['status']>;
/** A status merge patch: `null` removes a field. */
export type StatusPatch = { [K in keyof AttemptStatus]?: AttemptStatus[K] | null };

export function attemptKey(a: EvaluationAttempt): string {
  return `${a.metadata.namespace}/${a.metadata.name}`;
}

export function nowIso(ctx: OperatorContext): string {
  return new Date(ctx.clock.now()).toISOString();
}

/** Conflicts a status write retries (another write in between, e.g. the run's cancel on the spec). */
const WRITE_TRIES = 5;

/**
 * Writes status fields over the attempt's latest status (`null` removes a field). A replace of the
 * status with a resourceVersion precondition, not a merge patch: a merge patch would drop the
 * nulls inside the values written (a setup result's `failed_step: null`), which its schema needs.
 */
export async function writeStatus(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  patch: StatusPatch,
): Promise<EvaluationAttempt> {
  const key = { kind: 'EvaluationAttempt', namespace: a.metadata.namespace!, name: a.metadata.name };
  for (let tries = 1; ; tries++) {
    const current = await ctx.store.get<EvaluationAttempt>(key);
    if (!current) throw Object.assign(new Error(`attempt ${attemptKey(a)} is gone`), { code: 'NotFound' });
    const status: Record<string, unknown> = { ...current.status };
    for (const [field, value] of Object.entries(patch)) {
      if (value === null) delete status[field];
      else if (value !== undefined) status[field] = value;
    }
    try {
      return await ctx.client.updateStatus<EvaluationAttempt>({ ...current, status });
    } catch (err) {
      if (!isStoreError(err, 'Conflict') || tries >= WRITE_TRIES) throw err;
    }
  }
}

/** Moves the attempt on `event` (the table refuses a move it does not list), with more status. */
export async function transition(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  event: AttemptEvent,
  status: StatusPatch = {},
): Promise<EvaluationAttempt> {
  const phase = attemptMachine.transition(a.status?.phase ?? 'waiting', event);
  const done = phase === 'completed' || phase === 'errored' || phase === 'cancelled';
  const written = await writeStatus(ctx, a, {
    ...status,
    phase,
    ...(done && { finishedAt: nowIso(ctx), waitingFor: null }),
  });
  if (done) await cleanUp(ctx, written);
  return written;
}

/** Ends the attempt without a grade (`error`) or by the run's cancel, saying why. */
export function end(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  event: 'error' | 'cancel',
  message: string,
): Promise<EvaluationAttempt> {
  ctx.logger.info({ attempt: attemptKey(a), event, message }, 'evaluation attempt ended');
  return transition(ctx, a, event, { message });
}

export function newSandboxName(): string {
  return `sb-${randomBytes(16).toString('hex')}`;
}

export function ownedBy(sandbox: Sandbox, a: EvaluationAttempt): boolean {
  return (sandbox.metadata.ownerReferences ?? []).some(
    (r) => r.kind === 'EvaluationAttempt' && r.uid === a.metadata.uid,
  );
}

/** The attempt's sandbox, in the run's reservation, labelled with the run. */
export function createSandbox(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
  name: string,
): Promise<void> {
  return createOwnedSandbox(ctx, a, run.spec.reservation, name, {
    [EVALUATION_RUN_LABEL]: run.metadata.name,
  });
}

export function sandboxOf(ctx: OperatorContext, a: EvaluationAttempt): Sandbox | undefined {
  const name = a.status?.sandbox;
  return name ? ctx.informers.sandboxes.get(`${a.metadata.namespace}/${name}`) : undefined;
}

/** Deletes the attempt's sandbox if it still has one of its own. */
export async function deleteSandbox(ctx: OperatorContext, a: EvaluationAttempt): Promise<void> {
  const sandbox = sandboxOf(ctx, a);
  if (!sandbox || sandbox.metadata.deletionTimestamp || !ownedBy(sandbox, a)) return;
  try {
    await ctx.client.delete({
      kind: 'Sandbox',
      namespace: a.metadata.namespace!,
      name: sandbox.metadata.name,
    });
  } catch (err) {
    if (!isStoreError(err, 'NotFound')) throw err;
  }
}

/**
 * What a finished attempt leaves behind: no sandbox, no agent key, no collection still open on its
 * trajectory (an attempt that errored or was cancelled while the agent acted keeps what was
 * recorded). Writes nothing once done.
 */
export async function cleanUp(ctx: OperatorContext, a: EvaluationAttempt): Promise<void> {
  if (ctx.informers.tasks.get(attemptKey(a))?.status?.collection)
    await changeTask(ctx.store, { account: a.metadata.namespace!, taskId: a.metadata.name }, (t) =>
      t.status?.collection ? { phase: 'saved', collection: null } : undefined,
    );
  await deleteSandbox(ctx, a);
  const key = a.status?.agentKey;
  if (key && ctx.informers.apiKeys.get(key)) await dropAgentKey(ctx, key);
}

/**
 * Why the attempt's running sandbox cannot go on, if it cannot: gone, deleted, not its own, failed.
 */
export function sandboxProblem(a: EvaluationAttempt, sandbox: Sandbox | undefined): string | undefined {
  const name = a.status?.sandbox ?? '(none)';
  if (!sandbox) return `sandbox ${name} went away during the attempt`;
  if (!ownedBy(sandbox, a)) return `sandbox ${name} does not belong to this attempt`;
  const phase = sandbox.status?.phase ?? 'pending';
  if (sandbox.metadata.deletionTimestamp || phase === 'completing')
    return `sandbox ${name} was deleted during the attempt`;
  if (phase === 'failed')
    return `sandbox ${name} failed: ${sandbox.status?.message ?? sandbox.status?.reason}`;
  return undefined;
}

export function guestOf(ctx: OperatorContext, sandbox: Sandbox): Guest {
  const { mini: miniName, vm } = sandbox.status ?? {};
  const mini = miniName ? ctx.informers.minis.get(miniName) : undefined;
  if (!mini || !vm)
    throw new DriverError('unreachable', `the Mac of sandbox ${sandbox.metadata.name} is unknown`);
  return ctx.hosts.host(mini).guest(vm);
}

/** A driver error the attempt cannot recover from (the others, unreachable and timeout, retry). */
export function isLasting(err: unknown): err is DriverError {
  return err instanceof DriverError && err.code !== 'unreachable' && err.code !== 'timeout';
}
