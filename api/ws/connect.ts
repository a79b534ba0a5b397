// A TCP connection to a VM's port, with a deadline; and the HTTP error answer for an upgrade
// request that cannot be served (the socket is still raw HTTP at that point).
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { ApiError } from '../errors.ts';

export const CONNECT_TIMEOUT_MS = 10_000;

export function connectTcp(host: string, port: number, timeoutMs = CONNECT_TIMEOUT_MS): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ApiError('guest_timeout', `The VM did not accept a connection on port ${port}.`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(new ApiError('guest_unreachable', `The VM refused the connection: ${err.message}`));
    };
    socket.once('error', onError);
  });
}

/** Answers an upgrade request with a JSON error and closes the socket. */
export function writeHttpError(socket: Duplex, err: ApiError, headers: Record<string, string> = {}): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(err.toJSON());
  const lines = [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
