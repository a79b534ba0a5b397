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

// The guards of an unlocked flush. SQLite evaluates them once, before the first row is inserted
// (the SELECT reads the table it inserts into, so its rows are materialized first), and the
// statement is atomic: all events are written, or none when another process wrote meanwhile.
const UNCHANGED = 'coalesce((SELECT max(rv) FROM events), 0) = ?';
const ABSENT = `NOT EXISTS (SELECT 1 FROM json_each(?) k
  JOIN objects o ON o.kind = k.value->>0 AND o.ns = k.value->>1 AND o.name = k.value->>2)`;
const INSERT_EVENTS_IF_UNCHANGED = `${INSERT_EVENTS} WHERE ${UNCHANGED}`;
const INSERT_EVENTS_IF_UNCHANGED_AND_ABSENT = `${INSERT_EVENTS} WHERE ${UNCHANGED} AND ${ABSENT}`;

const READ = 'SELECT data FROM objects WHERE kind = ? AND ns = ? AND name = ?';
const DEPENDENTS = 'SELECT kind, ns, name FROM refs WHERE owner_uid = ?';

/**
 * - locked: inside BEGIN IMMEDIATE; reads and writes see and change the current state.
 * - optimistic: one snapshot read without a lock, then one guarded write (see flush).
 * - assumed: no read at all; the keys are assumed absent and the store's resourceVersion the one
 *   this process last wrote, and the guarded write checks both (a batch of creates).
 */
export type TransactionMode = 'locked' | 'optimistic' | 'assumed';

export class WriteTransaction {
  readonly #conn: Connection;
  readonly #mode: TransactionMode;
  /** The store's resourceVersion as read (or assumed) at the start. */
  readonly #base: number;
  readonly #keys: RowKey[];
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

  private constructor(conn: Connection, mode: TransactionMode, keys: RowKey[], rv: number, at: number) {
    this.#conn = conn;
    this.#mode = mode;
    this.#keys = keys;
    this.#rv = rv;
    this.#base = rv;
    this.#at = at;
    for (const k of keys) this.#overlay.set(rowId(k), null);
  }

  /**
   * Starts a locked (after BEGIN IMMEDIATE) or optimistic transaction: reads the store's
   * resourceVersion and, in the same query (one snapshot), the current rows of `keys`.
   */
  static async open(
    conn: Connection,
    mode: 'locked' | 'optimistic',
    keys: RowKey[],
    at: number,
  ): Promise<WriteTransaction> {
    const rows = await conn.all<{
      kind: string | null;
      ns: string;
      name: string;
      data: string;
      rv: number | null;
    }>(PREFETCH, [keyList(keys)]);
    const head = rows.find((r) => r.kind === null);
    const tx = new WriteTransaction(conn, mode, keys, head?.rv ?? 0, at);
    for (const r of rows) {
      if (r.kind !== null) tx.#overlay.set(rowId({ kind: r.kind, ns: r.ns, name: r.name }), r.data);
    }
    return tx;
  }

  /** Starts a transaction that reads nothing: `keys` absent, the store at resourceVersion `rv`. */
  static assume(conn: Connection, keys: RowKey[], rv: number, at: number): WriteTransaction {
    return new WriteTransaction(conn, 'assumed', keys, rv, at);
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
    if (this.#mode !== 'locked') throw new NeedsLock('a cascade reads dependents after earlier writes');
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
    if (this.#mode === 'locked') {
      await this.#conn.run(INSERT_EVENTS, [json]);
      return;
    }
    const written =
      this.#mode === 'optimistic'
        ? await this.#conn.run(INSERT_EVENTS_IF_UNCHANGED, [json, this.#base])
        : await this.#conn.run(INSERT_EVENTS_IF_UNCHANGED_AND_ABSENT, [
            json,
            this.#base,
            keyList(this.#keys),
          ]);
    // Unlocked, this is the only flush, so nothing of the transaction is in the file.
    if (written !== rows.length) throw new NeedsLock('the store changed since it was read');
  }
}

function keyList(keys: RowKey[]): string {
  return JSON.stringify(keys.map((k) => [k.kind, k.ns, k.name]));
}
