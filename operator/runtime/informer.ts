// An informer keeps an in-memory copy of one kind: it lists, then watches from the list's
// resourceVersion so that no change is missed, and lists again when the store says that version
// has expired (HTTP 410). Handlers see every add, update and delete; indexes answer "which objects
// have this value" (VMs by Mini, sandboxes by reservation) without scanning the cache.
import { isStoreError, keyOf, type Store, type Watch, type WatchEvent } from '../../store/store.ts';
import type { AnyResource } from '../../crds/index.ts';
import { silentLogger, type Logger } from './logger.ts';
import { compareResourceVersions, reached } from './resource-version.ts';

export interface EventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions {
  store: Store;
  kind: string;
  namespace?: string;
  labelSelector?: string;
  logger?: Logger;
  /** Delay before retrying after a failed list or a broken watch (not after Expired: that re-lists at once). */
  retryDelayMs?: number;
}

export type IndexFn<T> = (obj: T) => string[];

interface Index<T> {
  fn: IndexFn<T>;
  byValue: Map<string, Set<string>>;
}

interface Waiter {
  ready: () => boolean;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class Informer<T extends AnyResource = AnyResource> {
  readonly kind: string;
  readonly #opts: InformerOptions;
  readonly #log: Logger;
  readonly #cache = new Map<string, T>();
  readonly #indexes = new Map<string, Index<T>>();
  readonly #handlers: EventHandler<T>[] = [];
  #waiters: Waiter[] = [];
  #rv: string | undefined;
  #synced = false;
  #stopped = false;
  /** What waits on a stopped informer are rejected with (stop's reason, or that it stopped). */
  #stopReason: Error | undefined;
  #watch: Watch | undefined;
  #started: Promise<void> | undefined;
  #resolveSynced!: () => void;
  readonly #syncedPromise: Promise<void>;
  #relists = 0;

  constructor(opts: InformerOptions) {
    this.kind = opts.kind;
    this.#opts = opts;
    this.#log = (opts.logger ?? silentLogger).child({ informer: opts.kind });
    this.#syncedPromise = new Promise((resolve) => (this.#resolveSynced = resolve));
  }

  /** Adds a handler; once synced, it first sees every cached object as an add. */
  addEventHandler(handler: EventHandler<T>): void {
    this.#handlers.push(handler);
    if (this.#synced) for (const obj of this.#cache.values()) this.#call(() => handler.onAdd?.(obj));
  }

  /** Adds an index; objects already cached are indexed at once. */
  addIndex(name: string, fn: IndexFn<T>): void {
    if (this.#indexes.has(name)) return;
    const index: Index<T> = { fn, byValue: new Map() };
    this.#indexes.set(name, index);
    for (const [key, obj] of this.#cache) this.#indexInsert(index, key, obj);
  }

  /** Objects whose index `name` yields `value`. */
  byIndex(name: string, value: string): T[] {
    const index = this.#indexes.get(name);
    if (!index) throw new Error(`informer ${this.kind}: no index ${name}`);
    const keys = index.byValue.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const key of keys) {
      const obj = this.#cache.get(key);
      if (obj) out.push(obj);
    }
    return out;
  }

  get(key: string): T | undefined {
    return this.#cache.get(key);
  }

  list(): T[] {
    return [...this.#cache.values()];
  }

  get size(): number {
    return this.#cache.size;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** The version of the newest change seen. */
  get resourceVersion(): string | undefined {
    return this.#rv;
  }

  /** Lists performed so far (the first one plus one per expired watch). */
  get relists(): number {
    return this.#relists;
  }

  /** Starts listing and watching; resolves once the first list is cached. */
  start(): Promise<void> {
    if (!this.#started) {
      this.#started = this.#syncedPromise;
      void this.#run();
    }
    return this.#started;
  }

  /**
   * Stops watching; every wait on the cache, now or later, rejects with `reason` (an API closing
   * answers its cut requests with its shutdown error, not an informer's).
   */
  stop(reason?: Error): void {
    this.#stopped = true;
    this.#stopReason = reason;
    this.#watch?.stop();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) {
      clearTimeout(w.timer);
      w.reject(this.#stoppedError());
    }
  }

  #stoppedError(): Error {
    return this.#stopReason ?? new Error(`informer ${this.kind} stopped`);
  }

  /** Resolves once the cache holds every change up to `rv` (read-your-writes after a write). */
  waitForResourceVersion(rv: string | undefined, timeoutMs = 15_000): Promise<void> {
    return this.waitUntil(() => reached(this.#rv, rv), timeoutMs);
  }

  /** Resolves once `ready()` holds; checked now and after every change. */
  waitUntil(ready: () => boolean, timeoutMs = 15_000): Promise<void> {
    if (ready()) return Promise.resolve();
    if (this.#stopped) return Promise.reject(this.#stoppedError());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ready,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          reject(new Error(`informer ${this.kind}: timed out after ${timeoutMs} ms waiting for the cache`));
        }, timeoutMs),
      };
      this.#waiters.push(waiter);
    });
  }

  async #run(): Promise<void> {
    let needList = true;
    while (!this.#stopped) {
      try {
        if (needList) {
          await this.#list();
          needList = false;
        }
        const end = await this.#watchFrom(this.#rv);
        if (this.#stopped) break;
        if (isStoreError(end, 'Expired')) {
          this.#log.info({ resourceVersion: this.#rv }, 'watch expired; listing again');
          needList = true;
          continue;
        }
        if (end === undefined) {
          this.#log.info({}, 'watch ended (store closed)');
          break;
        }
        this.#log.warn({ err: end.message }, 'watch failed; resuming');
      } catch (err) {
        if (this.#stopped) break;
        if (isStoreError(err, 'Expired')) {
          needList = true;
          continue;
        }
        this.#log.warn({ err: err instanceof Error ? err.message : String(err) }, 'list failed; retrying');
      }
      await new Promise((resolve) => setTimeout(resolve, this.#opts.retryDelayMs ?? 500).unref());
    }
  }

  async #list(): Promise<void> {
    const { store, kind, namespace, labelSelector } = this.#opts;
    const result = await store.list<T>(kind, {
      ...(namespace !== undefined && { namespace }),
      ...(labelSelector !== undefined && { labelSelector }),
    });
    if (this.#stopped) return;
    this.#relists++;
    this.#replace(result.items, result.resourceVersion);
    if (!this.#synced) {
      this.#synced = true;
      this.#resolveSynced();
    }
  }

  #watchFrom(rv: string | undefined): Promise<Error | undefined> {
    const { store, kind, namespace, labelSelector } = this.#opts;
    const watch = store.watch<T>(
      kind,
      {
        ...(namespace !== undefined && { namespace }),
        ...(labelSelector !== undefined && { labelSelector }),
        ...(rv !== undefined && { resourceVersion: rv }),
      },
      (event) => this.#onEvent(event),
    );
    this.#watch = watch;
    return watch.done;
  }

  /** Swaps in a fresh list, telling handlers what changed since the cache was last right. */
  #replace(items: T[], rv: string): void {
    const fresh = new Map<string, T>();
    for (const obj of items) fresh.set(keyOf(obj.metadata), obj);
    for (const [key, old] of [...this.#cache]) {
      if (fresh.has(key)) continue;
      this.#remove(key, old);
      this.#emit((h) => h.onDelete?.(old));
    }
    for (const [key, obj] of fresh) {
      const old = this.#cache.get(key);
      if (old && old.metadata.resourceVersion === obj.metadata.resourceVersion) continue;
      this.#put(key, obj, old);
      if (old) this.#emit((h) => h.onUpdate?.(old, obj));
      else this.#emit((h) => h.onAdd?.(obj));
    }
    this.#rv = rv;
    this.#checkWaiters();
  }

  #onEvent(event: WatchEvent<T>): void {
    if (this.#stopped) return;
    const obj = event.object;
    const key = keyOf(obj.metadata);
    const rv = obj.metadata.resourceVersion;
    if (compareResourceVersions(rv, this.#rv) > 0) this.#rv = rv;
    const old = this.#cache.get(key);
    if (event.type === 'DELETED') {
      if (old) {
        this.#remove(key, old);
        this.#emit((h) => h.onDelete?.(obj));
      }
    } else if (!old || compareResourceVersions(rv, old.metadata.resourceVersion) > 0 || !rv) {
      this.#put(key, obj, old);
      if (old) this.#emit((h) => h.onUpdate?.(old, obj));
      else this.#emit((h) => h.onAdd?.(obj));
    }
    this.#checkWaiters();
  }

  #put(key: string, obj: T, old: T | undefined): void {
    if (old) for (const index of this.#indexes.values()) this.#indexDelete(index, key, old);
    this.#cache.set(key, obj);
    for (const index of this.#indexes.values()) this.#indexInsert(index, key, obj);
  }

  #remove(key: string, old: T): void {
    for (const index of this.#indexes.values()) this.#indexDelete(index, key, old);
    this.#cache.delete(key);
  }

  #indexInsert(index: Index<T>, key: string, obj: T): void {
    for (const value of index.fn(obj)) {
      let keys = index.byValue.get(value);
      if (!keys) index.byValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #indexDelete(index: Index<T>, key: string, obj: T): void {
    for (const value of index.fn(obj)) {
      const keys = index.byValue.get(value);
      keys?.delete(key);
      if (keys?.size === 0) index.byValue.delete(value);
    }
  }

  #emit(call: (h: EventHandler<T>) => void): void {
    for (const handler of this.#handlers) this.#call(() => call(handler));
  }

  #call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#log.error({ err: err instanceof Error ? err.message : String(err) }, 'event handler threw');
    }
  }

  #checkWaiters(): void {
    if (this.#waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.#waiters) {
      if (w.ready()) {
        clearTimeout(w.timer);
        w.resolve();
      } else still.push(w);
    }
    this.#waiters = still;
  }
}
