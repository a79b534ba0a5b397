// One write transaction (a group-commit batch) as the store operations see it.
//
// Locked, it runs between BEGIN IMMEDIATE and COMMIT on the write connection and holds SQLite's
// write lock: what it reads is the current committed state of the file, also with other
// processes writing, which is what makes conditional writes (resourceVersion preconditions)
// correct. Unlocked (optimistic), it reads one snapshot without a lock and writes everything in
// one INSERT that only happens if the store's resourceVersion is still the one it read, i.e. if
// nothing at all was written since: the same guarantee, checked at the end instead of held.
//
// Several operations share the transaction. Each runs against an overlay holding what earlier
// operations in the batch wrote, and stages its own changes; `commitOp` assigns their
// resourceVersions, `abortOp` drops them (the operation failed, nothing of it is written).
// Changes reach the file as events (see schema.ts) in one INSERT per flush.
import type { AnyResource } from '../../crds/index.ts';
import type { Connection } from './connection.ts';
import { INSERT_EVENTS, eventTuple, type EventRow } from './schema.ts';

/**
 * Thrown by an optimistic (unlocked) transaction that cannot go on without SQLite's write lock;
 * the batch then runs again under BEGIN IMMEDIATE. Nothing was written.
 */
export class NeedsLock extends Error {
  constructor(why: string) {
    super(`the write needs the lock: ${why}`);
    this.name = 'NeedsLock';
  }
}

export interface RowKey {
  kind: string;
  /** '' for cluster-scoped kinds. */
  ns: string;
  name: string;
}

export function rowId(k: RowKey): string {
  return `${k.kind}\u0000${k.ns}\u0000${k.name}`;
}

export function rowKeyOf(obj: AnyResource, namespaced: boolean): RowKey {
  return { kind: obj.kind, ns: namespaced ? (obj.metadata.namespace ?? '') : '', name: obj.metadata.name };
}

interface Staged {
  type: EventRow['type'];
  key: RowKey;
  obj: AnyResource;
  prevLabels: string | null;
}

const PREFETCH = `
SELECT NULL AS kind, NULL AS ns, NULL AS name, NULL AS data, (SELECT max(rv) FROM events) AS rv
UNION ALL
SELECT o.kind, o.ns, o.name, o.data, o.rv FROM json_each(?) j
JOIN objects o ON o.kind = j.value->>0 AND o.ns = j.value->>1 AND o.name = j.value->>2`;

// The guard of an optimistic flush. SQLite evaluates the subquery once, before the first row is
// inserted (the SELECT reads the table it inserts into, so its rows are materialized first), and
// the statement is atomic: all events are written, or none when another process wrote meanwhile.
const INSERT_EVENTS_IF_UNCHANGED = `${INSERT_EVENTS} WHERE coalesce((SELECT max(rv) FROM events), 0) = ?`;

const READ = 'SELECT data FROM objects WHERE kind = ? AND ns = ? AND name = ?';
const DEPENDENTS = 'SELECT kind, ns, name FROM refs WHERE owner_uid = ?';

export class WriteTransaction {
  readonly #conn: Connection;
  /** Locked: inside BEGIN IMMEDIATE. Not locked: reads outside a transaction, one guarded write. */
  readonly #locked: boolean;
  /** The store's resourceVersion when the transaction read it. */
  readonly #base: number;
  readonly #at: number;
  #rv: number;
  /** State after the operations committed so far: JSON, or null when absent. */
  readonly #overlay = new Map<string, string | null>();
  /** The running operation's changes: the object, or null when it removes it. */
  readonly #stagedState = new Map<string, AnyResource | null>();
  #staged: Staged[] = [];
  #unflushed: EventRow[] = [];
  /** Every event of the transaction, in resourceVersion order, for the watchers after COMMIT. */
  readonly events: EventRow[] = [];

  private constructor(conn: Connection, rv: number, at: number, locked: boolean) {
    this.#conn = conn;
    this.#rv = rv;
    this.#base = rv;
    this.#at = at;
    this.#locked = locked;
  }

