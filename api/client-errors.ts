// Answers written straight to a socket: to a request Node's HTTP parser refused before any route
// saw it (Fastify's `clientErrorHandler`), to a router refusal (`frameworkErrors`), and to a
// WebSocket upgrade that cannot be served (api/ws). Each is a coded JSON error like every other
// answer; Fastify's defaults answer `{"error":"Bad Request"}`, a code of no registry.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './errors.ts';

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

/** The customer listener's `clientErrorHandler`. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Duplex): void {
  const apiErr = clientErrorOf(err, socket);
  if (apiErr) writeJsonAnswer(socket, apiErr.status, apiErr.toJSON());
}
