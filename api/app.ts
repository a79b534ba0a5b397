// The customer API: `buildCustomerApp(opts)` assembles the Fastify app (server.ts listens), and
// `buildAdminRoutes(opts)` gives the spec's /admin/* views (and /metrics) as a plugin for the admin
// listener. Lifecycle calls write resources and wait for their status; control calls go straight to
// the sandbox's VM through its host driver. See docs/api.md for every decision the spec leaves open.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyRequest,
  type onRequestHookHandler,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Store } from '../store/store.ts';
import type { BlobStore } from '../operator/blob-store.ts';
import { systemClock, type Clock } from '../operator/runtime/clock.ts';
import { authHook, cachedPrincipalOfHeader, routeAuthOf, type RouteAuth } from './auth.ts';
import { AuthFailureLimiter, DEFAULT_AUTH_FAILURE_LIMITS, type AuthFailureLimits } from './auth-failures.ts';
import { ApiError, errorHandler, notFoundHandler } from './errors.ts';
import { clientErrorHandler, OwedAnswers } from './client-errors.ts';
import { sweepExpiredRecords } from './idempotency.ts';
import { replicaIdentity, ReplicaHeartbeat } from './replica-lease.ts';
import type { RecordingQuota, SnapshotQuota } from './services/quotas.ts';
import type { BlobQuota } from './services/quota-limits.ts';
import type { UrlFetchPolicy } from '../operator/evaluation/fetch-url.ts';
import { blobRoutes } from './routes/blobs.ts';
import { evaluationRoutes } from './routes/evaluation.ts';
import { storageGuardHook, writesToDataDir, type StorageGuardOptions } from './storage-guard.ts';
import { ApiMetrics } from './metrics.ts';
import { hotSandboxRead, serverWithFront, type HotRead } from './hot-read.ts';
import { LoopShare, type LoopShareOptions } from './loop-share.ts';
import { RequestLogs } from './request-logs.ts';
import { recordRoutes } from './route-table.ts';
import { openApiRoute, registerOpenApi } from './openapi.ts';
import { actRoutes } from './routes/act.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { RequestRateLimiter, type RateLimit } from './rate-limit.ts';
import { accountKeyRoutes } from './routes/account-keys.ts';
import { accountRoutes } from './routes/account.ts';
import { platformEventRoutes } from './routes/platform-events.ts';
import { sessionRoutes } from './routes/session.ts';
import { PlatformFeed } from './services/platform-feed.ts';
import { dashboardKeys } from './dashboard/secrets.ts';
import { Sessions } from './dashboard/sessions.ts';
import { adminRoutes } from './routes/admin.ts';
import { connectivityRoutes } from './routes/connectivity.ts';
import { clipboardRoutes } from './routes/clipboard.ts';
import { portRoutes } from './routes/ports.ts';
import { displayRoutes } from './routes/display.ts';
import { execRoutes } from './routes/exec.ts';
import { execAxRoutes } from './compat/use-computer/exec-ax.ts';
import { taskImportRoutes } from './compat/task-imports.ts';
import { evaluationRunRoutes } from './routes/evaluation-runs.ts';
import { cuaRoutes } from './compat/cua/routes.ts';
import { fileRoutes } from './routes/files.ts';
import { healthRoutes } from './routes/health.ts';
import { keyboardRoutes } from './routes/keyboard.ts';
import { mouseRoutes } from './routes/mouse.ts';
import { platformRoutes } from './routes/platforms.ts';
import { recordingRoutes } from './routes/recordings.ts';
import { reservationRoutes } from './routes/reservations.ts';
import { isOccupied } from './services/reservations.ts';
import { sandboxRoutes } from './routes/sandboxes.ts';
import { networkRoutes } from './routes/network.ts';
import { forkRoutes } from './routes/forks.ts';
import { pauseRoutes } from './routes/pauses.ts';
import { screenshotRoutes } from './routes/screenshots.ts';
import { snapshotRoutes } from './routes/snapshots.ts';
import { taskRoutes } from './routes/tasks.ts';
import { taskEditRoutes } from './routes/task-edits.ts';
import { taskHarborRoutes } from './routes/task-harbor.ts';
import { collectionRoutes } from './routes/collections.ts';
import { Collections } from './collector/registry.ts';
import { guestOfId } from './services/guests.ts';
import { viewerTokenRoutes } from './routes/viewer-token.ts';
import { ActivityTracker } from './services/activity.ts';
import { CachedReads } from './services/reads.ts';
import type { Informers } from '../operator/context.ts';
import type { ApiContext, Drivers, OperatorHooks } from './services/context.ts';
import { validatorCompiler } from './validation.ts';
import { ViewerTokens } from './viewer-token.ts';
import { attachWebSocketProxies, type WebSocketProxies } from './ws/upgrade.ts';
import type { WsLimits } from './ws/live-sessions.ts';

