// The API's reads of the resources requests touch (keys, reservations, sandboxes, Macs, VMs,
// snapshots), served from informers: an in-memory copy kept current by the store's watch, so an
// authenticated request or a create's capacity check costs no store round trip. When the operator
// runs in the same process the API reads the operator's own informers (`sandbay server`): the
// scheduler then sees the same caches whether the API or the reconciler asks. Consistency:
// - a miss falls through to the store, so a key or sandbox written a moment ago by someone else
//   (the CLI, another replica) is found before its watch event arrives;
// - a hit may lag the store by one watch delivery (milliseconds), as any Kubernetes client cache;
//   revocations and deletions take effect within that lag;
// - the API's own writes wait until the cache has them (`synced`), so a client that got a 201 or a
//   204 never reads an older state afterwards (read-your-writes).
import type { AnyResource, ApiKey, Mini, Reservation, Sandbox, Snapshot, VM } from '../../crds/index.ts';
import { createInformers, Indexes, type Informers } from '../../operator/context.ts';
import type { Informer } from '../../operator/runtime/informer.ts';
import { keyOf, type Store } from '../../store/store.ts';

const CACHED = {
  ApiKey: 'apiKeys',
  Reservation: 'reservations',
  Sandbox: 'sandboxes',
  Mini: 'minis',
  VM: 'vms',
  Snapshot: 'snapshots',
} as const satisfies Record<string, keyof Informers>;
export type CachedKind = keyof typeof CACHED;

export class CachedReads {
  readonly #store: Store;
  readonly #informers: Informers;
  /** Whether the informers are this object's own (started and stopped here) or the operator's. */
  readonly #owned: boolean;
  readonly #followers = new Map<CachedKind, Map<string, Set<(obj: AnyResource | undefined) => void>>>();

  /** `informers`: the operator's, already started; without, the API keeps its own. */
  constructor(store: Store, informers?: Informers) {
    this.#store = store;
    this.#owned = informers === undefined;
    this.#informers = informers ?? createInformers(store);
  }

  #cached(): Informer[] {
    return Object.values(CACHED).map((name) => this.#informers[name] as unknown as Informer);
  }

