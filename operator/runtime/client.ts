// The client reconcilers read and write through. Reads come from informer caches; every write goes
// to the store and then waits until the informer of that kind has seen it, so that the next
// reconcile never acts on a cache older than its own last write (no duplicate creates from a stale
// read). Correctness against other writers still rests on resourceVersion preconditions.
import { keyOf, type DeleteOptions, type ObjectKey, type Store } from '../../store/store.ts';
import type { AnyResource } from '../../crds/index.ts';
import type { Informer } from './informer.ts';

export class Client {
  readonly store: Store;
  readonly #informers = new Map<string, Informer>();

  constructor(store: Store, informers: Informer[] = []) {
    this.store = store;
    for (const inf of informers) this.#informers.set(inf.kind, inf);
  }

  addInformer(informer: Informer): void {
    this.#informers.set(informer.kind, informer);
  }

  informer<T extends AnyResource>(kind: string): Informer<T> {
    const inf = this.#informers.get(kind);
    if (!inf) throw new Error(`client: no informer for ${kind}`);
    return inf as unknown as Informer<T>;
  }

  /** Cached read. */
  get<T extends AnyResource>(kind: string, key: string): T | undefined {
    return this.informer<T>(kind).get(key);
  }

  async create<T extends AnyResource>(obj: T): Promise<T> {
    return this.#synced(await this.store.create(obj));
  }

  async update<T extends AnyResource>(obj: T): Promise<T> {
    return this.#synced(await this.store.update(obj));
  }

  async updateStatus<T extends AnyResource>(obj: T): Promise<T> {
    return this.#synced(await this.store.updateStatus(obj));
  }

  async patch<T extends AnyResource>(
    key: ObjectKey,
    mergePatch: unknown,
    opts?: { subresource?: 'status'; resourceVersion?: string },
  ): Promise<T> {
    return this.#synced(await this.store.patch<T>(key, mergePatch, opts));
  }

  /** Deletes; resolves once the cache shows the deletion (timestamp set, or the object gone). */
  async delete<T extends AnyResource>(key: ObjectKey, opts?: DeleteOptions): Promise<T | undefined> {
    const inf = this.#informers.get(key.kind);
    const before = inf?.get(keyOf(key));
    const after = await this.store.delete<T>(key, opts);
    if (after) return this.#synced(after);
    if (inf && before) {
      const cacheKey = keyOf(key);
      await inf.waitUntil(() => inf.get(cacheKey)?.metadata.uid !== before.metadata.uid);
    }
    return undefined;
  }

  async #synced<T extends AnyResource>(obj: T): Promise<T> {
    const inf = this.#informers.get(obj.kind);
    if (inf) await inf.waitForResourceVersion(obj.metadata.resourceVersion);
    return obj;
  }
}
