// WebSocket upgrades of the customer listener: `/v1/sandboxes/{id}/vnc`, `/ssh` and `/cua/ws`.
// Everything that can fail (auth, sandbox, the VM's port, the VM's VNC login) is done before the
// upgrade, so a failure is an ordinary JSON error response; then the socket is upgraded and relayed
// (VNC, SSH) or served (Cua's protocol, api/compat/cua/). An open connection counts as activity for
// the idle reaper, is counted against the connection caps, and closes when the app closes.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { SANDBOX_ID_BODY } from '../../crds/sandbox.ts';
import { isAuthFailure, type AuthFailureLimiter } from '../auth-failures.ts';
import { ApiError, toApiError } from '../errors.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { ApiContext } from '../services/context.ts';
import { MAX_MESSAGE_BYTES as CUA_MAX_MESSAGE_BYTES } from '../compat/cua/protocol.ts';
import { serveCuaSocket } from '../compat/cua/ws-session.ts';
import { authenticate } from '../auth.ts';
import { guestOf } from '../services/guests.ts';
import { guestOfPrincipal } from '../services/request.ts';
import { findSandbox } from '../services/sandboxes.ts';
import type { Sandbox } from '../../crds/index.ts';
import { writeHttpError, type ProxyTarget } from './connect.ts';
import { checkHandshake, upgrade } from './handshake.ts';
import { RfbInputReader } from '../collector/rfb-input.ts';
import {
  CLOSE_EXPIRED,
  DEFAULT_WS_LIMITS,
  EXPIRED_REASON,
  LiveSessions,
  type WsLimits,
} from './live-sessions.ts';
import { relay } from './relay.ts';
import { sessionCredential } from './session-credentials.ts';
import { sshTarget } from './ssh-proxy.ts';
import { vncTarget } from './vnc-proxy.ts';

/** While a connection is open, activity is recorded this often (the reaper's idle limit is ~2 min). */
export const ACTIVITY_INTERVAL_MS = 30_000;
/**
 * Largest WebSocket message a client may send (larger: closed with 1009). A viewer sends input events
 * and small requests, an SSH client its packets (at most 256 KiB each); a clipboard paste fits too.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;
const PATH = new RegExp(`^/v1/sandboxes/(${SANDBOX_ID_BODY})/(vnc|ssh|cua/ws)$`);

type Kind = 'vnc' | 'ssh' | 'cua';

/** An upgrade request whose handshake passed, on its way to being served. */
interface Upgrading {
  sandboxId: string;
  request: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  url: URL;
  reqLog: FastifyBaseLogger;
}

export interface WebSocketProxies {
  /** Open connections. */
  readonly size: number;
  /** Closes every open connection (1001 going away). */
  close(): Promise<void>;
}

