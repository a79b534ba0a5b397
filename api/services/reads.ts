// The API's reads of the resources every request touches (keys, reservations, sandboxes, Macs),
// served from informers: an in-memory copy kept current by the store's watch, so an authenticated
// request costs no store round trip. Consistency:
// - a miss falls through to the store, so a key or sandbox written a moment ago by someone else
//   (the CLI, another replica) is found before its watch event arrives;
// - a hit may lag the store by one watch delivery (milliseconds), as any Kubernetes client cache;
//   revocations and deletions take effect within that lag;
// - the API's own writes wait until the cache has them (`synced`), so a client that got a 201 or a
//   204 never reads an older state afterwards (read-your-writes).
import type { AnyResource, ApiKey, Mini, Reservation, Sandbox } from '../../crds/index.ts';
import { Informer } from '../../operator/runtime/informer.ts';
import { keyOf, type Store } from '../../store/store.ts';

const CACHED = ['ApiKey', 'Reservation', 'Sandbox', 'Mini'] as const;
type CachedKind = (typeof CACHED)[number];

export class CachedReads {
  readonly #store: Store;
  readonly #informers: Record<CachedKind, Informer>;

  constructor(store: Store) {
    this.#store = store;
    this.#informers = Object.fromEntries(
      CACHED.map((kind) => [kind, new Informer({ store, kind })]),
    ) as Record<CachedKind, Informer>;
  }

  /** Lists and starts watching; resolves once every cache holds the store's current state. */
  async start(): Promise<void> {
    await Promise.all(Object.values(this.#informers).map((i) => i.start()));
  }

  stop(): void {
    for (const i of Object.values(this.#informers)) i.stop();
  }

  apiKey(name: string): Promise<ApiKey | undefined> {
    return this.#get<ApiKey>('ApiKey', name);
  }

  reservation(namespace: string, name: string): Promise<Reservation | undefined> {
    return this.#get<Reservation>('Reservation', name, namespace);
  }

  sandbox(namespace: string, name: string): Promise<Sandbox | undefined> {
    return this.#get<Sandbox>('Sandbox', name, namespace);
  }

  mini(name: string): Promise<Mini | undefined> {
    return this.#get<Mini>('Mini', name);
  }

  /** Cached sandboxes of a namespace (listing pages; may lag like any hit). */
  sandboxesIn(namespace: string): Sandbox[] {
    return (this.#informers.Sandbox.list() as Sandbox[]).filter((s) => s.metadata.namespace === namespace);
  }

  /** Resolves once the cache reflects a write the API made (the object as the store returned it). */
  async synced(obj: AnyResource): Promise<void> {
    const informer = this.#informers[obj.kind as CachedKind];
    if (informer) await informer.waitForResourceVersion(obj.metadata.resourceVersion);
  }

  /** Resolves once the cache no longer holds this object (after a delete that removed it at once). */
  async gone(obj: AnyResource): Promise<void> {
    const informer = this.#informers[obj.kind as CachedKind];
    const key = keyOf(obj.metadata);
    if (informer) await informer.waitUntil(() => informer.get(key)?.metadata.uid !== obj.metadata.uid);
  }

  async #get<T extends AnyResource>(
    kind: CachedKind,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    const informer = this.#informers[kind];
    const hit = informer.hasSynced()
      ? informer.get(namespace === undefined ? name : `${namespace}/${name}`)
      : undefined;
    if (hit) return hit as T;
    return this.#store.get<T>({ kind, name, ...(namespace !== undefined && { namespace }) });
  }
}
