// Group commit: writes that arrive while a transaction is in flight wait and then share the next
// one. Each write still runs on its own against the transaction (its own checks, its own
// success or StoreError) and is acknowledged only after its transaction committed, so an
// acknowledged write is durable; one commit per batch amortizes the round trips to the writer's
// worker thread and the fsync over every write in it.
//
// A batch of creates first runs without reading (one guarded INSERT that commits on its own: one
// round trip), any batch then optimistically (read, then the guarded INSERT: two), and finally
// under BEGIN IMMEDIATE … COMMIT (four or more) when another process wrote in between, when an
// operation must read after writing (cascading deletes), or when the history is due for
// compaction. Each attempt that falls through has written nothing.
import { StoreError } from '../store.ts';
import { isBusy, type Connection } from './connection.ts';
import type { EventRow } from './schema.ts';
import { NeedsLock, WriteTransaction, type RowKey } from './transaction.ts';

export interface WriteOp<R> {
  /** Rows the operation will read first; fetched for the whole batch in one query. */
  keys: RowKey[];
  /**
   * The operation only needs its keys to be absent (a create), so a batch of such operations
   * may skip the read and let the write check it.
   */
  createsOnly?: boolean;
  run(tx: WriteTransaction): Promise<R>;
}

export interface HistoryPolicy {
  /** Keep at most this many events (the watch history). */
  maxEvents: number;
  /** Also drop events older than this; undefined: no age limit. */
  maxAgeMs?: number;
}

export interface WriteQueueOptions {
  history: HistoryPolicy;
  now: () => number;
  /** Called after each COMMIT with the transaction's events, before the writers are answered. */
  onCommit: (events: EventRow[]) => void;
}

interface Outcome {
  ok: boolean;
  value: unknown;
}

interface Result {
  tx: WriteTransaction;
  outcomes: Outcome[];
}

interface Pending {
  op: WriteOp<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Bounds a transaction so one huge batch cannot hold the write lock for long. */
const MAX_BATCH = 512;
/** BEGIN IMMEDIATE attempts, each waiting up to the connection's busy timeout. */
const BEGIN_ATTEMPTS = 3;

const COMPACT = 'DELETE FROM events WHERE rv < ?1 AND (rv <= ?1 - ?2 OR at < ?3)';

export class WriteQueue {
  readonly #conn: Connection;
  readonly #opts: WriteQueueOptions;
  #queue: Pending[] = [];
  #draining: Promise<void> | undefined;
  #lastCompactionRv = 0;
  #lastWrittenRv = 0;
  /** The store's resourceVersion after this process's last write; undefined when unsure. */
  #knownRv: number | undefined;
  #lastCompactionAt: number;
  #compactRequests: { policy: HistoryPolicy; dropped: number }[] = [];

  constructor(conn: Connection, opts: WriteQueueOptions) {
    this.#conn = conn;
    this.#opts = opts;
    this.#lastCompactionAt = opts.now();
  }

