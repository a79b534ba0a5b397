// The customer API's rate limit: requests per key (per client address without one) in fixed
// windows, counted after authentication. Every answer carries `x-ratelimit-limit`,
// `x-ratelimit-remaining` and `x-ratelimit-reset` (seconds left in the window); over the limit the
// request is refused with 429 `rate_limited` and `retry-after`.
// Hand-written instead of @fastify/rate-limit (which it replaces, with the same headers and
// windows): that plugin's hook is async with three awaits per request, 2–2.5 µs of the ~20 µs an
// authenticated GET costs (bench/api.ts --only get); this hook is synchronous. Memory stays bounded
// by dropping expired windows, never live ones (the plugin's LRU forgot live counts past 5,000 keys).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from './errors.ts';

export interface RateLimit {
  /** Requests allowed per key and window. */
  max: number;
  timeWindowMs: number;
}

/** More keys than this with a window open: expired windows are dropped. */
const SWEEP_AT = 10_000;

/** The headers every answer carries, as `admit` gives them. */
export interface RateLimitHeaders {
  'x-ratelimit-limit': string;
  'x-ratelimit-remaining': string;
  'x-ratelimit-reset': string;
}

interface Window {
  start: number;
  count: number;
}

export class RequestRateLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, Window>();
  readonly #limitHeader: string;
  readonly #per: string;

  constructor(limit: RateLimit, now: () => number = Date.now) {
    this.#max = limit.max;
    this.#windowMs = limit.timeWindowMs;
    this.#now = now;
    this.#limitHeader = String(limit.max);
    this.#per = describeWindow(limit.timeWindowMs);
  }

  /**
   * A preValidation hook (after authentication, so that the limit is per key; before the routes'
   * preHandlers, so that a 429 is never recorded as an Idempotency-Key's answer).
   */
  hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.is404) return done();
    const now = this.#now();
    const w = this.#windowOf(request.principal?.keyName ?? request.ip, now);
    const count = ++w.count;
    const resetS = this.#resetS(w, now);
    reply.header('x-ratelimit-limit', this.#limitHeader);
    reply.header('x-ratelimit-remaining', String(count > this.#max ? 0 : this.#max - count));
    reply.header('x-ratelimit-reset', String(resetS));
    if (count <= this.#max) return done();
    const err = new ApiError('rate_limited', `At most ${this.#max} requests per ${this.#per}; retry later.`);
    err.retryAfterS = resetS;
    done(err);
  };

  /**
   * Counts a request of `key` that the limit admits and answers the three headers of its answer;
   * undefined, counting nothing, when the limit would refuse it (the hook then counts and refuses
   * it: api/hot-read.ts answers only what the hook would let through).
   */
  admit(key: string): RateLimitHeaders | undefined {
    const now = this.#now();
    const w = this.#windowOf(key, now);
    if (w.count >= this.#max) return undefined;
    const count = ++w.count;
    return {
      'x-ratelimit-limit': this.#limitHeader,
      'x-ratelimit-remaining': String(this.#max - count),
      'x-ratelimit-reset': String(this.#resetS(w, now)),
    };
  }

  /** The key's window, a new one when there is none or it has run out. */
  #windowOf(key: string, now: number): Window {
    let w = this.#windows.get(key);
    if (w === undefined || w.start + this.#windowMs <= now) {
      if (w === undefined && this.#windows.size >= SWEEP_AT) this.#sweep(now);
      w = { start: now, count: 0 };
      this.#windows.set(key, w);
    }
    return w;
  }

  /** Seconds left in the window. */
  #resetS(w: Window, now: number): number {
    return Math.ceil((w.start + this.#windowMs - now) / 1000);
  }

  #sweep(now: number): void {
    for (const [key, w] of this.#windows) if (w.start + this.#windowMs <= now) this.#windows.delete(key);
  }
}

/** `60000` → `1 minute`, `1000` → `1 second`, `90000` → `90 seconds`. */
function describeWindow(ms: number): string {
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (ms % 3_600_000 === 0) return unit(ms / 3_600_000, 'hour');
  if (ms % 60_000 === 0) return unit(ms / 60_000, 'minute');
  if (ms % 1000 === 0) return unit(ms / 1000, 'second');
  return unit(ms, 'millisecond');
}
