// The hot read: GET /v1/sandboxes/{id} answered in front of Fastify's router when everything its
// answer needs is in memory. Clients poll this route (SDK waits, dashboards, agents checking their
// sandbox), and on it Fastify's per-request machinery (request and reply objects, the router, four
// hook stages, params validation, the response listeners) cost more than the route's own work:
// measured with bench/api.ts, the route through Fastify served 53–55% of a bare Fastify route's
// rate on this 2-core machine, and 79–89% answered here (bench/README.md, issue 10).
//
// It is the same route, not a second one: it answers only the plain 200 that the Fastify route
// would give, with the same pieces (the auth hook's cache-hit check, the rate limiter, the request
// id, the route's cached sandbox, viewer link and serialized body, the activity touch, the route's
// metrics and the request log lines), and hands everything else to Fastify untouched: HEAD, a
// query, a body, anything not a canonical sandbox id, a key the cache does not hold or refuses, a
// dashboard session, an address over its failed-auth limit, a request the rate limit would refuse,
// a sandbox not cached or not the caller's, a body not yet serialized for this version of the
// sandbox (the route then serializes it, and the next poll is answered here), and every request
// once the server is closing. test/hot-read.test.ts checks the answers byte for byte against the
// route's.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { SANDBOX_ID } from '../crds/index.ts';
import { cachedPrincipalOfHeader } from './auth.ts';
import type { AuthFailureLimiter } from './auth-failures.ts';
import type { ApiMetrics } from './metrics.ts';
import type { RequestRateLimiter } from './rate-limit.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { logCompleted, logIncoming } from './request-logs.ts';
import type { ApiContext } from './services/context.ts';
import { knownInfoJson } from './services/info-json.ts';
import { cachedSandbox, cachedVncUrl } from './services/sandboxes.ts';
import { SANDBOX_INFO_CONTENT_TYPE } from './routes/sandboxes.ts';

/** Answers the request and returns true, or returns false having done nothing (Fastify answers). */
export type HotRead = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface HotReadOptions {
  ctx: ApiContext;
  /** The app's rate limiter; none: the app has no rate limit. */
  limiter: RequestRateLimiter | undefined;
  failures: AuthFailureLimiter | undefined;
  metrics: ApiMetrics;
  /** The app's logger; none: no request logs (as Fastify without a logger). */
  log: FastifyBaseLogger | undefined;
  /** True once the app is closing: Fastify then answers every request (503 to new ones). */
  closing: () => boolean;
}

/** The route this answers, as Fastify names it (metrics label). */
const HOT_READ_ROUTE = '/v1/sandboxes/:sandboxID';
const PREFIX = '/v1/sandboxes/';

export function hotSandboxRead(opts: HotReadOptions): HotRead {
  const { ctx, limiter, failures, metrics, log, closing } = opts;
  const record = metrics.recorderOf(HOT_READ_ROUTE);
  return (req, res) => {
    if (req.method !== 'GET' || closing()) return false;
    const started = performance.now();
    const url = req.url!;
    if (!url.startsWith(PREFIX)) return false;
    // The route's params schema: anything else (a query, a trailing slash) is Fastify's to answer.
    const id = url.slice(PREFIX.length);
    if (!SANDBOX_ID.test(id)) return false;
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      return false;
    // The auth hook's order: the address's failed-auth limit, then the key.
    const ip = req.socket.remoteAddress;
    if (failures && (ip === undefined || failures.retryAfterS(ip) !== undefined)) return false;
    const principal = cachedPrincipalOfHeader(
      ctx.reads,
      req.headers.authorization,
      ctx.clock.now(),
      req.socket,
    );
    if (!principal) return false;
    // The route's handler: the caller's sandbox, its viewer link and its serialized info.
    const sandbox = cachedSandbox(ctx, principal, id);
    if (!sandbox) return false;
    const link = cachedVncUrl(ctx, sandbox);
    if (link === undefined) return false;
    const info = knownInfoJson(sandbox, link);
    if (!info) return false;
    // Counted only when answered here; a request the limit refuses is counted by Fastify's hook.
    const limits = limiter?.admit(principal.keyName);
    if (limiter && !limits) return false;

    const reqId = requestIdOf(req);
    // As Fastify binds it to `request.log` (a child per request, whatever the level).
    const reqLog = log?.child({ reqId });
    if (reqLog) logIncoming(reqLog, 'GET', url);
    void ctx.activity.touch(sandbox.metadata.namespace!, sandbox.metadata.name);
    // Fastify's order: the request id (onRequest), the rate limit (preValidation), then the body's.
    res.writeHead(200, {
      [REQUEST_ID_HEADER]: reqId,
      ...limits,
      'content-type': SANDBOX_INFO_CONTENT_TYPE,
      'content-length': info.bytes,
    });
    res.end(info.json);
    const elapsed = performance.now() - started;
    record('GET', 200, elapsed);
    metrics.countHotRead();
    if (reqLog) logCompleted(reqLog, 200, elapsed);
    return true;
  };
}

/**
 * Fastify's `serverFactory`: the HTTP/1 server Fastify would make (its four settings, as
 * fastify/lib/server.js sets them; the customer app passes no `http` options), with `front` asked
 * first for every request.
 */
export function serverWithFront(front: {
  /** Asked first; none: every request goes to Fastify. */
  hotRead?: HotRead;
  /** Sees every request before it is answered (the loop share, api/loop-share.ts). */
  observe?: (req: IncomingMessage, res: ServerResponse) => void;
}): (handler: (req: IncomingMessage, res: ServerResponse) => void, options: FastifyServerOptions) => Server {
  return (handler, options) => {
    const server = createServer((req, res) => {
      front.observe?.(req, res);
      if (front.hotRead?.(req, res)) return;
      handler(req, res);
    });
    server.keepAliveTimeout = options.keepAliveTimeout!;
    server.requestTimeout = options.requestTimeout!;
    server.setTimeout(options.connectionTimeout!);
    if (options.maxRequestsPerSocket !== undefined && options.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    return server;
  };
}
