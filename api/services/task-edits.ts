// Creating, editing and deleting tasks through the API (the collector's tasks, or a trajectory
// document imported as one). A task is a Task resource in the account's namespace; its id is the
// resource's name.
import { randomBytes } from 'node:crypto';
import { API_VERSION, type SetupStep, type Task, type TaskGrader } from '../../crds/index.ts';
import { checkSetupSteps, checkTaskGrader } from '../../operator/evaluation/validate.ts';
import { isStoreError } from '../../store/store.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { TrajectoryFormatError, readTrajectory } from '../atif-read.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { recordingLocation } from '../../operator/trajectory/recording.ts';
import type { ApiContext } from './context.ts';
import { findTask } from './tasks.ts';

export interface TaskCreate {
  id?: string;
  instruction?: string;
  category?: string;
  setup_script?: string;
  setup?: SetupStep[];
  grader?: TaskGrader;
  trajectory?: unknown;
}

export interface TaskUpdate {
  instruction?: string;
  category?: string | null;
  setup_script?: string | null;
  setup?: SetupStep[] | null;
  grader?: TaskGrader | null;
}

/**
 * Checks a body's `setup` and `grader` with errors that name the bad step or check (400
 * `invalid_setup_step` / `invalid_grader`); runs before schema validation, whose union errors say
 * less. Null (an update removing one) and absent pass.
 */
export function checkEvaluationFields(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const { setup, grader } = body as { setup?: unknown; grader?: unknown };
  if (setup !== undefined && setup !== null) checkSetupSteps(setup);
  if (grader !== undefined && grader !== null) checkTaskGrader(grader);
}

export function newTaskId(): string {
  return `tk-${randomBytes(6).toString('hex')}`;
}

export async function createTask(ctx: ApiContext, principal: Principal, body: TaskCreate): Promise<Task> {
  if (body.id === 'replays')
    throw new ApiError(
      'invalid_request',
      'A task cannot be named `replays` (the replay routes take that path).',
    );
  let imported;
  try {
    imported = body.trajectory === undefined ? undefined : readTrajectory(body.trajectory);
  } catch (err) {
    if (err instanceof TrajectoryFormatError) throw new ApiError('invalid_trajectory', err.message);
    throw err;
  }
  const instruction = body.instruction ?? imported?.instruction;
  if (instruction === undefined || instruction === '')
    throw new ApiError('invalid_request', 'instruction is required (in the body or the trajectory).');
  const category = body.category ?? imported?.category;
  const setupScript = body.setup_script ?? imported?.setupScript;
  const setup = body.setup ?? imported?.setup;
  const grader = body.grader ?? imported?.grader;
  const name = body.id ?? newTaskId();
  const key = { kind: 'Task', namespace: principal.account, name };
  let created: Task;
  try {
    created = await ctx.store.create<Task>({
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: { name, namespace: principal.account },
      spec: {
        instruction,
        ...(category !== undefined && { category }),
        ...(setupScript !== undefined && { setupScript }),
        ...(setup !== undefined && { setup }),
        ...(grader !== undefined && { grader }),
      },
    });
  } catch (err) {
    if (isStoreError(err) && err.code === 'AlreadyExists') throw new ApiError('task_exists');
    throw err;
  }
  const now = new Date(ctx.clock.now()).toISOString();
  try {
    return await ctx.store.patch<Task>(
      key,
      {
        status: imported
          ? {
              phase: 'saved',
              steps: imported.actions.map((a, index) => ({
                index,
                at: a.at ?? now,
                function: a.function,
                args: a.args,
              })),
            }
          : {},
      },
      { subresource: 'status' },
    );
  } catch (err) {
    // A create ignores status, so the steps are a second write: when it fails the request fails
    // whole, and a retry must not find a task without its steps (409 task_exists). The patch's
    // error is the one to answer.
    await ctx.store.delete(key, { uid: created.metadata.uid! }).catch(() => undefined);
    throw err;
  }
}

export async function updateTask(
  ctx: ApiContext,
  principal: Principal,
  id: string,
  body: TaskUpdate,
): Promise<Task> {
  const fields: [keyof TaskUpdate, keyof Task['spec']][] = [
    ['instruction', 'instruction'],
    ['category', 'category'],
    ['setup_script', 'setupScript'],
    ['setup', 'setup'],
    ['grader', 'grader'],
  ];
  // A whole-spec update on the version read, not a merge patch: a merge patch would merge a new
  // grader object into the old one (keeping an old `combine`). Status writes (a collection
  // recording) move the version on, so a conflict is read again and retried.
  for (let attempt = 0; ; attempt++) {
    const task = await findTask(ctx, principal, id);
    const spec: Record<string, unknown> = { ...task.spec };
    for (const [wire, field] of fields) {
      const value = body[wire];
      if (value === null) delete spec[field];
      else if (value !== undefined) spec[field] = value;
    }
    try {
      return await ctx.store.update<Task>({ ...task, spec: spec as Task['spec'] });
    } catch (err) {
      if (!isStoreError(err, 'Conflict') || attempt >= 10) throw err;
    }
  }
}

/** Deletes the task and its screenshots and recording; refused while it is being collected. */
export async function deleteTask(
  ctx: ApiContext,
  blobs: BlobStore | undefined,
  principal: Principal,
  id: string,
): Promise<void> {
  const task = await findTask(ctx, principal, id);
  if (task.status?.collection) throw new ApiError('collection_in_progress');
  await ctx.store.delete({ kind: 'Task', namespace: principal.account, name: task.metadata.name });
  if (!blobs) return;
  const prefix = `tasks/${principal.account}/`;
  const artifacts = [
    ...(task.status?.steps ?? []).flatMap((s) => (s.screenshot ? [s.screenshot] : [])),
    ...(task.status?.recording ? [task.status.recording] : []),
    // An MP4 still finalizing is stored here after the read above: deleted whatever the status said
    // (and the collection deletes it if it lands after this).
    { location: recordingLocation(principal.account, task.metadata.name) },
  ];
  // Only the account's own blobs (a status written through the admin API could name others).
  for (const a of artifacts)
    if (a.location.startsWith(prefix)) await blobs.delete(a.location).catch(() => {});
}
