// Answers written straight to a socket: to a request Node's HTTP parser refused before any route
// saw it (Fastify's `clientErrorHandler`), to a router refusal (`frameworkErrors`), and to a
// WebSocket upgrade that cannot be served (api/ws). Each is a coded JSON error like every other
// answer; Fastify's defaults answer `{"error":"Bad Request"}`, a code of no registry.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/**
 * The answers a connection still owes, so that a refusal does not overtake them. Node's parser may
 * refuse bytes that follow a request on the same connection (a body shorter than its Content-Length
 * says leaves bytes that read as a next request) while that request is still being answered: a 400
 * written then reaches the client first, which reads it as the answer to a request that ran (the
 * fuzzer saw a key revoked behind a 400). With answers owed, the refused bytes get no answer of their
 * own (they were no request) and the connection is closed once the last owed answer is sent.
 */
export class OwedAnswers {
  /** Per connection, the requests not answered yet. */
  readonly #owed = new WeakMap<object, Set<IncomingMessage>>();
  readonly #closeWhenPaid = new WeakSet<Duplex>();

  /** Counts each request of `app` from its arrival until its answer is sent or abandoned. */
  track(app: FastifyInstance): void {
    app.addHook('onRequest', async (request, reply) => {
      const socket = request.raw.socket;
      const owed = this.#owed.get(socket) ?? new Set();
      this.#owed.set(socket, owed.add(request.raw));
      // The response's 'close' comes once it is sent, or the client left, whatever the route did (a
      // hijacked stream has no onResponse).
      reply.raw.once('close', () => {
        owed.delete(request.raw);
        if (owed.size === 0 && this.#closeWhenPaid.has(socket)) socket.end();
      });
    });
  }

  /**
   * Writes a refusal now when nothing is owed on the socket, or when the refused bytes are the body
   * of a request in flight (it has not all arrived: it never will, and the route waits on it); else
   * the bytes followed complete requests, and the socket is closed once they are answered.
   */
  refuse(socket: Duplex, write: () => void): void {
    const owed = [...(this.#owed.get(socket) ?? [])];
    if (owed.length === 0 || owed.some((req) => !req.complete)) return write();
    this.#closeWhenPaid.add(socket);
  }
}

/** The error a refused request answers with; undefined when the client is gone already. */
export function clientErrorOf(err: Error & { code?: string }, socket: Duplex): ApiError | undefined {
  if (err.code === 'ECONNRESET' || socket.destroyed) return undefined;
  if (err.code === 'HPE_HEADER_OVERFLOW') return new ApiError('headers_too_large');
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('request_timeout');
  return new ApiError('invalid_request', 'The request is not valid HTTP/1.1.');
}

/**
 * The path of the request Node's parser refused, as far as its request line names one; undefined when
 * the refused bytes do not start as a request line (bytes after a body shorter than they claimed to be, read as
 * a next request on the same connection).
 */
export function refusedPathOf(err: { rawPacket?: unknown }): string | undefined {
  const raw = Buffer.isBuffer(err.rawPacket) ? err.rawPacket : Buffer.alloc(0);
  const line = raw.toString('latin1').split('\r\n', 1)[0] ?? '';
  return /^[A-Za-z]+ (\/\S*)/.exec(line)?.[1];
}

/** Writes `body` as a JSON answer of `status` and closes the connection. */
export function writeJsonAnswer(
  socket: Duplex,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${text}`);
}

/** The customer listener's `clientErrorHandler`, behind the answers `owed` on the connection. */
export function clientErrorHandler(owed: OwedAnswers) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    const apiErr = clientErrorOf(err, socket);
    if (apiErr) owed.refuse(socket, () => writeJsonAnswer(socket, apiErr.status, apiErr.toJSON()));
  };
}
