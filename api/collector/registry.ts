// Which sandboxes collect, as this API replica sees them: an informer on the Tasks (whose status
// holds each collection, task-state.ts), indexed by the sandbox they are collected on. The VNC
// proxy hands every viewer input event to the sandbox's collection (if any), and a sandbox's guest
// is wrapped so that the API calls made on it while collecting are recorded too; both go to this
// replica's Recorder of the collection, made on the first event it records. When a collection is
// asked to stop (on any replica) or goes, the replica's recorder writes what it holds and leaves.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Task } from '../../crds/index.ts';
import type { Guest } from '../../hosts/driver.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import type { Clock } from '../../operator/runtime/clock.ts';
import { Informer } from '../../operator/runtime/informer.ts';
import type { Store } from '../../store/store.ts';
import { Recorder } from './collection.ts';
import type { RfbInputEvent } from './rfb-input.ts';
import { recordingGuest } from './recording-guest.ts';
import { recordingOn } from '../../operator/trajectory/task-state.ts';

const BY_SANDBOX = 'collectingOn';

export interface CollectionsDeps {
  store: Store;
  blobs: BlobStore | undefined;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The guest of a sandbox, by account and name (screenshots). */
  guestOf: (account: string, sandboxId: string) => Promise<Guest>;
}

export class Collections {
  /** This replica, as collections name their recorders. */
  readonly replica = `api-${randomBytes(6).toString('hex')}`;
  readonly #deps: CollectionsDeps;
  readonly #tasks: Informer<Task>;
  readonly #recorders = new Map<string, Recorder>();

  static #key(account: string, name: string): string {
    return `${account}/${name}`;
  }

  constructor(deps: CollectionsDeps) {
    this.#deps = deps;
    this.#tasks = new Informer<Task>({ store: deps.store, kind: 'Task', logger: deps.log });
    this.#tasks.addIndex(BY_SANDBOX, (t) => {
      const c = t.status?.collection;
      return c ? [Collections.#key(t.metadata.namespace!, c.sandbox)] : [];
    });
    const check = (t: Task) => {
      for (const [key, r] of this.#recorders) {
        if (r.account !== t.metadata.namespace || r.taskId !== t.metadata.name) continue;
        if (!recordingOn(t, r.sandboxId)) this.#drop(key, r);
      }
    };
    this.#tasks.addEventHandler({ onUpdate: (_old, t) => check(t), onDelete: check });
  }

  /** Starts watching; resolves once the collections in progress are known. */
  start(): Promise<void> {
    return this.#tasks.start();
  }

  /** Stops watching; this replica's recorders write what they hold first. */
  async close(): Promise<void> {
    this.#tasks.stop();
    await Promise.all([...this.#recorders].map(([key, r]) => this.#drop(key, r)));
  }

  /** Resolves once this replica has seen the store at `resourceVersion` (a collection it just wrote). */
  seen(resourceVersion: string | undefined): Promise<void> {
    return this.#tasks.waitForResourceVersion(resourceVersion);
  }

  /** True when this replica sees the sandbox recording (its watch may lag a write by milliseconds). */
  recording(account: string, sandboxId: string): boolean {
    return this.#task(account, sandboxId) !== undefined;
  }

  #task(account: string, sandboxId: string): Task | undefined {
    if (!this.#tasks.hasSynced()) return undefined;
    return this.#tasks
      .byIndex(BY_SANDBOX, Collections.#key(account, sandboxId))
      .find((t) => recordingOn(t, sandboxId));
  }

  /** This replica's recorder of the sandbox's collection, while it records. */
  #recorder(account: string, sandboxId: string): Recorder | undefined {
    const key = Collections.#key(account, sandboxId);
    const task = this.#task(account, sandboxId);
    const current = this.#recorders.get(key);
    if (current && current.taskId === task?.metadata.name && !current.left) return current;
    if (current) this.#drop(key, current);
    if (!task) return undefined;
    const { store, blobs, clock, log, guestOf } = this.#deps;
    const r = new Recorder(account, sandboxId, task.metadata.name, {
      store,
      blobs,
      clock,
      log,
      guest: () => guestOf(account, sandboxId),
      replica: this.replica,
    });
    this.#recorders.set(key, r);
    return r;
  }

  #drop(key: string, r: Recorder): Promise<void> {
    if (this.#recorders.get(key) === r) this.#recorders.delete(key);
    return r.leave();
  }

  /** A viewer's input on a sandbox's VNC connection. */
  input(account: string, sandboxId: string, event: RfbInputEvent): void {
    this.#recorder(account, sandboxId)?.input(event);
  }

  /** The guest API routes drive: recording while the sandbox collects. */
  guest(account: string, sandboxId: string, guest: Guest): Guest {
    return recordingGuest(guest, {
      active: () => this.recording(account, sandboxId),
      call: (fn, args) => this.#recorder(account, sandboxId)?.apiCall(fn, args),
      button: (button, down, at) => this.#recorder(account, sandboxId)?.apiButton(button, down, at),
    });
  }
}
