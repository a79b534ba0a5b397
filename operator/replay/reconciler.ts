// The replay reconciler: boots a fresh sandbox in the replay's reservation (a Sandbox the Replay
// owns, so deleting the Replay deletes it), runs the task's setup (its script, then its steps:
// operator/evaluation/steps.ts), re-executes the recorded actions in order, runs the grader
// (operator/evaluation/graders.ts; a script: exit 0 → reward 1, else 0), reports `completed` (or
// `failed` with a message) and deletes its sandbox.
//
// Progress lives in the Replay's status, so a restart resumes rather than starts over:
// `sandbox` is named before the Sandbox is written (never two sandboxes for one replay),
// `stepsDone` is absent until the setup script has succeeded and then counts the actions carried out.
// A step is recorded after it ran, so a crash between the two repeats that one step (at least once).
import { randomBytes } from 'node:crypto';
import type { Replay, Sandbox, Task } from '../../crds/index.ts';
import { DriverError, type Guest } from '../../hosts/driver.ts';
import type { OperatorContext } from '../context.ts';
import type { ReconcileFn } from '../runtime/index.ts';
import { openAccountBlob } from '../evaluation/blob-source.ts';
import { runGrader } from '../evaluation/graders.ts';
import { runSetup, type EvaluationEnv } from '../evaluation/steps.ts';
import {
  TASK_GRADER_TIMEOUT_S,
  TASK_SETUP_TIMEOUT_S,
  gradeText,
  setupFailureText,
  taskGrader,
  taskSetupSteps,
} from '../evaluation/task-evaluation.ts';
import { EvaluationInputError, checkSetupSteps, checkTaskGrader } from '../evaluation/validate.ts';
import { StepError, performStep } from './actions.ts';
import { createOwnedSandbox } from '../sandbox/owned.ts';

type ReplayStatus = NonNullable<Replay['status']>;

export function replayReconciler(ctx: OperatorContext): ReconcileFn {
  return async (key) => {
    const replay = ctx.informers.replays.get(key);
    // A deleted Replay takes its sandbox with it (the store cascades to owned objects).
    if (!replay || replay.metadata.deletionTimestamp) return;
    const phase = replay.status?.phase ?? 'pending';
    if (phase === 'completed' || phase === 'failed') return deleteSandbox(ctx, replay);
    const ns = replay.metadata.namespace!;
    const task = ctx.informers.tasks.get(`${ns}/${replay.spec.task}`);
    if (!task || task.metadata.deletionTimestamp)
      return fail(ctx, replay, `task ${replay.spec.task} not found`);

    const sandboxName = replay.status?.sandbox;
    if (!sandboxName) {
      // Named first, written second: a restart between the two finds the name and creates that one.
      await writeStatus(ctx, replay, { phase: 'pending', sandbox: `sb-${randomBytes(16).toString('hex')}` });
      return;
    }
    const sandbox = ctx.informers.sandboxes.get(`${ns}/${sandboxName}`);
    if (!sandbox) {
      if (replay.status?.stepsDone !== undefined || phase === 'running')
        return fail(ctx, replay, `sandbox ${sandboxName} went away during the replay`);
      await createOwnedSandbox(ctx, replay, replay.spec.reservation, sandboxName);
      return;
    }
    if (!ownedBy(sandbox, replay))
      return fail(ctx, replay, `sandbox ${sandboxName} does not belong to this replay`);
    const sbPhase = sandbox.status?.phase ?? 'pending';
    if (sandbox.metadata.deletionTimestamp || sbPhase === 'completing')
      return fail(ctx, replay, `sandbox ${sandboxName} was deleted during the replay`);
    if (sbPhase === 'failed') {
      const why = sandbox.status?.message ?? sandbox.status?.reason ?? 'unknown reason';
      return fail(ctx, replay, `sandbox ${sandboxName} failed to start: ${why}`);
    }
    // Booting: the Sandbox's next change brings us back.
    if (sbPhase !== 'running') return;
    return run(ctx, replay, task, guestOf(ctx, sandbox));
  };
}

