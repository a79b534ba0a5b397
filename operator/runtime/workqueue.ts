// A work queue of object keys, like client-go's: a key waiting in the queue is held once however
// often it is added (dedup); a key is processed by one worker at a time (a key re-added while being
// processed runs again once the current run ends); failures retry after a per-key exponential
// backoff; `requeueAfterMs` / `requeueAtMs` schedule the next run; at most `concurrency` keys run at once.
import { systemClock, type Clock, type Timer } from './clock.ts';
import { isTerminalError } from './errors.ts';
import { silentLogger, type Logger } from './logger.ts';

export interface ProcessResult {
  /** Run the key again this long after the run ends (polling the outside world). */
  requeueAfterMs?: number;
  /**
   * Run the key again at this time of the queue's clock (a deadline: expiry, idle timeout). Stays
   * right when the clock moves while the run is in flight, where a deadline passed as
   * `requeueAfterMs` (computed from a `now` read mid-run) would land late by as much as it moved.
   */
  requeueAtMs?: number;
}

export type ProcessFn = (key: string) => Promise<ProcessResult | void>;

/** How a run ended, in controller-runtime's words (its `controller_runtime_reconcile_total` result). */
export type RunOutcome = 'success' | 'error' | 'requeue_after';

/**
 * What a queue reports as it works (client-go's workqueue metrics provider); kept free of any
 * metrics library so the queue stays a plain data structure. Times are wall-clock seconds.
 */
export interface WorkQueueObserver {
  added(): void;
  /** A key waited this long between being queued and its run starting. */
  queued(seconds: number): void;
  /** A run took this long and ended so. */
  processed(outcome: RunOutcome, seconds: number): void;
  /** A failed key was queued again after its backoff. */
  retried(): void;
}

export interface BackoffOptions {
  /** First retry delay. */
  baseMs: number;
  /** Ceiling of the per-key delay. */
  maxMs: number;
}

export interface WorkQueueOptions {
  name: string;
  process: ProcessFn;
  /** Keys processed at once. */
  concurrency?: number;
  backoff?: BackoffOptions;
  /** Time for `requeueAfterMs` and `addAfter` (business time: expiry, reapers). */
  clock?: Clock;
  /**
   * Time for retry backoff (default: `clock`). A failure retries in real time even when business
   * time is injected: the outside world being retried does not run on the injected clock.
   */
  backoffClock?: Clock;
  logger?: Logger;
  /** Hold keys without processing them until `resume()` (a controller waits for its caches). */
  paused?: boolean;
  observer?: WorkQueueObserver;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 5, maxMs: 30_000 };

/** Retry delay after `failures` consecutive failures: base·2^(failures−1), capped. */
export function backoffDelay(failures: number, backoff: BackoffOptions): number {
  const exp = Math.min(failures - 1, 30);
  return Math.min(backoff.baseMs * 2 ** exp, backoff.maxMs);
}

/** FIFO of keys with O(1) push and shift. */
class KeyFifo {
  #items: string[] = [];
  #head = 0;
  push(key: string): void {
    this.#items.push(key);
  }
  shift(): string | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const key = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }
  get length(): number {
    return this.#items.length - this.#head;
  }
  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}

export class WorkQueue {
  readonly name: string;
  readonly #process: ProcessFn;
  readonly #concurrency: number;
  readonly #backoff: BackoffOptions;
  readonly #clock: Clock;
  readonly #backoffClock: Clock;
  readonly #log: Logger;
  readonly #observer: WorkQueueObserver | undefined;
  /** When each key in the FIFO was put there (wall clock, ms), for the time-in-queue metric. */
  readonly #queuedAt = new Map<string, number>();

  readonly #fifo = new KeyFifo();
  /** Keys waiting to run (in the FIFO, or to be re-queued when their current run ends). */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #delayed = new Map<string, { at: number; timer: Timer; clock: Clock }>();
  /** Keys `addCoalesced` will queue when their window closes (kept apart from requeue delays). */
  readonly #coalescing = new Map<string, Timer>();
  readonly #inFlight = new Set<Promise<void>>();
  #shuttingDown = false;
  #paused: boolean;
  #idleWaiters: (() => void)[] = [];

  constructor(opts: WorkQueueOptions) {
    this.name = opts.name;
    this.#process = opts.process;
    this.#concurrency = Math.max(1, opts.concurrency ?? 4);
    this.#backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.#clock = opts.clock ?? systemClock;
    this.#backoffClock = opts.backoffClock ?? this.#clock;
    this.#log = (opts.logger ?? silentLogger).child({ queue: opts.name });
    this.#paused = opts.paused ?? false;
    this.#observer = opts.observer;
  }

  /** Holds keys without starting runs (runs in flight finish) until `resume()`. */
  pause(): void {
    this.#paused = true;
  }

  /** Starts processing the keys held while paused. */
  resume(): void {
    this.#paused = false;
    this.#pump();
  }

