// Tasks as a recorder leaves them: a Task resource whose status names per-step PNG screenshots (and
// optionally an MP4 recording) stored in the blob store under `tasks/<account>/<task>/`.
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { API_VERSION, type Task } from '../crds/index.ts';
import type { BlobStore } from '../operator/blob-store.ts';
import type { Store } from '../store/store.ts';

export interface SeedStep {
  function: string;
  args: Record<string, unknown>;
  /** Default true: the step has a screenshot. */
  screenshot?: boolean;
}

export interface SeedTask {
  instruction?: string;
  category?: string;
  setupScript?: string;
  grader?: string;
  steps: SeedStep[];
  phase?: NonNullable<Task['status']>['phase'];
  recording?: Buffer;
  appState?: Record<string, unknown>;
}

/** A small PNG, different for every step (so the archive's images can be told apart). */
export function stepPng(index: number): Promise<Buffer> {
  return sharp({
    create: { width: 16, height: 10, channels: 3, background: { r: (index * 37) % 256, g: 80, b: 160 } },
  })
    .png()
    .toBuffer();
}

export async function seedTask(
  store: Store,
  blobs: BlobStore,
  account: string,
  name: string,
  t: SeedTask,
): Promise<Task> {
  const steps = [];
  for (const [index, s] of t.steps.entries()) {
    const shot =
      s.screenshot === false
        ? undefined
        : await blobs.put(
            `tasks/${account}/${name}/step-${index}.png`,
            Readable.from([await stepPng(index)]),
          );
    steps.push({
      index,
      at: new Date(Date.UTC(2026, 0, 5, 9, 0, index)).toISOString(),
      function: s.function,
      args: s.args,
      ...(shot && { screenshot: shot }),
    });
  }
  const recording = t.recording
    ? await blobs.put(`tasks/${account}/${name}/recording.mp4`, Readable.from([t.recording]))
    : undefined;
  await store.create<Task>({
    apiVersion: API_VERSION,
    kind: 'Task',
    metadata: { name, namespace: account },
    spec: {
      instruction: t.instruction ?? `do ${name}`,
      ...(t.category !== undefined && { category: t.category }),
      ...(t.setupScript !== undefined && { setupScript: t.setupScript }),
      ...(t.grader !== undefined && { grader: t.grader }),
    },
  });
  return store.patch<Task>(
    { kind: 'Task', namespace: account, name },
    {
      status: {
        phase: t.phase ?? 'saved',
        steps,
        ...(recording && { recording }),
        ...(t.appState && { appState: t.appState }),
      },
    },
    { subresource: 'status' },
  );
}

/**
 * The sim's clock: real time, except that while held, waits (a VM's deletion) start only on release.
 * A sim VM the pool throws away thus stays on its host until release, so a test can look at what a
 * replay did to it after the replay deleted its sandbox.
 */
export class HoldingClock {
  #held: (() => void)[] = [];
  #holding = true;
  now = () => Date.now();
  setTimer(delayMs: number, fn: () => void) {
    if (!this.#holding) {
      const t = setTimeout(fn, delayMs);
      return { cancel: () => clearTimeout(t) };
    }
    let cancelled = false;
    this.#held.push(() => cancelled || fn());
    return {
      cancel: () => {
        cancelled = true;
      },
    };
  }
  hold() {
    this.#holding = true;
  }
  release() {
    this.#holding = false;
    for (const fn of this.#held.splice(0)) fn();
  }
}
