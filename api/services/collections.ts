// Starting and stopping collections (docs/trajectories.md, "The collector"): the setup phase runs
// the task's setup (its script, then its steps) on the sandbox, unrecorded; then the Collection
// records until stopped.
import type { FastifyBaseLogger } from 'fastify';
import type { Task } from '../../crds/index.ts';
import type { Guest } from '../../hosts/driver.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { runSetup } from '../../operator/evaluation/steps.ts';
import {
  TASK_SETUP_TIMEOUT_S,
  isScriptStep,
  setupFailureText,
  taskSetupSteps,
} from '../../operator/evaluation/task-evaluation.ts';
import type { Principal } from '../auth.ts';
import { finalizeRecording } from '../../operator/trajectory/recording.ts';
import { changeTask, waitForRecorders, type CollectionState } from '../../operator/trajectory/task-state.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import { evaluationEnv } from './evaluation.ts';
import { guestOf, guestOfId } from './guests.ts';
import { findSandbox } from './sandboxes.ts';
import { findTask } from './tasks.ts';

/** The setup's limit (script and steps), as for a replay's. */
export const COLLECTION_SETUP_TIMEOUT_MS = TASK_SETUP_TIMEOUT_S * 1000;

export interface CollectionDeps {
  ctx: ApiContext;
  blobs: BlobStore | undefined;
  log: FastifyBaseLogger;
}

/** How long a stop waits for the replicas recording into the collection to write what they hold. */
export const STOP_WAIT_MS = 15_000;

/** A collection as the API shows it: its task's `status.collection`. */
export interface CollectionView {
  task: Task;
  state: CollectionState;
}

export function collectionWire({ task, state }: CollectionView) {
  return {
    sandbox_id: state.sandbox,
    task_id: task.metadata.name,
    phase: state.phase,
    started_at: state.startedAt,
    recording_started_at: state.recordingStartedAt ?? null,
    step_count: state.nextIndex,
    recording_id: state.recordingId ?? null,
  };
}

/**
 * The collection on the sandbox, read from the store (any replica answers the same). No sandbox
 * lookup: a collection whose sandbox was deleted meanwhile can still be seen and stopped.
 */
export async function findCollection(
  deps: CollectionDeps,
  principal: Principal,
  sandboxId: string,
): Promise<CollectionView> {
  const found = (await collectingOn(deps.ctx, principal.account, sandboxId))[0];
  if (!found) throw new ApiError('collection_not_found');
  return found;
}

/** The tasks claiming the sandbox, oldest claim first (a tie broken by name). */
async function collectingOn(ctx: ApiContext, account: string, sandboxId: string): Promise<CollectionView[]> {
  const { items } = await ctx.store.list<Task>('Task', { namespace: account });
  return items
    .flatMap((task) => {
      const state = task.status?.collection;
      return state?.sandbox === sandboxId && !task.metadata.deletionTimestamp ? [{ task, state }] : [];
    })
    .sort(
      (a, b) =>
        a.state.startedAt.localeCompare(b.state.startedAt) ||
        a.task.metadata.name.localeCompare(b.task.metadata.name),
    );
}

export async function startCollection(
  deps: CollectionDeps,
  principal: Principal,
  sandboxId: string,
  body: { task_id: string; run_setup: boolean },
): Promise<CollectionView> {
  const { ctx, blobs, log } = deps;
  if (!blobs) throw new ApiError('artifact_unavailable', 'This server has no blob store configured.');
  const sandbox = await findSandbox(ctx, principal, sandboxId);
  const found = await findTask(ctx, principal, body.task_id);
  const ref = { account: principal.account, taskId: found.metadata.name };
  if ((await collectingOn(ctx, principal.account, sandbox.metadata.name)).length > 0)
    throw new ApiError('collection_in_progress');
  const startedAt = new Date(ctx.clock.now()).toISOString();
  // The claim: a write conditional on the task as read, so two starts of one task cannot both win.
  const claimed = await changeTask(ctx.store, ref, (task) => {
    if (task.status?.collection) throw new ApiError('collection_in_progress');
    // A task still `recording` without a collection was interrupted (an API restart before
    // collections were kept in the store): it resumes after the steps it has. Any other task with
    // steps is done.
    const resumed = task.status?.phase === 'recording' ? (task.status.steps ?? []) : [];
    if ((task.status?.steps?.length ?? 0) > resumed.length) throw new ApiError('task_already_recorded');
    const nextIndex = resumed.reduce((next, s) => Math.max(next, s.index + 1), 0);
    return { collection: { sandbox: sandbox.metadata.name, phase: 'setup', startedAt, nextIndex } };
  });
  if (!claimed) throw new ApiError('task_not_found');
  const release = () =>
    changeTask(ctx.store, ref, (t) =>
      t.status?.collection?.startedAt === startedAt ? { collection: null } : undefined,
    ).catch(() => undefined);
  // Two tasks claiming one sandbox at once: the older claim keeps it.
  const claims = await collectingOn(ctx, principal.account, sandbox.metadata.name);
  if (claims[0]?.task.metadata.name !== ref.taskId) {
    await release();
    throw new ApiError('collection_in_progress');
  }
  const guest = await guestOf(ctx, sandbox);
  let recordingId: string | undefined;
  try {
    if (body.run_setup) await runTaskSetup(deps, principal.account, found, guest);
    try {
      recordingId = (await guest.startRecording(`collection-${ref.taskId}`)).id;
    } catch (err) {
      log.warn({ err, task: ref.taskId }, 'collection: no screen recording');
    }
    const recordingStartedAt = new Date(ctx.clock.now()).toISOString();
    const started = await changeTask(ctx.store, ref, (t) =>
      t.status?.collection?.startedAt === startedAt
        ? {
            phase: 'recording',
            collection: { phase: 'recording', recordingStartedAt, ...(recordingId && { recordingId }) },
          }
        : undefined,
    );
    const state = started?.written ? started.task.status?.collection : undefined;
    if (!started || !state)
      throw new ApiError('collection_not_found', 'The collection was stopped during its setup.');
    // Calls through this replica after the answer are recorded (other replicas see it once their
    // watch delivers the write, within milliseconds).
    await ctx.collections.seen(started.task.metadata.resourceVersion);
    return { task: started.task, state };
  } catch (err) {
    await release();
    if (recordingId) {
      await guest.stopRecording(recordingId).catch(() => undefined);
      await guest.deleteRecording(recordingId).catch(() => undefined);
    }
    throw err;
  }
}

