// Tasks (recorded trajectories) and their replays as the API serves them. Tasks are resources in the
// account's namespace, written by whoever records them (today: an admin through kubectl or
// `sandbay apply`); their screenshots and screen recording are blobs named by `status`. A replay is
// a Replay resource the replay reconciler carries out; the API writes it and waits only until the
// reconciler has named the sandbox it boots.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { API_VERSION, type Replay, type Task } from '../../crds/index.ts';
import { NAME_PATTERN } from '../../crds/meta.ts';
import type { Artifact } from '../../crds/snapshot.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { orderedSteps, screenshotUrl } from '../atif.ts';
import type { ArchiveImage } from '../task-archive.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import { RESERVATION_LABEL, reservationForCreate } from './reservations.ts';
import { waitForResource } from './wait.ts';

const NAME = new RegExp(NAME_PATTERN);
export const REPLAY_ID_PATTERN = '^rp-[0-9a-f]{32}$';
const REPLAY_ID = new RegExp(REPLAY_ID_PATTERN);
/** How long POST …/replay waits for the reconciler to name the replay's sandbox. */
export const REPLAY_START_WAIT_MS = 30_000;

export async function findTask(ctx: ApiContext, principal: Principal, id: string): Promise<Task> {
  // A name that cannot be a resource name names no task (and is not sent to the store).
  if (id.length > 253 || !NAME.test(id)) throw new ApiError('task_not_found');
  const task = await ctx.store.get<Task>({ kind: 'Task', namespace: principal.account, name: id });
  if (!task || task.metadata.deletionTimestamp) throw new ApiError('task_not_found');
  return task;
}

