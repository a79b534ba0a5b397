// One HTTP request to a server inside a sandbox, over a connection the guest opened to its port
// (Guest.forwardPort): the request's body streamed up, the response's head and body streamed back.
//
// The server is the tenant's and may never answer, so the wait is bounded by progress, as uploads
// and downloads of files are (hosts/guest-deadlines.ts): the request fails with 504 `guest_timeout`
// when the server has sent nothing for STALL_MS since the last byte of the request went up (a slow
// upload re-arms it with every chunk), and a response body fails when the server has held a waiting
// client for STALL_MS; a slow client never counts against the server. The connection is the
// request's own and is closed with it (no keep-alive to the guest: nothing of one client's request
// waits in a connection another's takes).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { STALL_MS, guardResult } from '../../hosts/guest-deadlines.ts';
import { ApiError } from '../errors.ts';

export interface Forwarded {
  response: IncomingMessage;
  /** The response body, guarded against a server that stops sending. */
  body: Readable;
}

export function forwardHttp(
  conn: Duplex,
  incoming: IncomingMessage,
  path: string,
  headers: Record<string, string | string[]>,
  port: number,
): Promise<Forwarded> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const fail = (err: ApiError) => {
      clearTimeout(timer);
      incoming.unpipe();
      upstream.destroy();
      conn.destroy();
      reject(err);
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          fail(
            new ApiError(
              'guest_timeout',
              `The server on port ${port} did not answer within ${STALL_MS / 1000} s.`,
            ),
          ),
        STALL_MS,
      );
    };
    const upstream = httpRequest(
      { createConnection: () => conn as Socket, method: incoming.method, path, headers, setHost: false },
      (response) => {
        clearTimeout(timer);
        const body = guardResult(`port ${port}`, response, () => conn.destroy());
        resolve({ response, body });
      },
    );
    upstream.on('error', (err) =>
      fail(
        new ApiError('guest_unreachable', `The server on port ${port} failed the request: ${err.message}`),
      ),
    );
    // The client went away before its request was all sent: abandoned upstream too.
    incoming.on('close', () => {
      if (!incoming.complete) fail(new ApiError('guest_unreachable', 'The client went away.'));
    });
    incoming.on('data', arm);
    incoming.pipe(upstream);
    arm();
  });
}