async function run(ctx: OperatorContext, replay: Replay, task: Task, guest: Guest): Promise<void> {
  const key = `${replay.metadata.namespace}/${replay.metadata.name}`;
  let current = replay;
  if (current.status?.phase !== 'running') current = await writeStatus(ctx, current, { phase: 'running' });
  const env: EvaluationEnv = {
    guest,
    openBlob: (id) => openAccountBlob(ctx.store, ctx.blobs, replay.metadata.namespace!, id),
    fetch: ctx.settings.setupFetch,
  };
  try {
    // A task written past the API (kubectl, apply) is checked here: a bad step fails the replay
    // before anything runs, naming it.
    checkSetupSteps(task.spec.setup ?? []);
    if (task.spec.grader !== undefined) checkTaskGrader(task.spec.grader);
  } catch (err) {
    if (err instanceof EvaluationInputError) return fail(ctx, current, err.message);
    throw err;
  }
  try {
    if (current.status?.stepsDone === undefined) {
      const setup = await runSetup(env, taskSetupSteps(task), TASK_SETUP_TIMEOUT_S);
      if (setup.status === 'failed') return await fail(ctx, current, setupFailureText(task, setup));
      current = await writeStatus(ctx, current, { stepsDone: 0 });
    }
    const steps = [...(task.status?.steps ?? [])].sort((a, b) => a.index - b.index);
    for (let i = current.status?.stepsDone ?? 0; i < steps.length; i++) {
      // Deleted meanwhile: stop driving a sandbox that is going away.
      const live = ctx.informers.replays.get(key);
      if (!live || live.metadata.deletionTimestamp) return;
      const step = steps[i]!;
      try {
        await performStep(guest, step.function, step.args);
      } catch (err) {
        if (err instanceof StepError || (err instanceof DriverError && err.code === 'invalid_argument'))
          return await fail(ctx, current, `step ${step.index} (${step.function}): ${err.message}`);
        throw err;
      }
      current = await writeStatus(ctx, current, { stepsDone: i + 1 });
    }
    const outcome: ReplayStatus = { phase: 'completed' };
    let message = `replayed ${steps.length} step${steps.length === 1 ? '' : 's'}`;
    const grader = taskGrader(task);
    if (grader !== undefined) {
      const grade = await runGrader(env, grader, TASK_GRADER_TIMEOUT_S);
      outcome.reward = grade.reward;
      outcome.grade = grade;
      message += `; ${gradeText(task, grade)}`;
    }
    current = await writeStatus(ctx, current, { ...outcome, message });
    ctx.logger.info({ replay: key, reward: outcome.reward }, 'replay completed');
  } catch (err) {
    // Guest unreachable or timing out: retried with backoff; a sandbox that fails for good (host
    // down, VM lost) fails the replay through the Sandbox's own status.
    if (err instanceof DriverError && err.code !== 'unreachable' && err.code !== 'timeout')
      return fail(ctx, current, `${err.code}: ${err.message}`);
    throw err;
  }
  await deleteSandbox(ctx, current);
}

async function deleteSandbox(ctx: OperatorContext, replay: Replay): Promise<void> {
  const name = replay.status?.sandbox;
  if (!name) return;
  const ns = replay.metadata.namespace!;
  const sandbox = ctx.informers.sandboxes.get(`${ns}/${name}`);
  if (!sandbox || sandbox.metadata.deletionTimestamp || !ownedBy(sandbox, replay)) return;
  await ctx.client.delete({ kind: 'Sandbox', namespace: ns, name });
}

function ownedBy(sandbox: Sandbox, replay: Replay): boolean {
  return (sandbox.metadata.ownerReferences ?? []).some(
    (r) => r.kind === 'Replay' && r.uid === replay.metadata.uid,
  );
}

function guestOf(ctx: OperatorContext, sandbox: Sandbox): Guest {
  const { mini: miniName, vm } = sandbox.status ?? {};
  const mini = miniName ? ctx.informers.minis.get(miniName) : undefined;
  if (!mini || !vm)
    throw new DriverError('unreachable', `the Mac of sandbox ${sandbox.metadata.name} is unknown`);
  return ctx.hosts.host(mini).guest(vm);
}

async function writeStatus(ctx: OperatorContext, replay: Replay, status: ReplayStatus): Promise<Replay> {
  return ctx.client.patch<Replay>(
    { kind: 'Replay', namespace: replay.metadata.namespace!, name: replay.metadata.name },
    { status },
    { subresource: 'status' },
  );
}

async function fail(ctx: OperatorContext, replay: Replay, message: string): Promise<void> {
  ctx.logger.warn(
    { replay: `${replay.metadata.namespace}/${replay.metadata.name}`, message },
    'replay failed',
  );
  const failed = await writeStatus(ctx, replay, { phase: 'failed', message });
  await deleteSandbox(ctx, failed);
}
