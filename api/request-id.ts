// Request ids: a caller's `X-Request-Id` is kept (so one id follows a request through a proxy, the
// API's logs and the caller's own), otherwise a fresh UUID. The header is untrusted: an id that is
// not a short token of safe characters is replaced, so that it cannot forge log lines or headers.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
/** UUIDs, ULIDs, W3C trace ids and the like; nothing a log or header could misread. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's `genReqId`: the incoming id when it is a safe token, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}
