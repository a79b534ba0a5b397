// Failed authentications per client address: a client guessing keys (on the customer listener, the
// admin listener or a WebSocket upgrade) is refused with 429 `too_many_auth_failures` for the rest
// of the window once it has failed `max` times in it. Only the address is counted, never the key
// presented, so a correct key from another address is unaffected. Fixed windows in memory: a
// replica counts its own failures (the limit is per process, which is what a guesser hits).
import { ApiError } from './errors.ts';

export interface AuthFailureLimits {
  /** Failures allowed per address and window; the next attempt is refused. */
  max: number;
  windowMs: number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: AuthFailureLimits = { max: 20, windowMs: 60_000 };

/** More addresses than this in one window: expired windows are dropped (memory stays bounded). */
const SWEEP_AT = 10_000;

export class AuthFailureLimiter {
  readonly #limits: AuthFailureLimits;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; failures: number }>();

  constructor(limits: AuthFailureLimits = DEFAULT_AUTH_FAILURE_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Throws the 429 to answer when `address` used up its failures in the current window. */
  check(address: string): void {
    const retryAfterS = this.retryAfterS(address);
    if (retryAfterS !== undefined) throw tooManyFailures(retryAfterS);
  }

  /** Seconds until `address` may try again, or undefined when it may now. */
  retryAfterS(address: string): number | undefined {
    const w = this.#current(address);
    if (!w || w.failures < this.#limits.max) return undefined;
    return Math.max(1, Math.ceil((w.start + this.#limits.windowMs - this.#now()) / 1000));
  }

  /** Records one failed authentication from `address`. */
  fail(address: string): void {
    const w = this.#current(address);
    if (w) {
      w.failures++;
      return;
    }
    if (this.#windows.size >= SWEEP_AT) this.#sweep();
    this.#windows.set(address, { start: this.#now(), failures: 1 });
  }

  #current(address: string): { start: number; failures: number } | undefined {
    const w = this.#windows.get(address);
    if (w && w.start + this.#limits.windowMs <= this.#now()) {
      this.#windows.delete(address);
      return undefined;
    }
    return w;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [address, w] of this.#windows)
      if (w.start + this.#limits.windowMs <= now) this.#windows.delete(address);
  }
}

/** The refusal, carrying the Retry-After seconds (the error handler sends them as a header). */
export function tooManyFailures(retryAfterS: number): ApiError {
  const err = new ApiError('too_many_auth_failures');
  err.retryAfterS = retryAfterS;
  return err;
}

/** Whether an error is a failed authentication (a key or viewer token that is not valid). */
export function isAuthFailure(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 'invalid_api_key' || err.code === 'invalid_viewer_token');
}