  /**
   * Starts the view of a transaction: reads the store's resourceVersion and, in the same query
   * (one snapshot), the current rows of `keys`. `locked`: BEGIN IMMEDIATE was run before.
   */
  static async open(
    conn: Connection,
    keys: RowKey[],
    at: number,
    locked: boolean,
  ): Promise<WriteTransaction> {
    const rows = await conn.all<{
      kind: string | null;
      ns: string;
      name: string;
      data: string;
      rv: number | null;
    }>(PREFETCH, [JSON.stringify(keys.map((k) => [k.kind, k.ns, k.name]))]);
    const head = rows.find((r) => r.kind === null);
    const tx = new WriteTransaction(conn, head?.rv ?? 0, at, locked);
    for (const k of keys) tx.#overlay.set(rowId(k), null);
    for (const r of rows)
      if (r.kind !== null) tx.#overlay.set(rowId({ kind: r.kind, ns: r.ns, name: r.name }), r.data);
    return tx;
  }

  /** The store's resourceVersion including the operations committed so far. */
  get resourceVersion(): number {
    return this.#rv;
  }

  /** The object as this operation sees it (its own staged changes included); a private copy. */
  async read(key: RowKey): Promise<AnyResource | undefined> {
    const id = rowId(key);
    const staged = this.#stagedState.get(id);
    if (staged !== undefined) return staged === null ? undefined : structuredClone(staged);
    let json = this.#overlay.get(id);
    if (json === undefined) {
      // Not touched by this transaction, so the file is current for it: no flush needed.
      const rows = await this.#conn.all<{ data: string }>(READ, [key.kind, key.ns, key.name]);
      json = rows[0]?.data ?? null;
      this.#overlay.set(id, json);
    }
    return json === null ? undefined : (JSON.parse(json) as AnyResource);
  }

  /** Keys of the objects whose ownerReferences name `ownerUid`. */
  async dependents(ownerUid: string): Promise<RowKey[]> {
    if (!this.#locked) throw new NeedsLock('a cascade reads dependents after earlier writes');
    await this.flush(); // refs are maintained by triggers, so earlier operations must be in the file
    return this.#conn.all<RowKey>(DEPENDENTS, [ownerUid]);
  }

  /** Stages a created (no `prev`) or modified object. */
  put(key: RowKey, obj: AnyResource, prev: AnyResource | undefined): void {
    const prevLabels = prev ? JSON.stringify(prev.metadata.labels ?? {}) : null;
    this.#stage({ type: prev ? 'MODIFIED' : 'ADDED', key, obj, prevLabels });
  }

  /** Stages the removal of an object; `obj` is its last state, carried by the DELETED event. */
  remove(key: RowKey, obj: AnyResource): void {
    this.#stage({ type: 'DELETED', key, obj, prevLabels: JSON.stringify(obj.metadata.labels ?? {}) });
  }

  #stage(s: Staged): void {
    this.#staged.push(s);
    this.#stagedState.set(rowId(s.key), s.type === 'DELETED' ? null : s.obj);
  }

  /** Makes the running operation's changes part of the batch and gives them resourceVersions. */
  commitOp(): void {
    for (const s of this.#staged) {
      const rv = ++this.#rv;
      s.obj.metadata.resourceVersion = String(rv);
      const data = JSON.stringify(s.obj);
      const owners = s.obj.metadata.ownerReferences?.map((r) => r.uid);
      const event: EventRow = {
        rv,
        type: s.type,
        kind: s.key.kind,
        ns: s.key.ns,
        name: s.key.name,
        owners: owners?.length ? JSON.stringify(owners) : null,
        prev_labels: s.prevLabels,
        at: this.#at,
        data,
      };
      this.#overlay.set(rowId(s.key), s.type === 'DELETED' ? null : data);
      this.#unflushed.push(event);
      this.events.push(event);
    }
    this.abortOp();
  }

  /** Drops the running operation's staged changes. */
  abortOp(): void {
    this.#staged = [];
    this.#stagedState.clear();
  }

  /** Writes the committed operations' events (and through triggers, the objects) to the file. */
  async flush(): Promise<void> {
    if (this.#unflushed.length === 0) return;
    const rows = this.#unflushed;
    this.#unflushed = [];
    const json = JSON.stringify(rows.map(eventTuple));
    if (this.#locked) {
      await this.#conn.run(INSERT_EVENTS, [json]);
    } else if ((await this.#conn.run(INSERT_EVENTS_IF_UNCHANGED, [json, this.#base])) !== rows.length) {
      // Unlocked, this is the only flush, so nothing of the transaction is in the file.
      throw new NeedsLock('another process wrote since the read');
    }
  }
}
