// The hooks the customer API attaches to each of its routes (app.ts's onRoute), folded into as few
// functions and lifecycle stages as the order of their effects allows. Fastify pays per stage a
// route has hooks in (its hook runner, a closure, a callback per hook), and on the authenticated GET
// those stages were most of the cost left over a bare route (bench/README.md, issue 10):
// - onRequest, one function: the request id header (echoed on every answer, refusals included),
//   then authentication unless the route is public, then, on a route without a body to parse, the
//   rate limit;
// - the rate limit of a route with a body stays a preValidation hook: it then runs after the body is
//   parsed, as it always has (a malformed or too large body is refused as such, and not counted);
// - onResponse, one function per route: its metrics (metrics.ts).
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import type { RouteAuthenticator } from './auth.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';

/** A callback hook of the onRequest or preValidation stage. */
export type CallbackHook = (
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
) => void;

const proceed: CallbackHook = (_request, _reply, done) => done();

/**
 * The request id hook on its own: the app's hook for the requests no route matched (the 404
 * handler), which get no route's hooks.
 */
export const echoRequestId: CallbackHook = (request, reply, done) => {
  reply.header(REQUEST_ID_HEADER, request.id);
  done();
};

/**
 * A route's first onRequest hook: the request id header, then `authn` (none on a public route),
 * then `limit` (the rate limit when it runs in this stage). A callback hook: a request the cache
 * decides costs no promise.
 */
export function frontHook(authn: RouteAuthenticator | undefined, limit?: CallbackHook): onRequestHookHandler {
  const next = limit ?? proceed;
  if (!authn)
    return (request, reply, done) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      next(request, reply, done);
    };
  return (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    let decided: boolean;
    try {
      decided = authn.fast(request);
    } catch (err) {
      return done(err as Error);
    }
    if (decided) return next(request, reply, done);
    authn.slow(request).then(() => next(request, reply, done), done);
  };
}

/**
 * Whether a route's rate limit may run in its onRequest stage with the same effect as in
 * preValidation: its methods carry no body to parse (Fastify goes from onRequest straight to
 * preValidation for them), and no other onRequest or preParsing hook of its own would run between.
 * The storage guard's routes all take bodies.
 */
export function limitInFront(methods: string[], ownOnRequest: number, ownPreParsing: number): boolean {
  return methods.every((m) => m === 'GET' || m === 'HEAD') && ownOnRequest === 0 && ownPreParsing === 0;
}