  /**
   * Calls `onChange` with the cached object of `key` (undefined once deleted) after every change of
   * it, until the returned function is called. One handler per kind dispatches by key, so a burst
   * of creates each waiting on its own sandbox costs O(1) per change, not a store watch each
   * (whose every event was offered to every waiting create).
   */
  follow<T extends AnyResource>(
    kind: CachedKind,
    key: string,
    onChange: (obj: T | undefined) => void,
  ): () => void {
    let byKey = this.#followers.get(kind);
    if (!byKey) {
      const followers = new Map<string, Set<(obj: AnyResource | undefined) => void>>();
      byKey = followers;
      this.#followers.set(kind, followers);
      const tell = (obj: AnyResource, gone: boolean) => {
        const set = followers.get(keyOf(obj.metadata));
        if (set) for (const fn of [...set]) fn(gone ? undefined : obj);
      };
      this.#informer(kind)!.addEventHandler({
        onAdd: (obj) => tell(obj, false),
        onUpdate: (_old, obj) => tell(obj, false),
        onDelete: (obj) => tell(obj, true),
      });
    }
    const fn = onChange as (obj: AnyResource | undefined) => void;
    const set = byKey.get(key) ?? new Set();
    set.add(fn);
    byKey.set(key, set);
    return () => {
      set.delete(fn);
      if (set.size === 0 && byKey.get(key) === set) byKey.delete(key);
    };
  }

  /** The cached object of `key`, as it is now (no fall-through to the store). */
  cached<T extends AnyResource>(kind: CachedKind, key: string): T | undefined {
    return this.#informer(kind)!.get(key) as T | undefined;
  }

  /** Lists and starts watching; resolves once every cache holds the store's current state. */
  async start(): Promise<void> {
    await Promise.all(this.#cached().map((i) => i.start()));
  }

  /** Stops the informers this owns; a wait on their cache rejects with `reason` from then on. */
  stop(reason?: Error): void {
    if (this.#owned) for (const i of this.#cached()) i.stop(reason);
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

  vm(name: string): Promise<VM | undefined> {
    return this.#get<VM>('VM', name);
  }

  snapshot(namespace: string, name: string): Promise<Snapshot | undefined> {
    return this.#get<Snapshot>('Snapshot', name, namespace);
  }

  /** Cached sandboxes of a namespace (listing pages; may lag like any hit). */
  sandboxesIn(namespace: string): Sandbox[] {
    return this.#informers.sandboxes.list().filter((s) => s.metadata.namespace === namespace);
  }

  /** Cached reservations of a namespace (a create inferring its reservation; may lag like any hit). */
  reservationsIn(namespace: string): Reservation[] {
    return this.#informers.reservations.list().filter((r) => r.metadata.namespace === namespace);
  }

  /** Cached snapshots of a namespace (quota checks; may lag like any hit). */
  snapshotsIn(namespace: string): Snapshot[] {
    return this.#informers.snapshots.list().filter((s) => s.metadata.namespace === namespace);
  }

  /** Cached Macs of these names, their VMs and the sandboxes placed on them: the scheduler's world. */
  fleetOf(names: Iterable<string>): { minis: Mini[]; vms: VM[]; sandboxes: Sandbox[] } {
    const minis: Mini[] = [];
    const vms: VM[] = [];
    const sandboxes: Sandbox[] = [];
    for (const name of names) {
      const mini = this.#informers.minis.get(name);
      if (mini) minis.push(mini);
      vms.push(...this.#informers.vms.byIndex(Indexes.vmByMini, name));
      sandboxes.push(...this.#informers.sandboxes.byIndex(Indexes.sandboxByMini, name));
    }
    return { minis, vms, sandboxes };
  }

  /** Cached VMs of one Mac. */
  vmsOn(mini: string): VM[] {
    return this.#informers.vms.byIndex(Indexes.vmByMini, mini);
  }

  /** Every cached Mac, VM and sandbox (/health's statistics: memory, no store scan). */
  fleet(): { minis: Mini[]; vms: VM[]; sandboxes: Sandbox[] } {
    const i = this.#informers;
    return { minis: i.minis.list(), vms: i.vms.list(), sandboxes: i.sandboxes.list() };
  }

  /** Resolves once the cache reflects a write the API made (the object as the store returned it). */
  async synced(obj: AnyResource): Promise<void> {
    const informer = this.#informer(obj.kind);
    if (informer) await informer.waitForResourceVersion(obj.metadata.resourceVersion);
  }

  /** Resolves once the cache no longer holds this object (after a delete that removed it at once). */
  async gone(obj: AnyResource): Promise<void> {
    const informer = this.#informer(obj.kind);
    const key = keyOf(obj.metadata);
    if (informer) await informer.waitUntil(() => informer.get(key)?.metadata.uid !== obj.metadata.uid);
  }

  #informer(kind: string): Informer | undefined {
    const name = CACHED[kind as CachedKind];
    return name === undefined ? undefined : (this.#informers[name] as unknown as Informer);
  }

  /**
   * The object when the synced cache holds it, else undefined (then the async reads above decide,
   * falling through to the store): lets a request whose every read is a hit be answered without a
   * promise per read.
   */
  hit<T extends AnyResource>(kind: CachedKind, name: string, namespace?: string): T | undefined {
    const informer = this.#informer(kind)!;
    if (!informer.hasSynced()) return undefined;
    return informer.get(namespace === undefined ? name : `${namespace}/${name}`) as T | undefined;
  }

  async #get<T extends AnyResource>(
    kind: CachedKind,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    const hit = this.hit<T>(kind, name, namespace);
    if (hit) return hit;
    return this.#store.get<T>({ kind, name, ...(namespace !== undefined && { namespace }) });
  }
}