  submit<R>(op: WriteOp<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ op, resolve: resolve as (v: unknown) => void, reject });
      // A microtask, so that writes issued in the same tick start out in one batch.
      if (!this.#draining) this.#draining = Promise.resolve().then(() => this.#drain());
    });
  }

  /** Applies the history policy (or `policy`) now, in the next transaction; resolves with the events dropped. */
  async compact(policy?: Partial<HistoryPolicy>): Promise<number> {
    const request = { policy: { ...this.#opts.history, ...policy }, dropped: 0 };
    this.#compactRequests.push(request);
    await this.submit({ keys: [], run: async () => undefined });
    return request.dropped;
  }

  /** Resolves once every submitted write is answered. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) await this.#runBatch();
    } finally {
      this.#draining = undefined;
    }
  }

  async #runBatch(): Promise<void> {
    const batch = this.#queue.splice(0, MAX_BATCH);
    let result: Result | undefined;
    try {
      if (!this.#compactionDue()) {
        if (this.#knownRv !== undefined && batch.every((p) => p.op.createsOnly)) {
          result = await this.#runUnlocked(
            batch,
            WriteTransaction.assume(this.#conn, keysOf(batch), this.#knownRv, this.#opts.now()),
          );
        }
        result ??= await this.#runUnlocked(batch, await this.#open('optimistic', batch));
      }
      result ??= await this.#runLocked(batch);
    } catch (err) {
      // Not a StoreError of one operation: the transaction itself failed. Nothing was written.
      this.#knownRv = undefined;
      for (const p of batch) p.reject(err);
      return;
    }
    this.#lastWrittenRv = result.tx.resourceVersion;
    this.#knownRv = result.tx.resourceVersion;
    if (result.tx.events.length > 0) this.#opts.onCommit(result.tx.events);
    batch.forEach((p, i) => {
      const o = result.outcomes[i] as Outcome;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.value);
    });
  }

  /**
   * Without a lock: the transaction has read (optimistic, one round trip) or assumed (none) the
   * state, and writes every event in one autocommit INSERT guarded by "the store is still as read
   * or assumed" (see WriteTransaction.flush). Undefined when the batch needs the lock after all:
   * the store changed in between (another process wrote, or a create's name is taken), or an
   * operation must read after writing (a cascading delete).
   */
  async #runUnlocked(batch: Pending[], tx: WriteTransaction): Promise<Result | undefined> {
    try {
      const outcomes = await this.#runAll(tx, batch);
      await tx.flush();
      return { tx, outcomes };
    } catch (err) {
      if (!(err instanceof NeedsLock || isBusy(err))) throw err;
      this.#knownRv = undefined;
      return undefined;
    }
  }

  /** BEGIN IMMEDIATE … COMMIT: holds SQLite's write lock from the first read to the commit. */
  async #runLocked(batch: Pending[]): Promise<Result> {
    await this.#begin();
    try {
      const tx = await this.#open('locked', batch);
      const outcomes = await this.#runAll(tx, batch);
      await tx.flush();
      await this.#maybeCompact(tx.resourceVersion);
      await this.#conn.run('COMMIT');
      return { tx, outcomes };
    } catch (err) {
      await this.#conn.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  #open(mode: 'locked' | 'optimistic', batch: Pending[]): Promise<WriteTransaction> {
    return WriteTransaction.open(this.#conn, mode, keysOf(batch), this.#opts.now());
  }

  async #runAll(tx: WriteTransaction, batch: Pending[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const p of batch) outcomes.push(await this.#runOne(tx, p.op));
    return outcomes;
  }

  async #runOne(tx: WriteTransaction, op: WriteOp<unknown>): Promise<Outcome> {
    try {
      const value = await op.run(tx);
      tx.commitOp();
      return { ok: true, value };
    } catch (err) {
      tx.abortOp();
      // Anything but a StoreError (NeedsLock, an I/O error, a bug) ends the whole transaction.
      if (!(err instanceof StoreError)) throw err;
      return { ok: false, value: err };
    }
  }

  async #begin(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#conn.run('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if (!isBusy(err) || attempt >= BEGIN_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Trims the history every tenth of `maxEvents` writes (so the table stays within 110% of it)
   * and at least every tenth of `maxAgeMs`, inside the batch's transaction.
   */
  async #maybeCompact(rv: number): Promise<void> {
    const now = this.#opts.now();
    for (const request of this.#compactRequests.splice(0)) {
      request.dropped = await this.#compact(rv, request.policy, now);
    }
    if (this.#compactionDue(rv)) await this.#compact(rv, this.#opts.history, now);
  }

  /** Whether the history needs trimming; `rv` defaults to the last version this process wrote. */
  #compactionDue(rv = this.#lastWrittenRv): boolean {
    const { maxEvents, maxAgeMs } = this.#opts.history;
    if (this.#compactRequests.length > 0) return true;
    if (rv - this.#lastCompactionRv >= Math.max(1, Math.floor(maxEvents / 10))) return true;
    return maxAgeMs !== undefined && this.#opts.now() - this.#lastCompactionAt >= maxAgeMs / 10;
  }

  async #compact(rv: number, policy: HistoryPolicy, now: number): Promise<number> {
    this.#lastCompactionRv = rv;
    this.#lastCompactionAt = now;
    const oldest = policy.maxAgeMs === undefined ? -1 : now - policy.maxAgeMs;
    return this.#conn.run(COMPACT, [rv, policy.maxEvents, oldest]);
  }
}

function keysOf(batch: Pending[]): RowKey[] {
  return batch.flatMap((p) => p.op.keys);
}
