// Prometheus metrics of the customer API (prom-client), one registry per app: request counts and
// latencies by route, sandbox create outcomes, and the WebSocket proxies' connections and bytes.
// Served on the admin listener (`buildAdminRoutes({ metrics })`), not to customers.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';

export class ApiMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'sandbay_http_requests_total',
    help: 'HTTP requests answered, by method, route and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'sandbay_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
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

  /** Per (method, route, status): the metric children, looked up once (prom-client hashes labels). */
  readonly #children = new Map<
    string,
    { count: Counter.Internal; time: Histogram.Internal<'method' | 'route'> }
  >();

  /**
   * onResponse hook of one route (attached to each route by the app): counts and times its requests
   * by the route pattern (never the raw URL). A callback hook, not async: nothing here waits, and an
   * async hook costs a promise per request.
   */
  observerOf(route: string): onResponseHookHandler {
    return (request, reply, done) => {
      this.#observe(request.method, route, reply.statusCode, reply.elapsedTime);
      done();
    };
  }

  /** onResponse hook of the app: counts the requests no route matched (the routes count their own). */
  observeUnmatched = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    if (request.is404) this.#observe(request.method, 'unmatched', reply.statusCode, reply.elapsedTime);
    done();
  };

  #observe(method: string, route: string, statusCode: number, elapsedMs: number): void {
    const key = `${method} ${route} ${statusCode}`;
    let child = this.#children.get(key);
    if (!child) {
      const status = String(statusCode);
      child = {
        count: this.requests.labels({ method, route, status }),
        time: this.duration.labels({ method, route }),
      };
      this.#children.set(key, child);
      if (route === '/v1/sandboxes' && method === 'POST') this.sandboxCreates.inc({ status }, 0);
    }
    child.count.inc();
    child.time.observe(elapsedMs / 1000);
    if (route === '/v1/sandboxes' && method === 'POST')
      this.sandboxCreates.inc({ status: String(statusCode) });
  }
}
