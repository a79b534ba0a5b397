// What one API replica records into a collection (state in the Task: task-state.ts): a person's
// input through this replica's VNC proxy and the API calls it serves on the sandbox. Input events
// are coalesced into actions; each action takes the next step index from the store when it
// completes (so steps recorded by several replicas keep the order they happened in), and becomes a
// step with the screenshot taken shortly after it. When the collection is asked to stop, the
// recorder writes what it still holds and leaves (`leave()`); `finalizeRecording`
// (operator/trajectory/recording.ts) then stores the MP4 with the task and removes it from the VM.
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Guest, MouseButton } from '../../hosts/driver.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import type { Clock, Timer } from '../../operator/runtime/clock.ts';
import type { Store } from '../../store/store.ts';
import { InputCoalescer } from './coalesce.ts';
import type { RfbInputEvent } from './rfb-input.ts';
import { settledScreenshot } from '../../operator/trajectory/settle.ts';
import {
  addStep,
  setRecorder,
  takeStepIndex,
  type TaskRef,
  type TaskStep,
} from '../../operator/trajectory/task-state.ts';

/** RFB button mask bits; the side buttons have none a click could be recorded with. */
const BUTTON_BITS: Partial<Record<MouseButton, number>> = { left: 1, middle: 2, right: 4 };

export interface RecorderDeps {
  store: Store;
  blobs: BlobStore | undefined;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The sandbox's guest (screenshots). */
  guest: () => Promise<Guest>;
  /** This API replica, as named in the collection's recorders. */
  replica: string;
}

export class Recorder {
  readonly account: string;
  readonly sandboxId: string;
  readonly taskId: string;

  readonly #deps: RecorderDeps;
  readonly #ref: TaskRef;
  readonly #coalescer = new InputCoalescer();
  #timer: Timer | undefined;
  /** Step indexes are taken one after the other, in the order the actions completed here. */
  #indexes: Promise<void>;
  /** Steps are screenshot and written one after the other. */
  #queue: Promise<void> = Promise.resolve();
  #left = false;
  /** Buttons the API holds down, as an RFB button mask. */
  #apiButtons = 0;
  /** Keys the API holds (key_down recorded here, key_up not yet): released in the trajectory at a stop. */
  readonly #apiKeys = new Set<string>();

  constructor(account: string, sandboxId: string, taskId: string, deps: RecorderDeps) {
    this.account = account;
    this.sandboxId = sandboxId;
    this.taskId = taskId;
    this.#deps = deps;
    this.#ref = { account, taskId };
    // Named among the recorders before the first step, so that a stop waits for what this holds.
    this.#indexes = setRecorder(deps.store, this.#ref, sandboxId, deps.replica, true).catch(
      (err: unknown) => {
        deps.log.warn({ err, task: taskId }, 'collection: could not join as a recorder');
      },
    );
  }

  get left(): boolean {
    return this.#left;
  }

  /** A viewer's input event. */
  input(event: RfbInputEvent): void {
    if (this.#left) return;
    const now = this.#deps.clock.now();
    const done = [...this.#coalescer.flushDue(now), ...this.#coalescer.push(event, now)];
    for (const action of done) void this.#record(action.function, action.args, action.at);
    this.#arm();
  }

  /**
   * An API call that ran on the sandbox; what the viewer did before it comes first. Resolves once
   * the step has its index, so that the call answers after its place in the trajectory is taken.
   */
  apiCall(fn: string, args: Record<string, unknown>): Promise<void> {
    if (this.#left) return Promise.resolve();
    for (const action of this.#coalescer.flush()) void this.#record(action.function, action.args, action.at);
    const indexed = this.#record(fn, args, this.#deps.clock.now());
    if (fn === 'key_down') this.#apiKeys.add(args.keys as string);
    if (fn === 'key_up') this.#apiKeys.delete(args.keys as string);
    this.#arm();
    return indexed;
  }

  /** A button the API pressed or released (computer-use clicks): coalesced as a viewer's would be. */
  apiButton(button: MouseButton, down: boolean, at: { x: number; y: number }): void {
    const bit = BUTTON_BITS[button];
    if (bit === undefined) return;
    this.#apiButtons = down ? this.#apiButtons | bit : this.#apiButtons & ~bit;
    this.input({ type: 'pointer', x: at.x, y: at.y, buttons: this.#apiButtons });
  }

  /** Wakes up when the pending action (a click that may become a double click, …) is due. */
  #arm(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    const due = this.#coalescer.due();
    if (due === undefined) return;
    this.#timer = this.#deps.clock.setTimer(due - this.#deps.clock.now(), () => {
      this.#timer = undefined;
      if (this.#left) return;
      const now = this.#deps.clock.now();
      for (const action of this.#coalescer.flushDue(now))
        void this.#record(action.function, action.args, action.at);
      this.#arm();
    });
  }

  /** Resolves once the step has its index (its place in the trajectory). */
  #record(fn: string, args: Record<string, unknown>, at: number): Promise<void> {
    const indexed = this.#indexes.then(() => takeStepIndex(this.#deps.store, this.#ref, this.sandboxId));
    this.#indexes = indexed.then(
      () => undefined,
      () => undefined,
    );
    this.#queue = this.#queue.then(async () => {
      const index = await indexed.catch((err: unknown) => {
        this.#deps.log.warn({ err, task: this.taskId }, 'collection: no step index (step dropped)');
        return undefined;
      });
      if (index !== undefined) await this.#capture(index, fn, args, at);
    });
    return this.#indexes;
  }

  async #capture(index: number, fn: string, args: Record<string, unknown>, at: number): Promise<void> {
    const { blobs, clock, log } = this.#deps;
    const step: TaskStep = { index, at: new Date(at).toISOString(), function: fn, args };
    try {
      if (!blobs) throw new Error('no blob store');
      const guest = await this.#deps.guest();
      const { png } = await settledScreenshot(() => guest.screenshot({ format: 'png' }), clock.now() - at);
      step.screenshot = await blobs.put(
        `tasks/${this.account}/${this.taskId}/step-${index}.png`,
        Readable.from([png]),
      );
    } catch (err) {
      // The step is kept without its screenshot rather than lost.
      log.warn({ err, task: this.taskId, index }, 'collection: step screenshot failed');
    }
    try {
      await addStep(this.#deps.store, this.#ref, this.sandboxId, step);
    } catch (err) {
      log.warn({ err, task: this.taskId, index }, 'collection: writing the step failed');
    }
  }

  /** The collection stops (or went): what is pending becomes steps, all are written, and this leaves. */
  async leave(): Promise<void> {
    if (this.#left) return this.#queue;
    this.#left = true;
    this.#timer?.cancel();
    for (const action of this.#coalescer.flush()) void this.#record(action.function, action.args, action.at);
    // A stop during a hold_key: the trajectory releases the key (a replay would leave it held).
    for (const keys of this.#apiKeys) void this.#record('key_up', { keys }, this.#deps.clock.now());
    this.#apiKeys.clear();
    await this.#queue;
    await setRecorder(this.#deps.store, this.#ref, this.sandboxId, this.#deps.replica, false).catch(
      (err: unknown) => this.#deps.log.warn({ err, task: this.taskId }, 'collection: could not leave'),
    );
  }
}