export function attachWebSocketProxies(
  server: { on(event: 'upgrade', fn: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): unknown },
  ctx: ApiContext,
  log: FastifyBaseLogger,
  metrics: ApiMetrics,
  authFailures?: AuthFailureLimiter,
  limits: WsLimits | false = DEFAULT_WS_LIMITS,
): WebSocketProxies {
  const sessions = new LiveSessions(limits);
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    // noVNC and websockify clients may ask for the `binary` subprotocol.
    handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
  });
  // Cua's messages are larger than a viewer's (a file written in one message): its own limit.
  const cuaWss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: CUA_MAX_MESSAGE_BYTES,
  });
  const open = new Set<Promise<void>>();

  server.on('upgrade', (request, socket, head) => {
    const reqLog = log.child({ reqId: randomUUID() });
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = PATH.exec(url.pathname);
    if (!match || request.method !== 'GET') return writeHttpError(socket, new ApiError('not_found'));
    const [, sandboxId, path] = match as unknown as [string, string, 'vnc' | 'ssh' | 'cua/ws'];
    const kind: Kind = path === 'cua/ws' ? 'cua' : path;
    const address = request.socket.remoteAddress ?? '';
    const retryAfterS = authFailures?.retryAfterS(address);
    if (retryAfterS !== undefined)
      return writeHttpError(socket, new ApiError('too_many_auth_failures'), {
        'Retry-After': String(retryAfterS),
      });
    reqLog.info({ method: request.method, url: url.pathname, kind }, 'websocket upgrade');
    try {
      checkHandshake(request);
    } catch (err) {
      return writeHttpError(socket, err as ApiError);
    }
    const upgrading: Upgrading = { sandboxId, request, socket, head, url, reqLog };
    const serving = kind === 'cua' ? serveCua(upgrading) : serve(kind, upgrading);
    const connection = serving.catch((err: unknown) => {
      const apiErr = toApiError(err);
      if (isAuthFailure(apiErr)) authFailures?.fail(address);
      if (apiErr.code === 'internal_error') reqLog.error({ err }, 'websocket proxy failed');
      else reqLog.info({ code: apiErr.code }, apiErr.message);
      writeHttpError(socket, apiErr);
    });
    open.add(connection);
    void connection.finally(() => open.delete(connection));
  });

  async function serve(kind: 'vnc' | 'ssh', upgrading: Upgrading): Promise<void> {
    const { sandboxId, request, socket, head, url, reqLog } = upgrading;
    const target =
      kind === 'vnc'
        ? await vncTarget(ctx, request, sandboxId, url)
        : await sshTarget(ctx, request, sandboxId);
    if (socket.destroyed) {
      target.vm.socket.destroy();
      return;
    }
    let ws: WebSocket | undefined;
    let release: () => void;
    try {
      release = sessions.admit({
        account: target.sandbox.metadata.namespace!,
        sandbox: sandboxId,
        ...sessionCredential(ctx, kind, request, url, target),
        end: (code, reason) => {
          reqLog.info({ kind, code }, reason);
          if (!ws) return target.vm.socket.destroy();
          ws.close(code, reason);
          // A client that does not answer the close frame is cut off.
          setTimeout(() => ws?.terminate(), CLOSE_GRACE_MS).unref();
        },
      });
    } catch (err) {
      target.vm.socket.destroy();
      throw err;
    }
    try {
      try {
        ws = await upgrade(wss, request, socket, head);
      } catch (err) {
        target.vm.socket.destroy();
        throw err;
      }
      await session(kind, ws, target, reqLog);
    } finally {
      release();
    }
  }

  async function session(
    kind: 'vnc' | 'ssh',
    ws: WebSocket,
    target: ProxyTarget,
    reqLog: FastifyBaseLogger,
  ): Promise<void> {
    const ns = target.sandbox.metadata.namespace!;
    const name = target.sandbox.metadata.name;
    const expiry =
      target.closeAt === undefined
        ? undefined
        : setTimeout(
            () => ws.close(CLOSE_EXPIRED, EXPIRED_REASON),
            Math.max(0, target.closeAt - ctx.clock.now()),
          );
    try {
      await live(kind, ws, target.sandbox, reqLog, async () => {
        try {
          const initialToVm = target.greet ? await target.greet(ws) : undefined;
          // Label children looked up once, not per relayed chunk.
          const toVm = metrics.wsBytes.labels({ kind, direction: 'to_vm' });
          const toClient = metrics.wsBytes.labels({ kind, direction: 'to_client' });
          await relay(target.vm, ws, {
            ...(initialToVm && { initialToVm }),
            ...(kind === 'vnc' && { onToVm: viewerInput(ns, name, reqLog) }),
            counters: { toVm: (n) => toVm.inc(n), toClient: (n) => toClient.inc(n) },
          });
        } catch (err) {
          reqLog.info({ err: (err as Error).message }, 'websocket handshake failed');
          target.vm.socket.destroy();
          if (ws.readyState === ws.OPEN) ws.close(1002, 'handshake failed');
        }
      });
    } finally {
      if (expiry) clearTimeout(expiry);
    }
  }

  /**
   * Cua's protocol on `/cua/ws`: the account or reservation key of the upgrade (Cua's SDK sends its
   * `api_headers` with it) must reach the running sandbox; each command then finds the guest as a
   * REST route does, so a sandbox deleted meanwhile answers its own error.
   */
  async function serveCua(upgrading: Upgrading): Promise<void> {
    const { sandboxId, request, socket, head, url, reqLog } = upgrading;
    const header = request.headers.authorization;
    if (!header && url.searchParams.has('token'))
      throw new ApiError(
        'missing_api_key',
        "Cua's protocol takes Authorization: Bearer <account or reservation key>; a viewer link opens the live view only.",
      );
    const principal = await authenticate(ctx.reads, header, ctx.clock.now());
    const sandbox = await findSandbox(ctx, principal, sandboxId);
    await guestOf(ctx, sandbox); // a sandbox that is not running is refused before the upgrade
    let ws: WebSocket | undefined;
    // Ended by a recheck while the upgrade was still under way: closed as soon as it is done.
    let endedEarly: [code: number, reason: string] | undefined;
    const end = (code: number, reason: string) => {
      reqLog.info({ kind: 'cua', code }, reason);
      if (!ws) return void (endedEarly = [code, reason]);
      ws.close(code, reason);
      setTimeout(() => ws?.terminate(), CLOSE_GRACE_MS).unref();
    };
    const release = sessions.admit({
      account: sandbox.metadata.namespace!,
      sandbox: sandboxId,
      ...sessionCredential(ctx, 'cua', request, url, { sandbox }),
      end,
    });
    try {
      ws = await upgrade(cuaWss, request, socket, head);
      const open = ws;
      if (endedEarly) end(...endedEarly);
      await live('cua', open, sandbox, reqLog, () =>
        serveCuaSocket(open, () => guestOfPrincipal(ctx, principal, sandboxId), reqLog),
      );
    } finally {
      release();
    }
  }

  /**
   * An open connection's bookkeeping around `body`: counted in the metrics, activity on the sandbox
   * (at open, every 30 s, at close), closed with 1001 when the server shuts down.
   */
  async function live(
    kind: Kind,
    ws: WebSocket,
    sandbox: Sandbox,
    reqLog: FastifyBaseLogger,
    body: () => Promise<void>,
  ): Promise<void> {
    const ns = sandbox.metadata.namespace!;
    const name = sandbox.metadata.name;
    metrics.wsConnections.inc({ kind });
    void ctx.activity.touch(ns, name, true);
    const heartbeat = setInterval(() => void ctx.activity.touch(ns, name), ACTIVITY_INTERVAL_MS);
    const stop = () => ws.readyState === ws.OPEN && ws.close(1001, 'server shutting down');
    ctx.shutdown.addEventListener('abort', stop, { once: true });
    try {
      await body();
    } finally {
      clearInterval(heartbeat);
      ctx.shutdown.removeEventListener('abort', stop);
      metrics.wsConnections.dec({ kind });
      void ctx.activity.touch(ns, name, true);
      reqLog.info({ kind }, 'websocket closed');
    }
  }

  /** Reads a viewer's input for the sandbox's collection, if one is recording (api/collector/). */
  function viewerInput(ns: string, name: string, reqLog: FastifyBaseLogger): (chunk: Buffer) => void {
    const reader = new RfbInputReader({
      skip: 1, // the viewer's ClientInit leads what it sends after the handshake
      onEvent: (event) => ctx.collections.input(ns, name, event),
      onUnknown: (type) => reqLog.warn({ type }, 'viewer sent an RFB message the collector cannot read'),
    });
    return (chunk) => {
      try {
        reader.push(chunk);
      } catch (err) {
        // The relay must go on whatever the collector makes of the bytes.
        reqLog.warn({ err }, 'collector failed on viewer input');
      }
    };
  }

  return {
    get size() {
      return open.size;
    },
    async close() {
      sessions.close();
      const clients = () => [...wss.clients, ...cuaWss.clients];
      for (const client of clients()) client.close(1001, 'server shutting down');
      // A client that does not answer the close frame is cut off rather than waited for.
      const cutOff = setTimeout(() => {
        for (const client of clients()) client.terminate();
      }, CLOSE_GRACE_MS);
      await Promise.allSettled([...open]);
      clearTimeout(cutOff);
      wss.close();
      cuaWss.close();
    },
  };
}