export interface CustomerAppOptions {
  store: Store;
  /** Host drivers by kind; control calls reach a sandbox through its Mini's driver. */
  drivers: Drivers;
  /** Optional callbacks into an in-process operator, called after the API writes a resource. */
  operatorHooks?: OperatorHooks;
  clock?: Clock;
  /** A pino logger; none: the app logs nothing. */
  logger?: FastifyBaseLogger;
  /** Identifies this process's boot (idempotency: a restart releases requests in flight). */
  bootId: string;
  /**
   * This API replica: an id unique among live API processes on the store (default: POD_NAME, else
   * the hostname) and its Lease's duration (default 15 s). See replica-lease.ts.
   */
  replica?: { id?: string; leaseDurationMs?: number };
  /** The gateway environment idempotency keys are scoped to (e.g. `production`). */
  environment: string;
  /** Signs viewer tokens; at least 32 bytes, the same on every replica. Default: random per process. */
  viewerSecret?: Buffer;
  /**
   * Seals account keys at rest and signs dashboard session cookies; at least 32 bytes, the same on
   * every replica. Default: random per process (sessions and sealed keys die with it).
   */
  dashboardSecret?: Buffer;
  /** Requests per key (per client IP without a key) and window; `false` turns the limit off. */
  rateLimit?: RateLimit | false;
  /** Snapshots an account may keep (count; bytes before a new capture). */
  snapshotQuota?: SnapshotQuota;
  /** Recordings an account's running sandboxes may hold (count; bytes before a new one). */
  recordingQuota?: RecordingQuota;
  /** Blobs an account may upload for setup steps (count; bytes before a new one). */
  blobQuota?: BlobQuota;
  /**
   * What URLs `download` setup steps may fetch: public addresses only, unless `allow` names more
   * (CIDRs; docs/evaluation.md). The operator takes the same for replays (`settings.setupFetch`).
   */
  setupFetch?: UrlFetchPolicy;
  /** Refuse snapshots, recordings and uploads while the data directory's disk is nearly full. */
  storageGuard?: StorageGuardOptions;
  /** Failed authentications per client address and window (keys and viewer tokens); `false`: off. */
  authFailureLimits?: AuthFailureLimits | false;
  /** Open VNC/SSH WebSockets per sandbox, account and credential (default DEFAULT_WS_LIMITS); `false`: off. */
  wsLimits?: WsLimits | false;
  /**
   * Answer GET /v1/sandboxes/{id} from memory in front of Fastify's router when its whole answer is
   * cached (api/hot-read.ts). Default true; false: every request goes through Fastify.
   */
  hotReads?: boolean;
  /**
   * A key's share of the event loop while it is contended (api/loop-share.ts); `false`: off.
   * Default on, with its own window and threshold.
   */
  loopShare?: Omit<LoopShareOptions, 'onHold'> | false;
  /** Largest JSON body. Default 1 MiB. */
  bodyLimitBytes?: number;
  /** Largest file or archive upload. Default 2 GiB. */
  uploadLimitBytes?: number;
  /** Shared with `buildAdminRoutes({ metrics })` so the admin listener serves them. */
  metrics?: ApiMetrics;
  /** Reported by /health. */
  version?: string;
  /** The operator's blob store: task screenshots and recordings (trajectory downloads). */
  blobs?: BlobStore;
  /**
   * On close, how long requests in flight may still finish (default 5 s). Then waits on reconcilers
   * end with 503 `server_shutting_down` and every connection still open is cut: the requests on them
   * are abandoned (`app.abandoned` lists them).
   */
  shutdownGraceMs?: number;
  /** Live Idempotency-Keys per account (24 h each). Default 10 000. */
  idempotencyRecordsPerAccount?: number;
  /**
   * The operator's informers, started, when it runs in this process: the API then reads the same
   * caches the reconcilers schedule with. Without, the API keeps caches of its own.
   */
  informers?: Informers;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { max: 6000, timeWindowMs: 60_000 };
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;
const IDEMPOTENCY_SWEEP_MS = 10 * 60 * 1000;
/** After the grace, how long handlers have to answer their aborted waits before connections are cut. */
const CUT_AFTER_ABORT_MS = 500;

declare module 'fastify' {
  interface FastifyInstance {
    /** The customer API's metrics (pass to `buildAdminRoutes`). */
    apiMetrics: ApiMetrics;
    /** This replica's view of the collections in progress (kept in the store). */
    collections: Collections;
    /** The open VNC/SSH WebSocket sessions (one leaves once the server has ended it and freed its slot). */
    wsProxies: WebSocketProxies;
    /** The requests a close cut off once its grace period was over (`METHOD url`), for its report. */
    abandoned: string[];
  }
}

export async function buildCustomerApp(opts: CustomerAppOptions): Promise<FastifyInstance> {
  const clock = opts.clock ?? systemClock;
  // Set once the routes' pieces exist (below); asked first for every request (api/hot-read.ts).
  const front: { hotRead?: HotRead; observe?: (req: IncomingMessage, res: ServerResponse) => void } = {};
  // Answers still owed per connection: a refusal of bytes after a request waits behind its answer.
  const owedAnswers = new OwedAnswers();
  const app = Fastify({
    // Without a logger nothing is logged, and the request log lines are not even built.
    ...(opts.logger ? { loggerInstance: opts.logger, logController: new RequestLogs() } : { logger: false }),
    serverFactory: serverWithFront(front),
    genReqId: requestIdOf,
    requestIdHeader: false,
    bodyLimit: opts.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: clientErrorHandler(owedAnswers),
    frameworkErrors: errorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // First of the preClose hooks, run as the close begins (Fastify answers 503 from then on): the
  // hot read stops answering at the same moment, and the idempotency sweep stops rescheduling.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  recordRoutes(app);
  owedAnswers.track(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  setJsonParser(app);

  const shutdown = new AbortController();
  const metrics = opts.metrics ?? new ApiMetrics();
  app.decorate('apiMetrics', metrics);
  // This replica's Lease first: once a request claims a key, other replicas can see it runs.
  const replica = replicaIdentity(opts.bootId, opts.replica);
  const heartbeat = new ReplicaHeartbeat(opts.store, clock, replica, (err) =>
    app.log.warn({ err, replica: replica.id }, 'replica lease not renewed'),
  );
  await heartbeat.start();
  const reads = new CachedReads(opts.store, opts.informers);
  await reads.start();
  // Collections are kept in the store; this replica records the input and calls it serves into them.
  const collections = new Collections({
    store: opts.store,
    blobs: opts.blobs,
    clock,
    log: app.log,
    guestOf: (account, sandboxId) => guestOfId(ctx, account, sandboxId),
  });
  await collections.start();
  app.decorate('collections', collections);
  const keys = dashboardKeys(opts.dashboardSecret ?? randomBytes(32));
  const sessions = new Sessions(keys.session);
  const failureLimits = opts.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS;
  const authFailures = failureLimits ? new AuthFailureLimiter(failureLimits) : undefined;
  const ctx: ApiContext = {
    store: opts.store,
    reads,
    drivers: opts.drivers,
    clock,
    viewerTokens: new ViewerTokens(opts.viewerSecret ?? randomBytes(32)),
    dashboardKeys: keys,
    sessions,
    ...(authFailures && { authFailures }),
    activity: new ActivityTracker(opts.store, clock, app.log),
    bootId: opts.bootId,
    replica,
    environment: opts.environment,
    shutdown: shutdown.signal,
    collections,
    ...(opts.operatorHooks && { operatorHooks: opts.operatorHooks }),
    ...(opts.snapshotQuota && { snapshotQuota: opts.snapshotQuota }),
    ...(opts.recordingQuota && { recordingQuota: opts.recordingQuota }),
    ...(opts.blobQuota && { blobQuota: opts.blobQuota }),
    ...(opts.setupFetch && { setupFetch: opts.setupFetch }),
    ...(opts.idempotencyRecordsPerAccount !== undefined && {
      idempotencyRecordsPerAccount: opts.idempotencyRecordsPerAccount,
    }),
  };

  // Callback hooks where nothing is awaited: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.addHook('onResponse', metrics.observeUnmatched);
  // The hooks that depend on the route are attached to each route as it is added, so that a request
  // pays only for what its route needs and nothing is decided per request: authentication unless
  // the route is public, then the storage guard on the routes that write to the data directory;
  // the rate limit (after authentication, so that it counts per key; before the routes'
  // preHandlers, so that a 429 is never recorded as an Idempotency-Key's answer); the metrics.
  const limit = opts.rateLimit === undefined ? DEFAULT_RATE_LIMIT : opts.rateLimit;
  const limiter = limit ? new RequestRateLimiter(limit) : undefined;
  const guard = opts.storageGuard && storageGuardHook(opts.storageGuard);
  const authHooks = new Map<RouteAuth, onRequestHookHandler>();
  const authFor = (auth: Exclude<RouteAuth, 'public'>): onRequestHookHandler => {
    let hook = authHooks.get(auth);
    if (!hook) authHooks.set(auth, (hook = authHook(auth, reads, () => clock.now(), authFailures, sessions)));
    return hook;
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const auth = routeAuthOf(route.url, route.config as { auth?: RouteAuth } | undefined);
    const first: onRequestHookHandler[] = [
      ...(auth === 'public' ? [] : [authFor(auth)]),
      ...(guard && methods.some((m) => writesToDataDir(m, route.url)) ? [guard] : []),
    ];
    // New arrays, never pushed into: Fastify copies a GET route's options for its HEAD route.
    route.onRequest = [...first, ...hooksOf(route.onRequest)];
    if (limiter) route.preValidation = [limiter.hook, ...hooksOf(route.preValidation)];
    route.onResponse = [...hooksOf(route.onResponse), metrics.observerOf(route.url)];
  });

  if (opts.loopShare !== false) {
    const share = new LoopShare({ ...opts.loopShare, onHold: () => metrics.loopShareHolds.inc() });
    app.addHook('onClose', (_app, done) => {
      share.close();
      done();
    });
    // Per key, as the rate limit counts (the key's name; the client's address without a key).
    front.observe = (req, res) => {
      const principal = cachedPrincipalOfHeader(reads, req.headers.authorization, clock.now(), req.socket);
      const finished = share.started(principal?.keyName ?? `address ${req.socket.remoteAddress ?? ''}`);
      res.once('finish', () => finished(req.socket));
    };
  }
  if (opts.hotReads !== false)
    front.hotRead = hotSandboxRead({
      ctx,
      limiter,
      failures: authFailures,
      metrics,
      log: opts.logger,
      closing: () => closing,
    });

  await registerOpenApi(app);
  const routeOpts = { ctx };
  await app.register(healthRoutes, {
    ...routeOpts,
    version: opts.version ?? '0.1.0',
    startedAt: clock.now(),
  });
  await app.register(reservationRoutes, routeOpts);
  await app.register(platformRoutes, routeOpts);
  await app.register(sandboxRoutes, routeOpts);
  await app.register(forkRoutes, routeOpts);
  await app.register(pauseRoutes, routeOpts);
  await app.register(viewerTokenRoutes, routeOpts);
  await app.register(networkRoutes, routeOpts);
  await app.register(execRoutes, routeOpts);
  await app.register(execAxRoutes, routeOpts);
  await app.register(fileRoutes, {
    ...routeOpts,
    ...(opts.uploadLimitBytes !== undefined && { uploadLimitBytes: opts.uploadLimitBytes }),
  });
  await app.register(mouseRoutes, routeOpts);
  await app.register(keyboardRoutes, routeOpts);
  await app.register(screenshotRoutes, routeOpts);
  await app.register(actRoutes, routeOpts);
  await app.register(recordingRoutes, routeOpts);
  await app.register(displayRoutes, routeOpts);
  await app.register(snapshotRoutes, routeOpts);
  await app.register(connectivityRoutes, routeOpts);
  await app.register(portRoutes, routeOpts);
  await app.register(clipboardRoutes, routeOpts);
  await app.register(cuaRoutes, routeOpts);
  await app.register(taskRoutes, { ...routeOpts, ...(opts.blobs && { blobs: opts.blobs }) });
  await app.register(taskEditRoutes, { ...routeOpts, ...(opts.blobs && { blobs: opts.blobs }) });
  await app.register(taskHarborRoutes, { ...routeOpts, ...(opts.blobs && { blobs: opts.blobs }) });
  await app.register(taskImportRoutes, routeOpts);
  await app.register(evaluationRunRoutes, routeOpts);
  await app.register(collectionRoutes, { ...routeOpts, ...(opts.blobs && { blobs: opts.blobs }) });
  await app.register(evaluationRoutes, { ...routeOpts, ...(opts.blobs && { blobs: opts.blobs }) });
  await app.register(blobRoutes, {
    ...routeOpts,
    ...(opts.blobs && { blobs: opts.blobs }),
    ...(opts.uploadLimitBytes !== undefined && { uploadLimitBytes: opts.uploadLimitBytes }),
  });
  await app.register(sessionRoutes, routeOpts);
  await app.register(accountRoutes, routeOpts);
  const feed = new PlatformFeed(opts.store, (m) => isOccupied(ctx, m));
  await app.register(platformEventRoutes, { ...routeOpts, feed });
  openApiRoute(app);

  const proxies = attachWebSocketProxies(app.server, ctx, app.log, metrics, authFailures, opts.wsLimits);
  app.decorate('wsProxies', proxies);
  const sweep = () => {
    sweepExpiredRecords(ctx)
      .catch((err: unknown) => app.log.warn({ err }, 'idempotency sweep failed'))
      .finally(() => {
        if (!closing) sweeper = clock.setTimer(IDEMPOTENCY_SWEEP_MS, sweep);
      });
  };
  let sweeper = clock.setTimer(IDEMPOTENCY_SWEEP_MS, sweep);

  // Graceful shutdown: the listener stops taking requests (503 to new ones) and waits for those in
  // flight. A request waiting on a reconciler (a cold boot, a snapshot) gets the grace period to
  // finish, then ends with 503 `server_shutting_down` (its idempotency record stays in flight and
  // the next boot releases it). WebSocket connections close with 1001.
  let grace: NodeJS.Timeout | undefined;
  let reapIdle: NodeJS.Timeout | undefined;
  const stopWaiting = () => shutdown.abort(new ApiError('server_shutting_down'));
  // Requests in flight, so that a close that has to cut them off can say which.
  const inFlight = new Set<FastifyRequest>();
  app.decorate('abandoned', [] as string[]);
  app.addHook('onRequest', (request, reply, done) => {
    inFlight.add(request);
    // The response's close: sent, or its connection gone (the request's own close comes once its body is read).
    reply.raw.once('close', () => inFlight.delete(request));
    done();
  });
  // The grace is over: waits on reconcilers answer 503 at once; a call still running on a VM (an
  // exec of an hour, a VM that stopped answering) is cut off with its connection. The cut gives
  // their handlers a moment to answer the waits first.
  const endOfGrace = () => {
    stopWaiting();
    const cut = setTimeout(() => {
      for (const r of inFlight) app.abandoned.push(`${r.method} ${r.url}`);
      app.server.closeAllConnections();
    }, CUT_AFTER_ABORT_MS);
    cut.unref();
  };
  app.addHook('preClose', async () => {
    sweeper.cancel();
    grace = setTimeout(endOfGrace, opts.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
    grace.unref();
    // A keep-alive connection whose request finishes during the close turns idle afterwards; the
    // listener closes idle connections only once, when the close starts: keep closing them.
    reapIdle = setInterval(() => app.server.closeIdleConnections(), 100);
    reapIdle.unref();
    feed.close();
    await proxies.close();
    await collections.close();
  });
  app.addHook('onClose', async () => {
    clearTimeout(grace);
    clearInterval(reapIdle);
    stopWaiting();
    // A request still waiting for the cache (its own write's read-back) is cut as the waits are.
    reads.stop(new ApiError('server_shutting_down'));
    // After the last request: releasing the Lease tells the other replicas this one's keys are free.
    await heartbeat.stop();
  });
  return app;
}

/**
 * JSON bodies: the raw text is kept (Idempotency-Key compares the exact body), an empty body is no
 * body (so optional bodies may be omitted), and `__proto__` / `constructor.prototype` keys are refused.
 */
function setJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text, refusePrototypeKeys));
    } catch {
      done(new ApiError('invalid_json'), undefined);
    }
  });
}

/** A route option's hooks as an array (Fastify takes one function or an array). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (
    key === '__proto__' ||
    (key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value)
  ) {
    throw new SyntaxError('prototype key');
  }
  return value;
}

export interface AdminRoutesOptions {
  /** The customer app's metrics (`customerApp.apiMetrics`), served at GET /metrics. */
  metrics?: ApiMetrics;
}

/**
 * The spec's admin views (/admin/minis, /admin/slots, /admin/sessions), account keys and /metrics, as a plugin
 * the admin app registers with `{ store }` (the admin key is checked by the admin app).
 */
export function buildAdminRoutes(opts: AdminRoutesOptions = {}): FastifyPluginAsync<{ store: Store }> {
  return async (app, { store }) => {
    await app.register(adminRoutes, { store, ...(opts.metrics && { metrics: opts.metrics }) });
    await app.register(accountKeyRoutes, { store });
  };
}
