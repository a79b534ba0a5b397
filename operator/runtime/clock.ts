// Time as the operator sees it. Everything that waits (backoff, requeueAfter, expiry, the idle
// reaper, heartbeats) goes through a Clock so tests can move time instead of waiting for it.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Calls `fn` once, `delayMs` from now (a negative delay means as soon as possible). `keepAlive`:
   * the timer keeps the process alive until it fires (wall clock only).
   */
  setTimer(delayMs: number, fn: () => void, opts?: { keepAlive?: boolean }): Timer;
}

/**
 * The wall clock. Timers are unref'd unless asked to keep the process alive: a pending requeue
 * (possibly hours away) never keeps a process alive by itself.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(delayMs, fn, opts) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    if (!opts?.keepAlive) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};

interface FakeTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told to. `advance(ms)` fires every timer that falls due in order,
 * including timers set by callbacks during the advance, with `now()` equal to each timer's due time.
 */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: FakeTimer[] = [];

  constructor(startMs = Date.parse('2026-01-05T09:00:00.000Z')) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    const timer: FakeTimer = { at: this.#now + Math.max(0, delayMs), seq: this.#seq++, fn, cancelled: false };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward by `ms`, firing due timers. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const next = this.#nextDue(until);
      if (!next) break;
      this.#now = Math.max(this.#now, next.at);
      next.cancelled = true;
      next.fn();
    }
    this.#now = until;
  }

  /** Due time of the earliest live timer, if any. */
  nextTimerAt(): number | undefined {
    return this.#nextDue(Infinity)?.at;
  }

  /** Live timers; tests use it to wait until a component has armed its timer. */
  pendingTimers(): number {
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    return this.#timers.length;
  }

  #nextDue(until: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.#timers) {
      if (t.cancelled || t.at > until) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    return best;
  }
}
