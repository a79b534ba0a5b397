// WebSocket upgrades of the customer listener: `/v1/sandboxes/{id}/vnc` and `/ssh` (relayed byte
// for byte), `/cua/ws` (Cua's protocol, served by api/compat/cua/), `/exec/stream` (a command's
// streams as channel frames: exec-stream.ts) and `/ports/{port}/…` (a WebSocket of a server in the
// sandbox: port-websocket.ts). Everything that can fail (auth, sandbox, the VM's port, the VM's VNC
// login, starting the command, the guest server's handshake) is done before the upgrade, so a
// failure is an ordinary JSON error response; then the socket is upgraded and relayed or served. Every kind counts against the same caps (live-sessions.ts), counts
// as activity for the idle reaper, and closes when the app closes; exec streams and forwarded
// WebSockets, which may idle for hours, are also pinged (keepalive.ts).
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
import { writeHttpError, type ProxyTarget } from './connect.ts';
import { checkHandshake } from './handshake.ts';
import { RfbInputReader } from '../collector/rfb-input.ts';
import { DEFAULT_WS_LIMITS, LiveSessions, type WsLimits } from './live-sessions.ts';
import { LiveSessionRunner, type Kind } from './live-session.ts';
import { relay } from './relay.ts';
import { chooseProtocol } from './channel-protocol.ts';
import { execStreamTarget, runExecSession } from './exec-stream.ts';
import { PORT_MAX_MESSAGE_BYTES, portWebSocketTarget, relayWebSockets } from './port-websocket.ts';
import { sessionCredential } from './session-credentials.ts';
import { sshTarget } from './ssh-proxy.ts';
import { vncTarget } from './vnc-proxy.ts';

/**
 * Largest WebSocket message a client may send (larger: closed with 1009). A viewer sends input events
 * and small requests, an SSH client its packets (at most 256 KiB each); a clipboard paste fits too.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;
const PATH = new RegExp(
  `^/v1/sandboxes/(${SANDBOX_ID_BODY})/(vnc|ssh|cua/ws|exec/stream|ports/([^/]*)(?:/.*)?)$`,
);

/** The upgrade's kind, sandbox and (a forwarded WebSocket) port, or undefined for any other path. */
function routeOf(pathname: string): { kind: Kind; sandboxId: string; port?: string } | undefined {
  const m = PATH.exec(pathname);
  if (!m) return undefined;
  const [, sandboxId, what, port] = m as unknown as [string, string, string, string | undefined];
  if (what === 'vnc' || what === 'ssh') return { kind: what, sandboxId };
  if (what === 'cua/ws') return { kind: 'cua', sandboxId };
  if (what === 'exec/stream') return { kind: 'exec', sandboxId };
  return { kind: 'port', sandboxId, port: port ?? '' };
}