/** The task's setup on the collection's sandbox: 409 `setup_script_failed` / `setup_failed` when it fails. */
async function runTaskSetup(deps: CollectionDeps, account: string, task: Task, guest: Guest): Promise<void> {
  const steps = taskSetupSteps(task);
  if (steps.length === 0) return;
  const result = await runSetup(
    evaluationEnv(deps.ctx, deps.blobs, account, guest),
    steps,
    TASK_SETUP_TIMEOUT_S,
  );
  if (result.failed_step === null) return;
  if (isScriptStep(task, result.failed_step))
    throw new ApiError('setup_script_failed', `The ${setupFailureText(task, result)}.`);
  throw new ApiError('setup_failed', `The task's ${setupFailureText(task, result)}; nothing was recorded.`);
}

/**
 * Asks the replicas recording into the collection to write what they hold, waits for them (at most
 * STOP_WAIT_MS: a replica that died holds nothing worth waiting for), saves the steps and answers
 * at once; the MP4 finalizes in the background.
 */
export async function stopCollection(
  deps: CollectionDeps,
  principal: Principal,
  sandboxId: string,
): Promise<Task> {
  const { ctx, log } = deps;
  const { task } = await findCollection(deps, principal, sandboxId);
  const ref = { account: principal.account, taskId: task.metadata.name };
  let abandoned = false;
  const asked = await changeTask(ctx.store, ref, (t) => {
    const c = t.status?.collection;
    if (c?.sandbox !== sandboxId) throw new ApiError('collection_not_found');
    // A setup phase older than the setup script's limit was left by an API replica that died
    // during it: nothing was recorded, the claim is released.
    abandoned =
      c.phase === 'setup' && ctx.clock.now() - Date.parse(c.startedAt) > COLLECTION_SETUP_TIMEOUT_MS;
    if (abandoned) return { collection: null };
    if (c.phase === 'setup')
      throw new ApiError(
        'collection_in_progress',
        'The collection is still in its setup phase: stop it once it records.',
      );
    return c.stopping ? undefined : { collection: { stopping: true } };
  });
  if (!asked) throw new ApiError('collection_not_found');
  if (abandoned) return asked.task;
  // Real time: it bounds a wait for other processes, whatever clock the API keeps.
  const waited = await waitForRecorders(ctx.store, ref, STOP_WAIT_MS);
  if (waited.outcome === 'gone') throw new ApiError('collection_not_found');
  if (waited.outcome === 'timeout')
    log.warn({ task: ref.taskId, recorders: waited.recorders }, 'collection: stopped without them');
  let recordingId: string | undefined;
  const saved = await changeTask(ctx.store, ref, (t) => {
    const c = t.status?.collection;
    if (c?.sandbox !== sandboxId) throw new ApiError('collection_not_found');
    recordingId = c.recordingId;
    return { phase: recordingId ? 'finalizing' : 'saved', collection: null };
  });
  if (!saved) throw new ApiError('task_not_found');
  if (recordingId && deps.blobs) {
    const { blobs } = deps;
    void (async () => {
      try {
        const guest = await guestOfId(ctx, principal.account, sandboxId);
        await finalizeRecording({ store: ctx.store, blobs, log, guest }, ref, recordingId);
      } catch (err) {
        // The sandbox is gone (its MP4 with it): the steps are saved, without a recording.
        log.warn({ err, task: ref.taskId }, 'collection: the screen recording could not be finalized');
        await changeTask(ctx.store, ref, () => ({ phase: 'saved' })).catch(() => undefined);
      }
    })();
  }
  return saved.task;
}
