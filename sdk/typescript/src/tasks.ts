// Trajectories (recorded tasks) and their replays: `client.tasks.*`, account key only.
import type { Transport } from './http.ts';
import type {
  Collection,
  Replay,
  Task,
  TaskCreateRequest,
  TaskImportPreview,
  TaskImportRequest,
  TaskSummary,
  TaskUpdateRequest,
  Trajectory,
} from './types.ts';

const TERMINAL = new Set(['completed', 'failed']);

export class Tasks {
  readonly #t: Transport;
  constructor(t: Transport) {
    this.#t = t;
  }

  list(): Promise<TaskSummary[]> {
    return this.#t.json('GET', '/v1/me/tasks');
  }

  get(id: string): Promise<Task> {
    return this.#t.json('GET', `/v1/me/tasks/${encodeURIComponent(id)}`);
  }

  /**
   * Creates a task to collect: `{instruction, category?, setup_script?, grader?, id?}`; with
   * `trajectory` (an ATIF document, or an old `sandbay-atif/1` export) its actions become the steps.
   */
  create(body: TaskCreateRequest): Promise<Task> {
    return this.#t.json('POST', '/v1/me/tasks', { json: body });
  }

  /** Edits instruction, category, setup script or grader (`null` removes an optional one). */
  update(id: string, body: TaskUpdateRequest): Promise<Task> {
    return this.#t.json('PATCH', `/v1/me/tasks/${encodeURIComponent(id)}`, { json: body });
  }

  /** Deletes the task with its screenshots and recording. */
  delete(id: string): Promise<void> {
    return this.#t.none('DELETE', `/v1/me/tasks/${encodeURIComponent(id)}`);
  }

  /**
   * Collects the task on a running sandbox: its setup script runs first (unrecorded, unless
   * `runSetup: false`), then what a person does in the live view and the API calls made on the
   * sandbox are recorded as steps, until `stopCollection`.
   */
  startCollection(sandboxId: string, taskId: string, o: { runSetup?: boolean } = {}): Promise<Collection> {
    return this.#t.json('POST', `/v1/sandboxes/${encodeURIComponent(sandboxId)}/collection`, {
      json: { task_id: taskId, ...(o.runSetup !== undefined && { run_setup: o.runSetup }) },
    });
  }

  /** The sandbox's collection (phase, steps so far); 404 `collection_not_found` when none. */
  getCollection(sandboxId: string): Promise<Collection> {
    return this.#t.json('GET', `/v1/sandboxes/${encodeURIComponent(sandboxId)}/collection`);
  }

  /** Stops collecting: answers with the saved task (phase `finalizing` until the MP4 is stored). */
  stopCollection(sandboxId: string): Promise<Task> {
    return this.#t.json('POST', `/v1/sandboxes/${encodeURIComponent(sandboxId)}/collection/stop`);
  }

  /** The task as an ATIF document. */
  trajectory(id: string): Promise<Trajectory> {
    return this.#t.json('GET', `/v1/me/tasks/${encodeURIComponent(id)}/trajectory`);
  }

  /** The ZIP archive (trajectory.json, task.json, setup.sh, images). */
  download(id: string): Promise<Uint8Array> {
    return this.#t.bytes('GET', `/v1/me/tasks/${encodeURIComponent(id)}/download`);
  }

  /** The screen recording (MP4). */
  recording(id: string): Promise<Uint8Array> {
    return this.#t.bytes('GET', `/v1/me/tasks/${encodeURIComponent(id)}/recording`);
  }

  /** One step's screenshot (PNG). */
  stepScreenshot(id: string, index: number): Promise<Uint8Array> {
    return this.#t.bytes('GET', `/v1/me/tasks/${encodeURIComponent(id)}/steps/${index}/screenshot`);
  }

  /** Starts a replay on a fresh sandbox. */
  replay(id: string, o: { reservationId?: string } = {}): Promise<Replay> {
    return this.#t.json('POST', `/v1/me/tasks/${encodeURIComponent(id)}/replay`, {
      json: o.reservationId === undefined ? {} : { reservation_id: o.reservationId },
    });
  }

  /**
   * Makes a task of an OSWorld or macOSWorld task file (`{format, task, id?, category?, options?}`):
   * its setup steps and grader. With `dry_run: true`, answers what it would make and makes nothing.
   */
  importTask(body: TaskImportRequest & { dry_run: true }): Promise<TaskImportPreview>;
  importTask(body: TaskImportRequest): Promise<Task>;
  importTask(body: TaskImportRequest): Promise<Task | TaskImportPreview> {
    return this.#t.json('POST', '/v1/me/tasks/import', { json: body });
  }

  /** The task as a Harbor task directory, a .tar.gz (docs/trajectories.md, "Harbor"). */
  harbor(id: string): Promise<Uint8Array> {
    return this.#t.bytes('GET', `/v1/me/tasks/${encodeURIComponent(id)}/harbor`);
  }

  getReplay(replayId: string): Promise<Replay> {
    return this.#t.json('GET', `/v1/me/tasks/replays/${encodeURIComponent(replayId)}`);
  }

  /** Polls a replay until it is `completed` or `failed`. */
  async waitForReplay(replayId: string, o: { timeoutMs?: number; pollMs?: number } = {}): Promise<Replay> {
    const deadline = Date.now() + (o.timeoutMs ?? 30 * 60_000);
    for (;;) {
      const r = await this.getReplay(replayId);
      if (TERMINAL.has(r.status)) return r;
      if (Date.now() > deadline) throw new Error(`replay ${replayId} is still ${r.status}`);
      await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? 1000));
    }
  }
}
