// The exec-stream WebSocket (`/v1/sandboxes/{id}/exec/stream`, account or reservation key): one
// command in the sandbox with its stdin, stdout and stderr as channel-protocol frames
// (channel-protocol.ts), an optional pty with resize, and the exit code in the last frame.
//
// Query: `command` (the shell line, as POST …/exec takes it; repeated, it is an argv whose words are
// quoted, as kubectl sends one), `tty`, `stdin` (default false, as Kubernetes: the command's stdin
// is then closed at once), `cols` and `rows` (the terminal's first size, default 80×24), `timeout`
// (seconds; none: until the command exits or the socket closes).
//
// The command is started before the upgrade, so a refusal is a JSON error. Closing the socket before
// the command exits hangs it up (its process group gets SIGHUP; `nohup`/`setsid` children survive),
// as closing a terminal does. A stream lives as long as its client and command: the client is pinged
// (keepalive.ts) and the VM's side is the SSH connection's own keepalive (hosts/guest-deadlines.ts).
import { finished } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { Sandbox } from '../../crds/index.ts';
import type { ExecStream, PtySize } from '../../hosts/driver.ts';
import { shellQuote } from '../../hosts/linux/ssh-client.ts';
import { authenticate } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from '../services/context.ts';
import { guestOf } from '../services/guests.ts';
import { findSandbox } from '../services/sandboxes.ts';
import {
  STATUS,
  STDERR,
  STDOUT,
  bearerFromProtocols,
  exitStatus,
  failureStatus,
  frame,
  readClientFrame,
} from './channel-protocol.ts';
import type { SessionCredential } from './session-credentials.ts';
import { toBuffer } from './relay.ts';

/** Output waiting to reach the client before the command is made to wait (its SSH window). */
const HIGH_WATER = 1024 * 1024;
const MAX_TIMEOUT_S = 24 * 3600;
const DEFAULT_PTY: PtySize = { cols: 80, rows: 24 };

export interface ExecParams {
  command: string;
  tty: boolean;
  stdin: boolean;
  size: PtySize;
  timeoutS?: number;
}

export interface ExecTarget extends SessionCredential {
  sandbox: Sandbox;
  stream: ExecStream;
  params: ExecParams;
}

/** The query as an exec, or 400 naming the parameter that is wrong. */
export function parseExecQuery(url: URL): ExecParams {
  const q = url.searchParams;
  const words = q.getAll('command');
  if (words.length === 0 || words.every((w) => w.trim() === ''))
    throw new ApiError('invalid_request', 'command is required (?command=<shell line>).');
  const command = words.length === 1 ? words[0]! : words.map(shellQuote).join(' ');
  const flag = (name: string): boolean => {
    const v = q.get(name);
    if (v === null || v === 'false' || v === '0') return false;
    if (v === 'true' || v === '1' || v === '') return true;
    throw new ApiError('invalid_request', `${name} must be true or false.`);
  };
  const int = (name: string, min: number, max: number): number | undefined => {
    const v = q.get(name);
    if (v === null) return undefined;
    const n = /^[0-9]+$/.test(v) ? Number(v) : NaN;
    if (!(n >= min && n <= max))
      throw new ApiError('invalid_request', `${name} must be an integer from ${min} to ${max}.`);
    return n;
  };
  const cols = int('cols', 1, 1000) ?? DEFAULT_PTY.cols;
  const rows = int('rows', 1, 1000) ?? DEFAULT_PTY.rows;
  const timeoutS = int('timeout', 1, MAX_TIMEOUT_S);
  return {
    command,
    tty: flag('tty'),
    stdin: flag('stdin'),
    size: { cols, rows },
    ...(timeoutS !== undefined && { timeoutS }),
  };
}