  /** Queues a key now. No-op when it is already waiting or the queue is shutting down. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    this.#observer?.added();
    if (this.#processing.has(key)) return; // re-queued when the current run ends
    this.#push(key);
    this.#pump();
  }

  /** Queues a key after a delay; an earlier pending delay for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    this.#addAfter(key, delayMs, this.#clock);
  }

  #addAfter(key: string, delayMs: number, clock: Clock): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    // Delays on two clocks cannot be compared: a delay on another clock than the pending one replaces it.
    const at = clock.now() + delayMs;
    const existing = this.#delayed.get(key);
    if (existing && existing.clock === clock && existing.at <= at) return;
    existing?.timer.cancel();
    const timer = clock.setTimer(delayMs, () => {
      if (this.#delayed.get(key)?.timer === timer) this.#delayed.delete(key);
      this.add(key);
    });
    this.#delayed.set(key, { at, timer, clock });
  }

  /**
   * Queues a key `windowMs` (real time: the backoff clock) after the first of a series of calls, so
   * a burst of changes that concern one key shares one run. A run of the key that starts inside the
   * window covers the series (it reads the caches after every change so far), so the window closes
   * with it. Requeue delays are not touched: this is a separate timer.
   */
  addCoalesced(key: string, windowMs: number): void {
    if (this.#shuttingDown || this.#coalescing.has(key)) return;
    if (windowMs <= 0) return this.add(key);
    // Kept alive, unlike requeues: a change not acted on yet is work that `whenIdle` waits for.
    const timer = this.#backoffClock.setTimer(
      windowMs,
      () => {
        if (this.#coalescing.get(key) !== timer) return;
        this.#coalescing.delete(key);
        this.add(key);
      },
      { keepAlive: true },
    );
    this.#coalescing.set(key, timer);
  }

  /** Queues a key after its backoff delay, and counts the failure. */
  addRateLimited(key: string): void {
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    this.#observer?.retried();
    this.#addAfter(key, backoffDelay(failures, this.#backoff), this.#backoffClock);
  }

  /** Resets the key's backoff: its next failure retries after the base delay again. */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** Consecutive failures of the key so far. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Keys waiting to run now (not counting delayed ones or those running). */
  get length(): number {
    return this.#fifo.length;
  }

  get running(): number {
    return this.#processing.size;
  }

  get delayed(): number {
    return this.#delayed.size;
  }

  /** Keys in an open coalescing window (`addCoalesced`). */
  get coalescing(): number {
    return this.#coalescing.size;
  }

  /** Which keys are in an open coalescing window (what a stuck wait for idle names). */
  get coalescingKeys(): string[] {
    return [...this.#coalescing.keys()];
  }

  /**
   * Resolves when nothing is queued, running or in a coalescing window (a change not acted on yet);
   * delayed keys (requeues, retries) may remain.
   */
  whenIdle(): Promise<void> {
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops accepting keys, drops queued and delayed ones, and resolves once the runs already in
   * flight have finished.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#fifo.clear();
    this.#queuedAt.clear();
    this.#dirty.clear();
    for (const { timer } of this.#delayed.values()) timer.cancel();
    this.#delayed.clear();
    for (const timer of this.#coalescing.values()) timer.cancel();
    this.#coalescing.clear();
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    this.#notifyIdle();
  }

  get isShuttingDown(): boolean {
    return this.#shuttingDown;
  }

  #push(key: string): void {
    this.#fifo.push(key);
    if (this.#observer) this.#queuedAt.set(key, performance.now());
  }

  #pump(): void {
    while (!this.#shuttingDown && !this.#paused && this.#processing.size < this.#concurrency) {
      const key = this.#fifo.shift();
      if (key === undefined) break;
      const at = this.#queuedAt.get(key);
      if (at !== undefined) {
        this.#queuedAt.delete(key);
        this.#observer?.queued((performance.now() - at) / 1000);
      }
      this.#dirty.delete(key);
      this.#processing.add(key);
      const window = this.#coalescing.get(key);
      if (window) {
        window.cancel();
        this.#coalescing.delete(key);
      }
      const run = this.#run(key).finally(() => {
        this.#inFlight.delete(run);
        this.#processing.delete(key);
        if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
        this.#pump();
        this.#notifyIdle();
      });
      this.#inFlight.add(run);
    }
  }

  async #run(key: string): Promise<void> {
    const started = performance.now();
    const took = () => (performance.now() - started) / 1000;
    try {
      const result = await this.#process(key);
      this.forget(key);
      if (result?.requeueAtMs !== undefined) this.addAfter(key, result.requeueAtMs - this.#clock.now());
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
      const waits = result?.requeueAtMs !== undefined || result?.requeueAfterMs !== undefined;
      this.#observer?.processed(waits ? 'requeue_after' : 'success', took());
    } catch (err) {
      this.#observer?.processed('error', took());
      if (isTerminalError(err)) {
        this.forget(key);
        this.#log.warn({ key, err: String(err) }, 'terminal error; not retried');
        return;
      }
      this.addRateLimited(key);
      // Conflicts and waits on a busy host are routine: say so quietly, louder once it persists.
      const failures = this.failures(key);
      const persistent = failures >= 4 && (failures & (failures - 1)) === 0;
      const fields = { key, failures, err: err instanceof Error ? err.message : String(err) };
      if (persistent) this.#log.warn(fields, 'reconcile keeps failing; retrying with backoff');
      else this.#log.debug(fields, 'reconcile failed; retrying with backoff');
    }
  }

  #idle(): boolean {
    const waiting = this.#paused ? 0 : this.#fifo.length + this.#coalescing.size;
    return waiting === 0 && this.#processing.size === 0;
  }

  #notifyIdle(): void {
    if (!this.#idle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
