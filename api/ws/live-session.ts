// What every WebSocket (VNC, SSH, Cua, exec stream, forwarded port) goes through once its target
// is ready: counted in against the caps (429 past one), upgraded, then run as a live session, which
// is counted in the metrics, marks the sandbox active (at open, every 30 s, at close), closes at its
// viewer link's expiry (4001) and at shutdown (1001), and, for the kinds that may idle for hours,
// pings its client (keepalive.ts). Its slot is freed when it ends, however it ends.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Sandbox } from '../../crds/index.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { ApiContext } from '../services/context.ts';
import { upgrade } from './handshake.ts';
import { keepAlive } from './keepalive.ts';
import { CLOSE_EXPIRED, EXPIRED_REASON, type LiveSessions } from './live-sessions.ts';
import type { SessionCredential } from './session-credentials.ts';

export type Kind = 'vnc' | 'ssh' | 'cua' | 'exec' | 'port';

/** While a connection is open, activity is recorded this often (the reaper's idle limit is ~2 min). */
export const ACTIVITY_INTERVAL_MS = 30_000;
const CLOSE_GRACE_MS = 2_000;

export interface Upgrade {
  wss: WebSocketServer;
  request: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

export interface ByteCounters {
  toVm(bytes: number): void;
  toClient(bytes: number): void;
}

export class LiveSessionRunner {
  readonly #ctx: ApiContext;
  readonly #metrics: ApiMetrics;
  readonly #sessions: LiveSessions;

  constructor(ctx: ApiContext, metrics: ApiMetrics, sessions: LiveSessions) {
    this.#ctx = ctx;
    this.#metrics = metrics;
    this.#sessions = sessions;
  }

  /**
   * Counts a session in (429 past a cap), upgrades the socket, runs `body` on the WebSocket as a live
   * session and releases the slot after. `cleanup` frees what was opened for it if it never runs.
   */
  async admitted(
    kind: Kind,
    sandbox: Sandbox,
    credential: SessionCredential,
    closeAt: number | undefined,
    upgradeWith: Upgrade,
    reqLog: FastifyBaseLogger,
    cleanup: () => void,
    body: (ws: WebSocket) => Promise<void>,
  ): Promise<void> {
    let ws: WebSocket | undefined;
    // Ended by a recheck while the upgrade was still under way: closed as soon as it is done.
    let endedEarly: [code: number, reason: string] | undefined;
    const end = (code: number, reason: string): void => {
      reqLog.info({ kind, code }, reason);
      if (!ws) {
        endedEarly = [code, reason];
        return cleanup();
      }
      ws.close(code, reason);
      // A client that does not answer the close frame is cut off.
      setTimeout(() => ws?.terminate(), CLOSE_GRACE_MS).unref();
    };
    let release: () => void;
    try {
      release = this.#sessions.admit({
        account: sandbox.metadata.namespace!,
        sandbox: sandbox.metadata.name,
        ...credential,
        end,
      });
    } catch (err) {
      cleanup();
      throw err;
    }
    try {
      try {
        ws = await upgrade(upgradeWith.wss, upgradeWith.request, upgradeWith.socket, upgradeWith.head);
      } catch (err) {
        cleanup();
        throw err;
      }
      if (endedEarly) end(...endedEarly);
      await this.#live(kind, ws, sandbox, closeAt, reqLog, () => body(ws!));
    } finally {
      release();
    }
  }

  /** The byte counters of a kind's relay, looked up once per session rather than per chunk. */
  byteCounters(kind: Kind): ByteCounters {
    const toVm = this.#metrics.wsBytes.labels({ kind, direction: 'to_vm' });
    const toClient = this.#metrics.wsBytes.labels({ kind, direction: 'to_client' });
    return { toVm: (n) => toVm.inc(n), toClient: (n) => toClient.inc(n) };
  }

  async #live(
    kind: Kind,
    ws: WebSocket,
    sandbox: Sandbox,
    closeAt: number | undefined,
    reqLog: FastifyBaseLogger,
    body: () => Promise<void>,
  ): Promise<void> {
    const ctx = this.#ctx;
    const ns = sandbox.metadata.namespace!;
    const name = sandbox.metadata.name;
    this.#metrics.wsConnections.inc({ kind });
    void ctx.activity.touch(ns, name, true);
    const heartbeat = setInterval(() => void ctx.activity.touch(ns, name), ACTIVITY_INTERVAL_MS);
    const expiry =
      closeAt === undefined
        ? undefined
        : setTimeout(() => ws.close(CLOSE_EXPIRED, EXPIRED_REASON), Math.max(0, closeAt - ctx.clock.now()));
    const stop = () => ws.readyState === ws.OPEN && ws.close(1001, 'server shutting down');
    ctx.shutdown.addEventListener('abort', stop, { once: true });
    const stopPinging = kind === 'exec' || kind === 'port' ? keepAlive(ws) : undefined;
    try {
      await body();
    } finally {
      stopPinging?.();
      clearInterval(heartbeat);
      if (expiry) clearTimeout(expiry);
      ctx.shutdown.removeEventListener('abort', stop);
      this.#metrics.wsConnections.dec({ kind });
      void ctx.activity.touch(ns, name, true);
      reqLog.info({ kind }, 'websocket closed');
    }
  }
}
