// A WebSocket to a forwarded port (`/v1/sandboxes/{id}/ports/{port}/<path>` with an upgrade): the
// proxy opens the guest server's WebSocket first (over Guest.forwardPort, with the client's headers
// and offered subprotocols, sandbay's credential removed: port-access.ts), then upgrades the client
// with the subprotocol the guest chose, and relays messages both ways as they are (text or binary,
// flow-controlled, closes and their codes carried across).
//
// Ending both WebSockets here, rather than passing bytes, is what lets the proxy ping the client
// (keepalive.ts), close the session with 4003 when its viewer link is revoked or 4001 when it expires,
// and count it against the sandbox's WebSocket caps like the live view. A guest that refuses the
// upgrade (a 404, a 401 of its own) has its answer passed to the client as it gave it.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { WebSocket } from 'ws';
import type { Sandbox } from '../../crds/index.ts';
import { CALL_DEADLINE_MS } from '../../hosts/guest-deadlines.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from '../services/context.ts';
import { guestOf } from '../services/guests.ts';
import {
  authorizePort,
  parsePort,
  portPrefix,
  upstreamHeaders,
  upstreamPath,
  type PortGrant,
} from '../services/port-access.ts';
import { toBuffer } from './relay.ts';

/** Largest message either side may send through a forwarded WebSocket. */
export const PORT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** Messages waiting to reach one side before the other is made to wait. */
const HIGH_WATER = 4 * 1024 * 1024;
/** The guest's refusal is passed on with at most this much of its body. */
const REFUSAL_BODY_BYTES = 64 * 1024;

export interface PortWebSocketTarget {
  sandbox: Sandbox;
  grant: PortGrant;
  /** The guest server's WebSocket, open. */
  upstream: WebSocket;
}

/**
 * Authorizes the upgrade and opens the guest's WebSocket. Resolves `answered` when the guest refused
 * the upgrade and its answer has been written to the client's socket.
 */
export async function portWebSocketTarget(
  ctx: ApiContext,
  request: IncomingMessage,
  socket: Duplex,
  sandboxId: string,
  portText: string,
  url: URL,
): Promise<PortWebSocketTarget | 'answered'> {
  const port = parsePort(portText);
  const prefix = portPrefix(sandboxId, port);
  const secure = (request.socket as TLSSocket).encrypted === true;
  const grant = await authorizePort(ctx, request, sandboxId, port, url, secure);
  const guest = await guestOf(ctx, grant.sandbox);
  if (!guest.forwardPort)
    throw new ApiError('feature_not_supported', "This sandbox's host driver forwards no ports.");
  const conn = await guest.forwardPort(port);
  const offered = String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const headers = upstreamHeaders(request, grant, port, prefix, { secure, keepUpgrade: true });
  delete headers.upgrade;
  delete headers.connection;
  const upstream = new WebSocket(
    `ws://localhost:${port}${upstreamPath(request.url ?? '/', prefix)}`,
    offered,
    {
      createConnection: () => conn as never,
      headers: headers as Record<string, string>,
      perMessageDeflate: false,
      maxPayload: PORT_MAX_MESSAGE_BYTES,
    },
  );
  return new Promise((resolve, reject) => {
    let settled = false;
    /** Settles once: whichever of open, refusal, error or deadline comes first answers the client. */
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    // ws's own handshakeTimeout needs a TCP socket (setTimeout); the guest's stream is an SSH channel.
    const timer = setTimeout(() => {
      settle(() =>
        reject(
          new ApiError(
            'guest_timeout',
            `The server on port ${port} did not answer the upgrade within ${CALL_DEADLINE_MS / 1000} s.`,
          ),
        ),
      );
      upstream.terminate();
      conn.destroy();
    }, CALL_DEADLINE_MS);
    upstream.on('error', (err) => {
      settle(() =>
        reject(
          /timeout/i.test(err.message)
            ? new ApiError('guest_timeout', `The server on port ${port} did not answer the upgrade in time.`)
            : new ApiError(
                'guest_unreachable',
                `The server on port ${port} failed the upgrade: ${err.message}`,
              ),
        ),
      );
      conn.destroy();
    });
    upstream.once('open', () => settle(() => resolve({ sandbox: grant.sandbox, grant, upstream })));
    // The refusal is read whole (within the same deadline) before the guest's stream is closed:
    // closing it first would cut off a body that arrives after the status line, and leave the client
    // with no answer at all.
    upstream.once('unexpected-response', (_req, res) => {
      refusalAnswer(res, grant)
        .then(
          (answer) =>
            settle(() => {
              if (!socket.destroyed) socket.end(answer);
              resolve('answered');
            }),
          (err: Error) =>
            settle(() =>
              reject(
                new ApiError(
                  'guest_unreachable',
                  `The server on port ${port} refused the upgrade: ${err.message}`,
                ),
              ),
            ),
        )
        .finally(() => conn.destroy());
    });
  });
}

/** The guest's answer to an upgrade it refused, as the client's HTTP response. */
async function refusalAnswer(res: IncomingMessage, grant: PortGrant): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= REFUSAL_BODY_BYTES) break;
  }
  const body = Buffer.concat(chunks).subarray(0, REFUSAL_BODY_BYTES);
  const status = res.statusCode ?? 502;
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    `Content-Type: ${String(res.headers['content-type'] ?? 'application/octet-stream')}`,
    `Content-Length: ${body.length}`,
    ...(grant.setCookie ? [`Set-Cookie: ${grant.setCookie}`] : []),
    'Connection: close',
  ];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

export interface PortCounters {
  toVm(bytes: number): void;
  toClient(bytes: number): void;
}

/** Relays messages both ways until both sockets are closed. */
export function relayWebSockets(
  client: WebSocket,
  upstream: WebSocket,
  counters: PortCounters,
): Promise<void> {
  pipeMessages(client, upstream, counters.toVm);
  pipeMessages(upstream, client, counters.toClient);
  let open = 2;
  return new Promise((resolve) => {
    const closed = (other: WebSocket) => (code: number, reason: Buffer) => {
      if (other.readyState === other.OPEN || other.readyState === other.CONNECTING) {
        other.close(sendableCode(code), reason.toString('utf8').slice(0, 120));
      }
      if (--open === 0) resolve();
    };
    client.on('close', closed(upstream));
    upstream.on('close', closed(client));
    client.on('error', () => upstream.terminate());
  });
}

function pipeMessages(from: WebSocket, to: WebSocket, count: (n: number) => void): void {
  from.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (to.readyState !== to.OPEN) return;
    const chunk = toBuffer(data);
    count(chunk.length);
    to.send(chunk, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < HIGH_WATER / 4) from.resume();
    });
    if (to.bufferedAmount > HIGH_WATER) from.pause();
  });
}

/** A close code one may send (1005, 1006 and 1015 are only ever reported). */
function sendableCode(code: number): number {
  if (code === 1005) return 1000;
  if (code === 1006 || code === 1015) return 1011;
  return code;
}
