// Prometheus metrics of the customer API (prom-client), one registry per app: request counts and
// latencies by route, sandbox create outcomes, and the WebSocket proxies' connections and bytes.
// Served on the admin listener (`buildAdminRoutes({ metrics })`), not to customers.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { FastHistogram, type HistogramSeries } from './fast-histogram.ts';

export class ApiMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'sandbay_http_requests_total',
    help: 'HTTP requests answered, by method, route and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    // Counted in plain numbers per request and added here, when scraped: prom-client's `inc` hashes
    // and validates the labels on every call, even through a `labels()` child.
    collect: () => this.#flushCounts(),
  });
  readonly duration = new FastHistogram(
    'sandbay_http_request_duration_seconds',
    'Time to answer an HTTP request, by method and route.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    this.registry,
  );
  readonly hotReads = new Counter({
    name: 'sandbay_http_hot_reads_total',
    help: 'GET /v1/sandboxes/{id} answered from memory in front of the router (also counted in sandbay_http_requests_total).',
    registers: [this.registry],
    collect: () => {
      this.hotReads.inc(this.#hotReadsPending);
      this.#hotReadsPending = 0;
    },
  });
  #hotReadsPending = 0;
  readonly loopShareHolds = new Counter({
    name: 'sandbay_loop_share_holds_total',
    help: 'Connections of the key with the most requests not read until the next window, the event loop being contended (api/loop-share.ts).',
    registers: [this.registry],
  });
  readonly sandboxCreates = new Counter({
    name: 'sandbay_sandbox_creates_total',
    help: 'POST /v1/sandboxes outcomes: the status code answered.',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly wsConnections = new Gauge({
    name: 'sandbay_ws_connections',
    help: 'Open WebSocket proxy connections, by kind (vnc, ssh).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly wsBytes = new Counter({
    name: 'sandbay_ws_bytes_total',
    help: 'Bytes relayed by the WebSocket proxies, by kind and direction (to_vm, to_client).',
    labelNames: ['kind', 'direction'] as const,
    registers: [this.registry],
  });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** The children of every route's observer, whose counts `collect` adds to `requests`. */
  readonly #children: Child[] = [];

  /**
   * onResponse hook of one route (attached to each route by the app): counts and times its requests
   * by the route pattern (never the raw URL). A callback hook, not async: nothing here waits, and an
   * async hook costs a promise per request.
   */
  observerOf(route: string): onResponseHookHandler {
    const record = this.recorderOf(route);
    return (request, reply, done) => {
      record(request.method, reply.statusCode, reply.elapsedTime);
      done();
    };
  }

  /** Counts and times one answer of `route` (for answers given outside Fastify: api/hot-read.ts). */
  recorderOf(route: string): (method: string, statusCode: number, elapsedMs: number) => void {
    const children = this.#routeChildren(route);
    return (method, statusCode, elapsedMs) => this.#observe(children, method, statusCode, elapsedMs);
  }

  /** One more answer of the hot read (api/hot-read.ts), added to `hotReads` when scraped. */
  countHotRead(): void {
    this.#hotReadsPending++;
  }

  /** onResponse hook of the app: counts the requests no route matched (the routes count their own). */
  observeUnmatched = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (request.is404) this.#observe(this.#unmatched, request.method, reply.statusCode, reply.elapsedTime);
    done();
  };

  readonly #unmatched = this.#routeChildren('unmatched');

  /** One route's children by method, then status code: no key string is built per request. */
  #routeChildren(route: string): RouteChildren {
    return { route, byMethod: new Map() };
  }

  #observe(children: RouteChildren, method: string, statusCode: number, elapsedMs: number): void {
    let byStatus = children.byMethod.get(method);
    if (!byStatus) children.byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(statusCode);
    if (!child) {
      const { route } = children;
      const status = String(statusCode);
      child = {
        labels: { method, route, status },
        pending: 0,
        time: this.#durationOf(route, method),
      };
      byStatus.set(statusCode, child);
      this.#children.push(child);
      if (route === '/v1/sandboxes' && method === 'POST') this.sandboxCreates.inc({ status }, 0);
    }
    child.pending++;
    child.time.observe(elapsedMs / 1000);
    if (children.route === '/v1/sandboxes' && method === 'POST')
      this.sandboxCreates.inc({ status: String(statusCode) });
  }

  /** One duration series per (route, method), shared by that pair's status codes. */
  readonly #durations = new Map<string, HistogramSeries>();

  #durationOf(route: string, method: string): HistogramSeries {
    const key = `${method} ${route}`;
    let series = this.#durations.get(key);
    if (!series) this.#durations.set(key, (series = this.duration.series({ method, route })));
    return series;
  }

  #flushCounts(): void {
    for (const child of this.#children) {
      if (child.pending === 0) continue;
      this.requests.inc(child.labels, child.pending);
      child.pending = 0;
    }
  }
}

/** The metrics of one (method, route, status): requests counted since the last scrape, the timer. */
interface Child {
  labels: { method: string; route: string; status: string };
  pending: number;
  time: HistogramSeries;
}

interface RouteChildren {
  route: string;
  byMethod: Map<string, Map<number, Child>>;
}
