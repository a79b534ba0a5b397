// The admin listener's app: every request needs the admin key; it serves the Kubernetes-compatible
// resource API (api/kube) and whatever admin routes other modules plug in (the spec's /admin/*).
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
} from 'fastify';
import type { Store } from '../store/store.ts';
import { adminAuth } from './admin-auth.ts';
import { connectionAuthenticated } from './admin-listener.ts';
import { AuthFailureLimiter, DEFAULT_AUTH_FAILURE_LIMITS, type AuthFailureLimits } from './auth-failures.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { recordRoutes } from './route-table.ts';
import { KUBE_PATH_PREFIXES, kubeApi, unauthorizedStatus } from './kube/index.ts';
import { failure, resourceNotFound } from './kube/status.ts';
import { clientErrorOf, OwedAnswers, refusedPathOf, writeJsonAnswer } from './client-errors.ts';
import { ApiError, toApiError } from './errors.ts';

/** Admin routes of other modules; each is registered in its own encapsulated context. */
export type AdminRoutes = FastifyPluginAsync<{ store: Store }>;

export interface AdminAppOptions {
  store: Store;
  logger?: FastifyBaseLogger;
  /** Extension point: admin routes beyond the Kubernetes API. */
  routes?: readonly AdminRoutes[];
  now?: () => Date;
  /** Failed authentications per client address and window; `false`: off. */
  authFailureLimits?: AuthFailureLimits | false;
  /** The Kubernetes API's audit log file (one JSON line per resource request). */
  auditLog?: string;
  /** Path prefixes served without the admin key (the admin view's static page). */
  publicPrefixes?: readonly string[];
  /** Period of watch BOOKMARKs (default 60 s); tests shorten it. */
  bookmarkIntervalMs?: number;
}

function isKubePath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  return KUBE_PATH_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/** An error as the path's clients read it: a Kubernetes `Status`, or sandbay's `{error, message}`. */
function answerOf(url: string, err: ApiError): unknown {
  return isKubePath(url) ? failure(err.status, err.message) : err.toJSON();
}

export async function buildAdminApp(opts: AdminAppOptions): Promise<FastifyInstance> {
  /** The path of each connection's last request (the shape its refusals answer in). */
  const lastPathOn = new WeakMap<object, string>();
  const owedAnswers = new OwedAnswers();
  const app = Fastify({
    ...(opts.logger ? { loggerInstance: opts.logger } : { logger: false }),
    // Watches are long-lived: closing the app must not wait for their clients to hang up.
    forceCloseConnections: true,
    genReqId: requestIdOf,
    requestIdHeader: false,
    // The API server answers `/api/` as `/api`; the Kubernetes Python client asks with the slash.
    routerOptions: { ignoreTrailingSlash: true },
    // Requests refused before a route: a Status under the Kubernetes paths, `{error, message}` elsewhere;
    // bytes with no request line of their own are read in the shape of the connection's last request.
    clientErrorHandler: (err, socket) => {
      const apiErr = clientErrorOf(err, socket);
      const path = refusedPathOf(err) ?? lastPathOn.get(socket) ?? '/';
      if (apiErr)
        owedAnswers.refuse(socket, () => writeJsonAnswer(socket, apiErr.status, answerOf(path, apiErr)));
    },
    frameworkErrors: (err, request, reply) => {
      const apiErr = toApiError(err);
      return (reply as FastifyReply).code(apiErr.status).send(answerOf(request.url, apiErr));
    },
  });
  recordRoutes(app);
  owedAnswers.track(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    lastPathOn.set(request.raw.socket, request.url);
  });
  const now = opts.now ?? (() => new Date());
  const failureLimits = opts.authFailureLimits ?? DEFAULT_AUTH_FAILURE_LIMITS;
  app.addHook(
    'onRequest',
    adminAuth({
      store: opts.store,
      now,
      ...(failureLimits && { failures: new AuthFailureLimiter(failureLimits) }),
      authenticated: (request) => connectionAuthenticated(request.raw.socket),
      ...(opts.publicPrefixes && { publicPrefixes: opts.publicPrefixes }),
      // Kubernetes clients read a Status; the rest of sandbay's API answers `{error, message}`.
      unauthorized: (request, reply) =>
        isKubePath(request.url)
          ? reply.code(401).send(unauthorizedStatus())
          : reply.code(401).send(new ApiError('invalid_api_key', 'invalid, revoked or expired key').toJSON()),
    }),
  );
  await app.register(kubeApi, {
    store: opts.store,
    now,
    ...(opts.auditLog && { auditLog: opts.auditLog }),
    ...(opts.bookmarkIntervalMs !== undefined && { bookmarkIntervalMs: opts.bookmarkIntervalMs }),
  });
  // Errors of the routes outside the Kubernetes API (the kube plugin answers its own as a Status):
  // Fastify's default would answer its own `{statusCode, code, error: "Bad Request"}` shape.
  app.setErrorHandler((err, request, reply) => {
    const apiErr = toApiError(err);
    if (apiErr.status >= 500) request.log.error({ err }, 'admin request failed');
    return reply.code(apiErr.status).send(answerOf(request.url, apiErr));
  });
  for (const routes of opts.routes ?? []) await app.register(routes, { store: opts.store });
  app.setNotFoundHandler((request, reply) =>
    isKubePath(request.url)
      ? reply.code(404).send(resourceNotFound())
      : reply.code(404).send({ error: 'not_found', message: `no route ${request.method} ${request.url}` }),
  );
  return app;
}
