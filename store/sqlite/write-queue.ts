// Group commit: writes that arrive while a transaction is in flight wait and then share the next
// one. Each write still runs on its own against the transaction (its own checks, its own
// success or StoreError) and is acknowledged only after COMMIT returned, so an acknowledged write
// is durable; one transaction per batch amortizes BEGIN, COMMIT and the fsync over every write in it.
import { StoreError } from '../store.ts';
import { isBusy, type Connection } from './connection.ts';
import type { EventRow } from './schema.ts';
import { WriteTransaction, type RowKey } from './transaction.ts';

export interface WriteOp<R> {
  /** Rows the operation will read first; fetched for the whole batch in one query. */
  keys: RowKey[];
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
    try {
      await this.#begin();
    } catch (err) {
      for (const p of this.#queue.splice(0, MAX_BATCH)) p.reject(err);
      return;
    }
    // Taken after BEGIN returned: writes that arrived meanwhile join this batch.
    const batch = this.#queue.splice(0, MAX_BATCH);
    const outcomes: { ok: boolean; value: unknown }[] = [];
    let tx: WriteTransaction;
    try {
      tx = await WriteTransaction.open(
        this.#conn,
        batch.flatMap((p) => p.op.keys),
        this.#opts.now(),
      );
      for (const p of batch) outcomes.push(await this.#runOne(tx, p.op));
      await tx.flush();
      await this.#maybeCompact(tx.resourceVersion);
      await this.#conn.run('COMMIT');
    } catch (err) {
      // Not a StoreError of one operation: the transaction itself failed. Nothing was written.
      await this.#conn.run('ROLLBACK').catch(() => undefined);
      for (const p of batch) p.reject(err);
      return;
    }
    if (tx.events.length > 0) this.#opts.onCommit(tx.events);
    batch.forEach((p, i) => {
      const o = outcomes[i] as { ok: boolean; value: unknown };
      if (o.ok) p.resolve(o.value);
      else p.reject(o.value);
    });
  }

  async #runOne(tx: WriteTransaction, op: WriteOp<unknown>): Promise<{ ok: boolean; value: unknown }> {
    try {
      const value = await op.run(tx);
      tx.commitOp();
      return { ok: true, value };
    } catch (err) {
      tx.abortOp();
      // Anything but a StoreError (an I/O error, a bug) fails the whole transaction.
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
    const { maxEvents, maxAgeMs } = this.#opts.history;
    const dueByCount = rv - this.#lastCompactionRv >= Math.max(1, Math.floor(maxEvents / 10));
    const dueByAge = maxAgeMs !== undefined && now - this.#lastCompactionAt >= maxAgeMs / 10;
    if (dueByCount || dueByAge) await this.#compact(rv, this.#opts.history, now);
  }

  async #compact(rv: number, policy: HistoryPolicy, now: number): Promise<number> {
    this.#lastCompactionRv = rv;
    this.#lastCompactionAt = now;
    const oldest = policy.maxAgeMs === undefined ? -1 : now - policy.maxAgeMs;
    return this.#conn.run(COMPACT, [rv, policy.maxEvents, oldest]);
  }
}