/** An upgrade request as it arrived, and its log. */
interface Incoming {
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
  const runner = new LiveSessionRunner(ctx, metrics, sessions);
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    // noVNC and websockify clients may ask for the `binary` subprotocol.
    handleProtocols: (protocols) => (protocols.has('binary') ? 'binary' : false),
  });
  const execWss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: chooseProtocol,
  });
  // A forwarded WebSocket speaks the subprotocol the guest's server chose.
  const chosen = new WeakMap<IncomingMessage, string>();
  const portWss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: PORT_MAX_MESSAGE_BYTES,
    handleProtocols: (_offered, request) => chosen.get(request) ?? false,
  });
  // Cua's messages are larger than a viewer's (a file written in one message): its own limit.
  const cuaWss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: CUA_MAX_MESSAGE_BYTES,
  });
  const servers = [wss, execWss, portWss, cuaWss];
  const open = new Set<Promise<void>>();
  // Every upgrade's socket until it closes: once the 'upgrade' event has it, the HTTP server no longer
  // closes it, and a socket left open would hold the server's close forever.
  const sockets = new Set<Duplex>();

  server.on('upgrade', (request, socket, head) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const reqLog = log.child({ reqId: randomUUID() });
    const url = new URL(request.url ?? '/', 'http://localhost');
    const route = routeOf(url.pathname);
    if (!route || request.method !== 'GET') return writeHttpError(socket, new ApiError('not_found'));
    const { kind, sandboxId } = route;
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
    const incoming: Incoming = { request, socket, head, url, reqLog };
    const served =
      kind === 'exec'
        ? serveExec(sandboxId, incoming)
        : kind === 'port'
          ? servePort(sandboxId, route.port!, incoming)
          : kind === 'cua'
            ? serveCua(sandboxId, incoming)
            : serve(kind, sandboxId, incoming);
    const connection = served.catch((err: unknown) => {
      const apiErr = toApiError(err);
      if (isAuthFailure(apiErr)) authFailures?.fail(address);
      if (apiErr.code === 'internal_error') reqLog.error({ err }, 'websocket proxy failed');
      else reqLog.info({ code: apiErr.code }, apiErr.message);
      writeHttpError(socket, apiErr);
    });
    open.add(connection);
    void connection.finally(() => open.delete(connection));
  });

  /** A command's streams over the channel protocol (exec-stream.ts). */
  async function serveExec(
    sandboxId: string,
    { request, socket, head, url, reqLog }: Incoming,
  ): Promise<void> {
    const target = await execStreamTarget(ctx, request, sandboxId, url);
    if (socket.destroyed) return target.stream.close();
    const counters = runner.byteCounters('exec');
    await runner.admitted(
      'exec',
      target.sandbox,
      target,
      undefined,
      { wss: execWss, request, socket, head },
      reqLog,
      () => target.stream.close(),
      (ws: WebSocket) => runExecSession(ws, target, counters),
    );
  }

  /**
   * Cua's protocol on `/cua/ws`: the account or reservation key of the upgrade (Cua's SDK sends its
   * `api_headers` with it) must reach the running sandbox; each command then finds the guest as a
   * REST route does, so a sandbox deleted meanwhile answers its own error.
   */
  async function serveCua(
    sandboxId: string,
    { request, socket, head, url, reqLog }: Incoming,
  ): Promise<void> {
    const header = request.headers.authorization;
    if (!header && url.searchParams.has('token'))
      throw new ApiError(
        'missing_api_key',
        "Cua's protocol takes Authorization: Bearer <account or reservation key>; a viewer link opens the live view only.",
      );
    const principal = await authenticate(ctx.reads, header, ctx.clock.now());
    const sandbox = await findSandbox(ctx, principal, sandboxId);
    await guestOf(ctx, sandbox); // a sandbox that is not running is refused before the upgrade
    await runner.admitted(
      'cua',
      sandbox,
      sessionCredential(ctx, 'cua', request, url, { sandbox }),
      undefined,
      { wss: cuaWss, request, socket, head },
      reqLog,
      () => {}, // nothing was opened for it before the upgrade
      (ws: WebSocket) => serveCuaSocket(ws, () => guestOfPrincipal(ctx, principal, sandboxId), reqLog),
    );
  }

  /** A WebSocket of a server in the sandbox (port-websocket.ts). */
  async function servePort(
    sandboxId: string,
    port: string,
    { request, socket, head, url, reqLog }: Incoming,
  ): Promise<void> {
    const target = await portWebSocketTarget(ctx, request, socket, sandboxId, port, url);
    if (target === 'answered') return;
    const { upstream, grant } = target;
    if (socket.destroyed) return upstream.terminate();
    if (upstream.protocol) chosen.set(request, upstream.protocol);
    const counters = runner.byteCounters('port');
    await runner.admitted(
      'port',
      target.sandbox,
      grant,
      grant.closeAt,
      { wss: portWss, request, socket, head },
      reqLog,
      () => upstream.terminate(),
      (ws: WebSocket) => relayWebSockets(ws, upstream, counters),
    );
  }

  async function serve(
    kind: 'vnc' | 'ssh',
    sandboxId: string,
    { request, socket, head, url, reqLog }: Incoming,
  ): Promise<void> {
    const target =
      kind === 'vnc'
        ? await vncTarget(ctx, request, sandboxId, url)
        : await sshTarget(ctx, request, sandboxId);
    if (socket.destroyed) {
      target.vm.socket.destroy();
      return;
    }
    await runner.admitted(
      kind,
      target.sandbox,
      sessionCredential(ctx, kind, request, url, target),
      target.closeAt,
      { wss, request, socket, head },
      reqLog,
      () => target.vm.socket.destroy(),
      (ws: WebSocket) => relaySession(kind, ws, target, reqLog),
    );
  }

  /** The VNC or SSH session: the viewer's handshake (VNC), then bytes both ways. */
  async function relaySession(
    kind: 'vnc' | 'ssh',
    ws: WebSocket,
    target: ProxyTarget,
    reqLog: FastifyBaseLogger,
  ): Promise<void> {
    const ns = target.sandbox.metadata.namespace!;
    const name = target.sandbox.metadata.name;
    try {
      const initialToVm = target.greet ? await target.greet(ws) : undefined;
      await relay(target.vm, ws, {
        ...(initialToVm && { initialToVm }),
        ...(kind === 'vnc' && { onToVm: viewerInput(ns, name, reqLog) }),
        counters: runner.byteCounters(kind),
      });
    } catch (err) {
      reqLog.info({ err: (err as Error).message }, 'websocket handshake failed');
      target.vm.socket.destroy();
      if (ws.readyState === ws.OPEN) ws.close(1002, 'handshake failed');
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
      const clients = () => servers.flatMap((server) => [...server.clients]);
      for (const client of clients()) client.close(1001, 'server shutting down');
      // A client that does not answer the close frame is cut off rather than waited for.
      const cutOff = setTimeout(() => {
        for (const client of clients()) client.terminate();
        for (const socket of sockets) socket.destroy();
      }, CLOSE_GRACE_MS);
      await Promise.allSettled([...open]);
      clearTimeout(cutOff);
      for (const server of servers) server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
