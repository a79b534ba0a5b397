// An attempt's trajectory: a Task of its own (named after the attempt, owned by it, labelled with its
// run), so that the attempt's steps, screenshots, ATIF export, ZIP and MP4 are served by the task
// routes as any trajectory's (`/v1/me/tasks/{attempt}/trajectory`, …), and the attempt can be
// replayed as a task. It carries the task's instruction, setup and grader as they were when the
// attempt began.
//
// - agent mode: the Task collects on the attempt's sandbox (`status.collection`, as the collector's
//   does), so every API call the agent makes with its key is recorded by the API replica serving it,
//   with the screenshot after it (api/collector/). At grading the collection stops as the collector's
//   stop does: the replicas write what they hold (at most 15 s), then the steps are saved.
// - replay mode: the reconciler itself writes each replayed action with the settled screenshot after it.
//
// The screen recording (MP4) runs from the start of acting to the end of grading; it is stored with
// the Task (operator/trajectory/recording.ts).
import { Readable } from 'node:stream';
import { API_VERSION, EVALUATION_RUN_LABEL, type EvaluationAttempt, type Task } from '../../../crds/index.ts';
import type { Guest } from '../../../hosts/driver.ts';
import { isStoreError } from '../../../store/store.ts';
import type { OperatorContext } from '../../context.ts';
import { controllerRef } from '../../sandbox/owned.ts';
import { finalizeRecording } from '../../trajectory/recording.ts';
import { settledScreenshot } from '../../trajectory/settle.ts';
import { changeTask, waitForRecorders, type TaskRef, type TaskStep } from '../../trajectory/task-state.ts';

/** How long grading waits for API replicas to write the agent's last steps (the collector's stop wait). */
export const RECORDERS_WAIT_MS = 15_000;

export function trajectoryRef(attempt: EvaluationAttempt): TaskRef {
  return { account: attempt.metadata.namespace!, taskId: attempt.metadata.name };
}

/** Writes the attempt's Task (from the task as it is now); an existing one (a restart) is kept. */
export async function createTrajectory(
  ctx: OperatorContext,
  attempt: EvaluationAttempt,
  task: Task,
): Promise<void> {
  const { setupScript, setup, grader, category } = task.spec;
  try {
    await ctx.client.create<Task>({
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: {
        name: attempt.metadata.name,
        namespace: attempt.metadata.namespace!,
        labels: {
          [EVALUATION_RUN_LABEL]: attempt.spec.run,
          'sandbay.io/evaluation-task': task.metadata.name,
        },
        ownerReferences: [controllerRef(attempt)],
      },
      spec: {
        instruction: task.spec.instruction,
        ...(category !== undefined && { category }),
        ...(setupScript !== undefined && { setupScript }),
        ...(setup !== undefined && { setup }),
        ...(grader !== undefined && { grader }),
      },
    });
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
  }
}

/** Agent mode: the API replicas record every call on the sandbox into the Task from now on. */
export async function startCollection(
  ctx: OperatorContext,
  attempt: EvaluationAttempt,
  sandbox: string,
): Promise<void> {
  const now = new Date(ctx.clock.now()).toISOString();
  await changeTask(ctx.store, trajectoryRef(attempt), (t) =>
    t.status?.collection?.sandbox === sandbox
      ? undefined
      : {
          phase: 'recording',
          collection: { sandbox, phase: 'recording', startedAt: now, recordingStartedAt: now, nextIndex: 0 },
        },
  );
}

/**
 * Agent mode: asks the replicas recording the agent's calls to write what they hold, waits for
 * them (at most RECORDERS_WAIT_MS), and saves the steps. Nothing to do once saved.
 */
export async function stopCollection(ctx: OperatorContext, attempt: EvaluationAttempt): Promise<void> {
  const ref = trajectoryRef(attempt);
  const asked = await changeTask(ctx.store, ref, (t) => {
    const c = t.status?.collection;
    return !c || c.stopping ? undefined : { collection: { stopping: true } };
  });
  if (!asked?.task.status?.collection) return;
  const waited = await waitForRecorders(ctx.store, ref, RECORDERS_WAIT_MS);
  if (waited.outcome === 'timeout')
    ctx.logger.warn({ task: ref.taskId, recorders: waited.recorders }, 'attempt: stopped without them');
  await changeTask(ctx.store, ref, (t) =>
    t.status?.collection ? { phase: 'saved', collection: null } : undefined,
  );
}

/** Replay mode: one replayed action with the screenshot seen once the screen settled after it. */
export async function recordStep(
  ctx: OperatorContext,
  attempt: EvaluationAttempt,
  guest: Guest,
  step: Omit<TaskStep, 'screenshot'>,
  doneAtMs: number,
): Promise<void> {
  const ref = trajectoryRef(attempt);
  const entry: TaskStep = { ...step };
  try {
    const { png } = await settledScreenshot(
      () => guest.screenshot({ format: 'png' }),
      performance.now() - doneAtMs,
    );
    entry.screenshot = await ctx.blobs.put(
      `tasks/${ref.account}/${ref.taskId}/step-${step.index}.png`,
      Readable.from([png]),
    );
  } catch (err) {
    // The step is kept without its screenshot rather than lost (as the collector does).
    ctx.logger.warn({ err, task: ref.taskId, index: step.index }, 'attempt: step screenshot failed');
  }
  await changeTask(ctx.store, ref, (t) => ({
    phase: 'saved',
    steps: [...(t.status?.steps ?? []).filter((s) => s.index !== step.index), entry].sort(
      (a, b) => a.index - b.index,
    ),
  }));
}

/** Starts the screen recording of the attempt; undefined when the guest cannot record (logged). */
export async function startScreenRecording(
  ctx: OperatorContext,
  attempt: EvaluationAttempt,
  guest: Guest,
): Promise<string | undefined> {
  try {
    return (await guest.startRecording(`attempt-${attempt.metadata.name}`)).id;
  } catch (err) {
    ctx.logger.warn({ err, attempt: attempt.metadata.name }, 'attempt: no screen recording');
    return undefined;
  }
}

/** Stores the recording with the attempt's Task and removes it from the VM. */
export async function storeScreenRecording(
  ctx: OperatorContext,
  attempt: EvaluationAttempt,
  guest: Guest,
  recordingId: string,
): Promise<void> {
  await finalizeRecording(
    { store: ctx.store, blobs: ctx.blobs, log: ctx.logger, guest },
    trajectoryRef(attempt),
    recordingId,
  );
}
