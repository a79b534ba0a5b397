// The store's event stream, from the `events` table to the watchers.
//
// Consistency model:
// - The hub has seen every event up to `lastRv`, in order, and feeds each watcher in that order.
// - Local writes are published right after their COMMIT (no read). A publish that does not start
//   at lastRv + 1 means another process wrote in between: the missing events are read from the
//   table first. While the hub is reading, later publishes queue behind it, so order holds.
// - Writes of other processes that are not followed by a local one are picked up by a poll of
//   max(rv) while anyone watches.
// - A watch from a resourceVersion registers first (live events buffer), then reads the history
//   after that version from the table, then drains the buffer skipping what the history already
//   had. Every event committed before the read is in the history, every later one in the buffer:
//   no gap, no duplicate.
// - History is compacted: a watch from before the oldest kept event ends with StoreError Expired.
import type { KindDefinition } from '../../crds/index.ts';
import { parseLabelSelector } from '../label-selector.ts';
import { StoreError, type Watch, type WatchEvent, type WatchOptions } from '../store.ts';
import type { Connection } from './connection.ts';
import type { EventRow } from './schema.ts';
import { Watcher } from './watcher.ts';

const EVENT_COLUMNS = 'rv, type, kind, ns, name, owners, prev_labels, at, data';
const RANGE = `SELECT ${EVENT_COLUMNS} FROM events WHERE rv > ? AND rv <= ? ORDER BY rv`;
const HISTORY = `SELECT ${EVENT_COLUMNS} FROM events WHERE rv > ? AND kind = ? ORDER BY rv`;
const HISTORY_NS = `SELECT ${EVENT_COLUMNS} FROM events WHERE rv > ? AND kind = ? AND ns = ? ORDER BY rv`;
const OLDEST = 'SELECT min(rv) AS rv FROM events';
const NEWEST = 'SELECT max(rv) AS rv FROM events';

export class WatchHub {
  readonly #reader: Connection;
  readonly #pollIntervalMs: number;
  #lastRv: number;
  readonly #watchers = new Set<Watcher>();
  #poller: NodeJS.Timeout | undefined;
  /** Jobs (publishes, catch-ups) run one after the other; `#tail` is the last one queued. */
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;
  #closed = false;

  constructor(reader: Connection, lastRv: number, pollIntervalMs: number) {
    this.#reader = reader;
    this.#lastRv = lastRv;
    this.#pollIntervalMs = pollIntervalMs;
  }

  /** Called by the write path after COMMIT with the committed events, in order. */
  publish(events: EventRow[]): void {
    this.#enqueue(() => this.#ingest(events));
  }

  watch(def: KindDefinition, opts: WatchOptions, onEvent: (event: WatchEvent) => void): Watch {
    const ns = def.scope === 'Namespaced' ? opts.namespace : undefined;
    let selector;
    let from: number | undefined;
    let setupError: StoreError | undefined;
    try {
      selector = opts.labelSelector ? parseLabelSelector(opts.labelSelector) : undefined;
      from = opts.resourceVersion === undefined ? undefined : parseVersion(opts.resourceVersion);
    } catch (err) {
      setupError = err as StoreError;
    }
    const filter = { kind: def.kind, ns, selector };
    const watcher = new Watcher(filter, from ?? this.#lastRv, from === undefined, onEvent, (w) =>
      this.#remove(w),
    );
    if (setupError || this.#closed) {
      watcher.end(setupError);
      return watcher;
    }
    this.#watchers.add(watcher);
    this.#startPolling();
    if (from !== undefined)
      void this.#replay(watcher, from).catch((err: unknown) => watcher.end(err as Error));
    return watcher;
  }

  close(): void {
    this.#closed = true;
    for (const w of [...this.#watchers]) w.end(undefined);
  }

  async #replay(w: Watcher, from: number): Promise<void> {
    const { kind, ns } = w.filter;
    const rows = await this.#reader.all<EventRow>(ns === undefined ? HISTORY : HISTORY_NS, [
      from,
      kind,
      ...(ns === undefined ? [] : [ns]),
    ]);
    // Compaction only ever raises the oldest kept version, so if it is still <= from + 1 now,
    // everything after `from` was there when the history above was read.
    const oldest = (await this.#reader.all<{ rv: number | null }>(OLDEST))[0]?.rv ?? null;
    if (oldest !== null && oldest > from + 1) {
      w.end(expired(from, oldest));
      return;
    }
    for (const e of rows) w.deliver(e);
    w.live = true;
    for (const e of w.buffer.splice(0)) w.deliver(e);
  }

  #remove(w: Watcher): void {
    this.#watchers.delete(w);
    if (this.#watchers.size === 0 && this.#poller) {
      clearInterval(this.#poller);
      this.#poller = undefined;
    }
  }

  #startPolling(): void {
    if (this.#poller || this.#pollIntervalMs <= 0) return;
    this.#poller = setInterval(() => {
      if (this.#pending === 0) this.#enqueue(() => this.#catchUpToNewest());
    }, this.#pollIntervalMs);
    this.#poller.unref();
  }

  /** Runs `job` after the queued ones; synchronously when none is queued and it needs no read. */
  #enqueue(job: () => Promise<void> | void): void {
    if (this.#pending === 0) {
      const result = job();
      if (result) this.#track(result);
    } else {
      this.#track(this.#tail.then(job));
    }
  }

  #track(p: Promise<void>): void {
    this.#pending++;
    this.#tail = p
      .catch((err: unknown) => this.#failAll(err instanceof Error ? err : new Error(String(err))))
      .finally(() => this.#pending--);
  }

  #ingest(events: EventRow[]): Promise<void> | void {
    const first = events.find((e) => e.rv > this.#lastRv);
    if (!first) return;
    if (first.rv > this.#lastRv + 1) {
      return this.#catchUp(first.rv - 1).then(() => this.#deliver(events));
    }
    this.#deliver(events);
  }

  async #catchUpToNewest(): Promise<void> {
    if (this.#closed) return;
    const newest = (await this.#reader.all<{ rv: number | null }>(NEWEST))[0]?.rv ?? 0;
    if (newest > this.#lastRv) await this.#catchUp(newest);
  }

  /** Reads events (lastRv, upTo] written by other processes and delivers them. */
  async #catchUp(upTo: number): Promise<void> {
    const from = this.#lastRv;
    const rows = await this.#reader.all<EventRow>(RANGE, [from, upTo]);
    if (rows.length !== upTo - from || rows[0]?.rv !== from + 1) {
      // Compacted by the other process before we read it: these watchers cannot be served gap-free.
      this.#failAll(expired(from, rows[0]?.rv ?? upTo + 1));
      this.#lastRv = upTo;
      return;
    }
    this.#deliver(rows);
  }

  #deliver(events: EventRow[]): void {
    for (const e of events) {
      if (e.rv <= this.#lastRv) continue;
      this.#lastRv = e.rv;
      for (const w of this.#watchers) w.offer(e);
    }
  }

  #failAll(err: Error): void {
    for (const w of [...this.#watchers]) w.end(err);
  }
}

function parseVersion(rv: string): number {
  if (!/^\d{1,15}$/.test(rv)) throw new StoreError('BadRequest', `invalid resourceVersion "${rv}"`);
  return Number(rv);
}

function expired(from: number, oldest: number): StoreError {
  return new StoreError(
    'Expired',
    `resourceVersion ${from} is too old: the history starts at ${oldest - 1}; list again and watch from there`,
  );
}
