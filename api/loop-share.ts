// A tenant's share of the server's event loop (issue 29, "a neighbour's latency"). Every call of
// every tenant is served by one event loop; a tenant that keeps it busy (thousands of requests a
// second, the rate limit raised or its 429s) makes every other tenant's call wait behind its
// queue. When the loop is contended (busier than `busyAbove` over a window, with more than one key
// calling), the key that made the most requests gets a limit per window, cut by a third each
// contended window and raised again by a tenth while the loop has room: its connections are not
// read (TCP pushes back on its client) once the window's limit is spent, and read again at the next
// window. Nothing is refused and no request is cut: a held connection's next request waits in its
// socket, and a limit that no longer binds is dropped. A key alone on the server is never held.
//
// Per key (the rate limit's key: the API key's name, or the client's address without one): a
// reservation's key and its account's are two tenants here, as they are two callers.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export interface LoopShareOptions {
  /** Length of a window, in ms. */
  windowMs?: number;
  /** The loop's utilization over a window above which it is contended (0–1). */
  busyAbove?: number;
  /** The loop's utilization over the window just ended (tests: a fixed one). */
  utilization?: () => number;
  /** Called for each connection held (the metric). */
  onHold?: () => void;
}

/** The part of a connection (`net.Socket`) the share uses. */
export interface HeldSocket {
  pause(): unknown;
  resume(): unknown;
  readonly destroyed: boolean;
}

interface Tenant {
  /** Requests that started in this window. */
  started: number;
  /** Window index of its last request. */
  seen: number;
  /** Responses a limited key finishes in a window before its connections are held. */
  limit: number | undefined;
  /** Responses finished in this window. */
  finished: number;
  /** Windows in a row its limit did not bind (no connection held). */
  loose: number;
  /** Connections held until the next window, oldest first. */
  held: HeldSocket[];
}

const DEFAULT_WINDOW_MS = 50;
/**
 * Half busy: at 0.7 a flooding key still held the loop enough to double a neighbour's GET p99
 * (bench/mixed-load.ts, 2.29x; 1.45-1.89x at 0.5).
 */
const DEFAULT_BUSY_ABOVE = 0.5;
/** A key that called within this many windows counts as calling (20 × 50 ms: the last second). */
const ACTIVE_WINDOWS = 20;
/** A contended window cuts the heaviest key's limit to this part of what it finished. */
const CUT = 2 / 3;
/**
 * The lowest limit (200 requests a second at 50 ms windows): a loop busy with work of no key's (a
 * reconcile, a restore) is not made free by starving the key, and the key's calls keep a pace.
 */
const MIN_LIMIT = 10;
/** A window with room raises a limit by this part (and one more request). */
const RAISE = 0.1;
/** A limit that has not bound for this many windows in a row is dropped. */
const LOOSE_WINDOWS = 20;
/** Keys not seen for this many windows are forgotten (memory stays bounded by the keys calling). */
const FORGET_WINDOWS = 200;

export class LoopShare {
  readonly #busyAbove: number;
  readonly #utilization: () => number;
  readonly #tenants = new Map<string, Tenant>();
  #window = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #onHold: () => void;

  constructor(opts: LoopShareOptions = {}) {
    this.#busyAbove = opts.busyAbove ?? DEFAULT_BUSY_ABOVE;
    this.#utilization = opts.utilization ?? loopUtilization();
    this.#onHold = opts.onHold ?? (() => undefined);
    const windowMs = opts.windowMs ?? DEFAULT_WINDOW_MS;
    if (windowMs > 0) {
      this.#timer = setInterval(() => this.tick(), windowMs);
      this.#timer.unref();
    }
  }

  /**
   * A request of `key` on `socket` started; once its response has finished (`done`), the socket is
   * held if the key has spent its window's limit.
   */
  started(key: string): (socket: HeldSocket) => void {
    let t = this.#tenants.get(key);
    if (!t)
      this.#tenants.set(
        key,
        (t = { started: 0, seen: 0, limit: undefined, finished: 0, loose: 0, held: [] }),
      );
    t.started++;
    t.seen = this.#window;
    const tenant = t;
    return (socket) => {
      tenant.finished++;
      if (tenant.limit === undefined || tenant.finished < tenant.limit || socket.destroyed) return;
      socket.pause();
      tenant.held.push(socket);
      this.#onHold();
    };
  }

  /** The window ends: limits follow the loop's load, held connections of the keys with room are read again. */
  tick(): void {
    const now = ++this.#window;
    const busy = this.#utilization() > this.#busyAbove;
    let calling = 0;
    let total = 0;
    let heaviest: Tenant | undefined;
    for (const [key, t] of this.#tenants) {
      if (now - t.seen > FORGET_WINDOWS && t.held.length === 0) {
        this.#tenants.delete(key);
        continue;
      }
      if (now - t.seen <= ACTIVE_WINDOWS) calling++;
      total += t.started;
      if (!heaviest || t.started > heaviest.started) heaviest = t;
    }
    for (const t of this.#tenants.values()) {
      if (busy && calling > 1 && t === heaviest && t.started > total / calling) {
        t.limit = Math.max(MIN_LIMIT, Math.floor(Math.min(t.limit ?? Infinity, t.finished) * CUT));
        t.loose = 0;
      } else if (t.limit !== undefined) {
        t.loose = t.held.length > 0 ? 0 : t.loose + 1;
        t.limit = t.loose >= LOOSE_WINDOWS ? undefined : Math.ceil(t.limit * (1 + RAISE)) + 1;
      }
      t.started = 0;
      t.finished = 0;
      const room = t.limit ?? Infinity;
      for (const socket of t.held.splice(0, Math.min(room, t.held.length))) {
        if (!socket.destroyed) socket.resume();
      }
    }
  }

  /** Every held connection is read again and no window follows (the server is closing). */
  close(): void {
    clearInterval(this.#timer);
    for (const t of this.#tenants.values()) for (const socket of t.held.splice(0)) socket.resume();
  }
}

/** The loop's utilization since the last call. */
function loopUtilization(): () => number {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const window = performance.eventLoopUtilization(now, last);
    last = now;
    return window.utilization;
  };
}