export async function listTasks(ctx: ApiContext, principal: Principal): Promise<Task[]> {
  const { items } = await ctx.store.list<Task>('Task', { namespace: principal.account });
  return items
    .filter((t) => !t.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
}

export function taskSummary(task: Task) {
  return {
    id: task.metadata.name,
    instruction: task.spec.instruction,
    category: task.spec.category ?? null,
    created_at: task.metadata.creationTimestamp ?? null,
    step_count: task.status?.steps?.length ?? 0,
    phase: task.status?.phase ?? null,
    has_grader: task.spec.grader !== undefined,
    has_recording: task.status?.recording !== undefined,
  };
}

export function taskDetail(task: Task) {
  const id = task.metadata.name;
  return {
    ...taskSummary(task),
    setup_script: task.spec.setupScript ?? null,
    setup: task.spec.setup ?? null,
    grader: task.spec.grader ?? null,
    app_state: task.status?.appState ?? null,
    recording_url: task.status?.recording ? `/v1/me/tasks/${id}/recording` : null,
    steps: orderedSteps(task).map((s) => ({
      index: s.index,
      at: s.at,
      function: s.function,
      args: s.args,
      screenshot_url: s.screenshot ? screenshotUrl(id, s.index) : null,
    })),
  };
}

/**
 * Checks a task's artifact and returns its opener. Task status is written through the admin API, so its locations are still
 * checked: an artifact must lie under `tasks/<account>/` (a task can never serve another account's
 * blobs, nor a snapshot delta), exist, and have the recorded size.
 */
export async function checkedArtifact(
  blobs: BlobStore | undefined,
  task: Task,
  artifact: Artifact,
): Promise<() => Readable> {
  if (!blobs) throw new ApiError('artifact_unavailable', 'This server has no blob store configured.');
  const prefix = `tasks/${task.metadata.namespace}/`;
  let file: string;
  try {
    if (!artifact.location.startsWith(prefix)) throw new Error('outside the task prefix');
    file = blobs.path(artifact.location);
  } catch {
    throw new ApiError('artifact_unavailable', `Artifact location must lie under ${prefix}.`);
  }
  const st = await stat(file).catch(() => undefined);
  if (!st?.isFile() || st.size !== artifact.bytes) {
    throw new ApiError('artifact_unavailable', `The artifact ${artifact.location} is missing or truncated.`);
  }
  return () => blobs.open(artifact.location);
}

/** Every step screenshot of the task, checked, for the download archive. */
export async function checkedImages(blobs: BlobStore | undefined, task: Task): Promise<ArchiveImage[]> {
  const images: ArchiveImage[] = [];
  const seen = new Set<number>();
  for (const step of task.status?.steps ?? []) {
    if (!step.screenshot) continue;
    if (seen.has(step.index)) {
      throw new ApiError('artifact_unavailable', `Task ${task.metadata.name} has two steps ${step.index}.`);
    }
    seen.add(step.index);
    images.push({ index: step.index, open: await checkedArtifact(blobs, task, step.screenshot) });
  }
  return images;
}

export function stepScreenshot(task: Task, index: number): Artifact {
  const step = task.status?.steps?.find((s) => s.index === index);
  if (!step?.screenshot) throw new ApiError('step_not_found');
  return step.screenshot;
}

// ---- replays ----

function newReplayId(): string {
  return `rp-${randomBytes(16).toString('hex')}`;
}

/** Writes a Replay of the task and waits until the reconciler names its sandbox (or fails it). */
export async function startReplay(
  ctx: ApiContext,
  principal: Principal,
  taskId: string,
  reservationId: string | undefined,
): Promise<Replay> {
  const task = await findTask(ctx, principal, taskId);
  const phase = task.status?.phase;
  if (phase === 'recording' || phase === 'failed') {
    throw new ApiError('task_not_ready', `The task is ${phase}: only a saved trajectory can be replayed.`);
  }
  const reservation = await reservationForCreate(ctx, principal, reservationId);
  const replay = await ctx.store.create<Replay>({
    apiVersion: API_VERSION,
    kind: 'Replay',
    metadata: {
      name: newReplayId(),
      namespace: principal.account,
      labels: { [RESERVATION_LABEL]: reservation.metadata.name },
    },
    spec: { task: task.metadata.name, reservation: reservation.metadata.name },
  });
  ctx.operatorHooks?.written?.('Replay', `${principal.account}/${replay.metadata.name}`);
  return waitForResource<Replay, Replay>({
    store: ctx.store,
    clock: ctx.clock,
    kind: 'Replay',
    namespace: principal.account,
    name: replay.metadata.name,
    fromVersion: replay.metadata.resourceVersion,
    decide: (obj) => {
      if (!obj) throw new ApiError('replay_not_found');
      const started = obj.status?.sandbox !== undefined || obj.status?.phase === 'failed';
      return started ? { result: obj } : undefined;
    },
    timeoutMs: REPLAY_START_WAIT_MS,
    // The reconciler is late (busy, or restarting): the replay still runs; the client polls.
    onTimeout: () => replay,
    signal: ctx.shutdown,
  });
}

export async function findReplay(ctx: ApiContext, principal: Principal, id: string): Promise<Replay> {
  if (!REPLAY_ID.test(id)) throw new ApiError('replay_not_found');
  const replay = await ctx.store.get<Replay>({ kind: 'Replay', namespace: principal.account, name: id });
  if (!replay) throw new ApiError('replay_not_found');
  return replay;
}

export async function replayWire(ctx: ApiContext, replay: Replay) {
  const task = await ctx.store.get<Task>({
    kind: 'Task',
    namespace: replay.metadata.namespace!,
    name: replay.spec.task,
  });
  const s = replay.status ?? {};
  return {
    id: replay.metadata.name,
    task_id: replay.spec.task,
    reservation_id: replay.spec.reservation,
    status: s.phase ?? 'pending',
    sandbox_id: s.sandbox ?? null,
    steps_done: s.stepsDone ?? 0,
    steps_total: task ? (task.status?.steps?.length ?? 0) : null,
    reward: s.reward ?? null,
    grade: s.grade ?? null,
    message: s.message ?? null,
    created_at: replay.metadata.creationTimestamp ?? null,
  };
}