/** Authorizes the upgrade and starts the command; everything that can fail fails here, as JSON. */
export async function execStreamTarget(
  ctx: ApiContext,
  request: IncomingMessage,
  sandboxId: string,
  url: URL,
): Promise<ExecTarget> {
  const header =
    request.headers.authorization ??
    withBearer(bearerFromProtocols(request.headers['sec-websocket-protocol']));
  const principal = await authenticate(ctx.reads, header, ctx.clock.now());
  const sandbox = await findSandbox(ctx, principal, sandboxId);
  const params = parseExecQuery(url);
  const guest = await guestOf(ctx, sandbox);
  if (!guest.execStream)
    throw new ApiError('feature_not_supported', "This sandbox's host driver has no streaming exec.");
  const stream = await guest.execStream(params.command, {
    ...(params.tty && { pty: params.size }),
    ...(params.timeoutS !== undefined && { timeoutMs: params.timeoutS * 1000 }),
  });
  if (!params.stdin) stream.stdin.end();
  const credential = header ?? '';
  return {
    sandbox,
    stream,
    params,
    credential,
    stillAllowed: async () => {
      const again = await authenticate(ctx.reads, credential, ctx.clock.now());
      return (await findSandbox(ctx, again, sandboxId)).metadata.uid === sandbox.metadata.uid;
    },
  };
}

function withBearer(token: string | undefined): string | undefined {
  return token === undefined ? undefined : `Bearer ${token}`;
}

export interface ExecCounters {
  toVm(bytes: number): void;
  toClient(bytes: number): void;
}

/**
 * Relays the command's streams and the client's frames until the command exits (then the status
 * frame and a 1000 close) or the client leaves (then the command is hung up). Resolves once the
 * socket has closed.
 */
export function runExecSession(ws: WebSocket, target: ExecTarget, counters: ExecCounters): Promise<void> {
  const { stream, params } = target;
  let exited = false;
  let waiting = 0;
  const outputs = [stream.stdout, stream.stderr];
  const send = (channel: number, chunk: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    counters.toClient(chunk.length);
    waiting += chunk.length;
    ws.send(frame(channel, chunk), () => {
      waiting -= chunk.length;
      if (waiting <= HIGH_WATER / 4) for (const o of outputs) if (o.isPaused()) o.resume();
    });
    // A client that does not read holds the command's output, not the server's memory.
    if (waiting > HIGH_WATER) for (const o of outputs) o.pause();
  };
  stream.stdout.on('data', (c: Buffer) => send(STDOUT, c));
  stream.stderr.on('data', (c: Buffer) => send(STDERR, c));
  const drained = Promise.all(outputs.map((o) => finished(o).catch(() => undefined)));

  const refuse = (code: number, reason: string) => {
    if (ws.readyState === ws.OPEN) ws.close(code, reason.slice(0, 120));
  };
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (!isBinary) return refuse(1003, 'binary messages only: one channel byte, then the data');
    let message;
    try {
      message = readClientFrame(toBuffer(data));
    } catch (err) {
      return refuse(1007, (err as Error).message);
    }
    if (message.kind === 'stdin' || message.kind === 'close-stdin') {
      if (!params.stdin) return refuse(1008, 'this stream was opened without stdin (stdin=true)');
      if (message.kind === 'close-stdin') return void stream.stdin.end();
      counters.toVm(message.data.length);
      if (!stream.stdin.write(message.data)) {
        ws.pause();
        stream.stdin.once('drain', () => ws.resume());
      }
    } else if (message.kind === 'resize') {
      if (!params.tty) return;
      try {
        stream.resize(message.size);
      } catch (err) {
        refuse(1007, (err as Error).message);
      }
    }
  });

  return new Promise<void>((resolve) => {
    ws.on('close', () => {
      if (!exited) stream.close();
      resolve();
    });
    stream.exit.then(
      async (exit) => {
        exited = true;
        await drained;
        if (ws.readyState !== ws.OPEN) return;
        ws.send(frame(STATUS, JSON.stringify(exitStatus(exit, params.timeoutS))));
        ws.close(1000, 'command exited');
      },
      async (err: unknown) => {
        exited = true;
        await drained;
        if (ws.readyState !== ws.OPEN) return;
        const message = `the command's end was not seen: ${(err as Error).message}`;
        ws.send(frame(STATUS, JSON.stringify(failureStatus(message))));
        ws.close(1011, 'the VM connection failed');
      },
    );
  });
}
