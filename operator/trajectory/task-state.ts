// A collection's state lives in its Task's status (`status.collection`, crds/task.ts), so that any
// API replica can record into it, see it and stop it. Every change is a status write conditional
// on the resourceVersion read: two replicas taking a step index at once both succeed, one after
// the other, with different indexes.
import { setTimeout as delay } from 'node:timers/promises';
import type { Task } from '../../crds/index.ts';
import { isStoreError, type Store } from '../../store/store.ts';

export type TaskStatus = NonNullable<Task['status']>;
export type TaskStep = NonNullable<TaskStatus['steps']>[number];
export type CollectionState = NonNullable<TaskStatus['collection']>;

/** Writes conditional on the resourceVersion are retried this often before giving up. */
const MAX_CONFLICTS = 50;

export interface TaskRef {
  account: string;
  taskId: string;
}

/**
 * Reads the task, asks `change` for a status merge patch (undefined: nothing to write) and writes
 * it if the task did not change meanwhile, else reads again. Answers the task as written (or as
 * read, when nothing was written), or undefined when the task is gone.
 */
export async function changeTask(
  store: Store,
  ref: TaskRef,
  change: (task: Task) => Record<string, unknown> | undefined,
): Promise<{ task: Task; written: boolean } | undefined> {
  const key = { kind: 'Task', namespace: ref.account, name: ref.taskId };
  for (let attempt = 0; ; attempt++) {
    const task = await store.get<Task>(key);
    if (!task) return undefined;
    const status = change(task);
    if (status === undefined) return { task, written: false };
    try {
      const written = await store.patch<Task>(
        key,
        { status },
        { subresource: 'status', resourceVersion: task.metadata.resourceVersion! },
      );
      return { task: written, written: true };
    } catch (err) {
      if (isStoreError(err, 'NotFound')) return undefined;
      if (!isStoreError(err, 'Conflict') || attempt >= MAX_CONFLICTS) throw err;
    }
  }
}

/** The collection of `task` on `sandboxId` while it records (not stopping), if that is what it has. */
export function recordingOn(task: Task, sandboxId: string): CollectionState | undefined {
  const c = task.status?.collection;
  return c?.sandbox === sandboxId && c.phase === 'recording' && !c.stopping ? c : undefined;
}

/**
 * Takes the next step index of the collection (also while it is stopping: the stop waits for the
 * steps of the recorders it names); undefined when it no longer records on the sandbox.
 */
export async function takeStepIndex(
  store: Store,
  ref: TaskRef,
  sandboxId: string,
): Promise<number | undefined> {
  let index: number | undefined;
  await changeTask(store, ref, (task) => {
    const c = task.status?.collection;
    if (c?.sandbox !== sandboxId || c.phase !== 'recording') return undefined;
    index = c.nextIndex;
    return { collection: { nextIndex: c.nextIndex + 1 } };
  });
  return index;
}

/** Adds a step (kept in index order) while the collection is still on the sandbox (stopping or not). */
export async function addStep(
  store: Store,
  ref: TaskRef,
  sandboxId: string,
  step: TaskStep,
): Promise<boolean> {
  const r = await changeTask(store, ref, (task) => {
    if (task.status?.collection?.sandbox !== sandboxId) return undefined;
    const steps = [...(task.status.steps ?? []).filter((s) => s.index !== step.index), step];
    return { steps: steps.sort((a, b) => a.index - b.index) };
  });
  return r?.written ?? false;
}

/** Adds or removes a replica from the collection's recorders. */
export async function setRecorder(
  store: Store,
  ref: TaskRef,
  sandboxId: string,
  replica: string,
  present: boolean,
): Promise<void> {
  await changeTask(store, ref, (task) => {
    const c = task.status?.collection;
    if (c?.sandbox !== sandboxId) return undefined;
    const others = (c.recorders ?? []).filter((r) => r !== replica);
    if (present === (others.length !== (c.recorders ?? []).length)) return undefined;
    return { collection: { recorders: present ? [...others, replica] : others } };
  });
}

const RECORDERS_POLL_MS = 50;

/**
 * Waits until no API replica records into the collection any more (each writes what it holds, then
 * leaves), at most `waitMs` of real time (a replica that died holds nothing worth waiting for):
 * `left`, `timeout` (with the recorders still named), or `gone` (the collection or task went).
 */
export async function waitForRecorders(
  store: Store,
  ref: TaskRef,
  waitMs: number,
): Promise<{ outcome: 'left' | 'gone' } | { outcome: 'timeout'; recorders: string[] }> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const t = await store.get<Task>({ kind: 'Task', namespace: ref.account, name: ref.taskId });
    if (!t?.status?.collection) return { outcome: 'gone' };
    const recorders = t.status.collection.recorders ?? [];
    if (recorders.length === 0) return { outcome: 'left' };
    if (performance.now() >= deadline) return { outcome: 'timeout', recorders };
    await delay(RECORDERS_POLL_MS);
  }
}
