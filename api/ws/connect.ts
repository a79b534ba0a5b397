// A TCP connection to a VM's port, with a deadline; and the HTTP error answer for an upgrade
// request that cannot be served (the socket is still raw HTTP at that point).
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError } from '../errors.ts';
import { writeJsonAnswer } from '../client-errors.ts';
import { ReadPool } from './read-pool.ts';
import type { WebSocket } from 'ws';
import type { Sandbox } from '../../crds/index.ts';
import { DriverError, type Endpoint, type Guest, type GuestService } from '../../hosts/driver.ts';

export const CONNECT_TIMEOUT_MS = 10_000;
/**
 * Reads from a VM land in 1 MiB buffers (Node's `onread`) instead of 64 KiB chunks: a 4 MB VNC
 * framebuffer update costs ~5 reads and ~5 WebSocket frames instead of 64 of each.
 */
export const READ_BUFFER_BYTES = 1024 * 1024;
/** Free read buffers a connection keeps (so an idle one holds at most 2 MiB). */
const SPARE_READ_BUFFERS = 1;

/**
 * Where bytes from the VM go: `release` says the chunk's memory may be read into again (a sink that
 * keeps the chunk never calls it); false stops reading until `socket.resume()`.
 */
export type VmSink = (chunk: Buffer, release: () => void) => boolean;

/** A connection to a VM's port whose incoming bytes go to one sink at a time (handshake, relay). */
export class VmConnection {
  /** A TCP socket, or a driver's stream to the VM (tart: an SSH channel through the Mac). */
  readonly socket: Duplex;
  #sink: VmSink | undefined;
  #early: { chunk: Buffer; release: () => void }[] = [];

  constructor(socket: Duplex) {
    this.socket = socket;
  }

  /** Called by the socket for each read; false stops reading until `socket.resume()`. */
  receive(chunk: Buffer, release: () => void): boolean {
    if (this.#sink) return this.#sink(chunk, release);
    this.#early.push({ chunk, release });
    return this.#early.length < 16;
  }

  /** Back to buffering (between a handshake and the relay), with bytes read too far put back first. */
  hold(readAhead: Buffer): void {
    this.#sink = undefined;
    if (readAhead.length > 0) this.#early.unshift({ chunk: readAhead, release: () => {} });
  }

  /** Where bytes from the VM go from now on, starting with any that arrived before. */
  setSink(sink: VmSink): void {
    this.#sink = sink;
    const early = this.#early;
    this.#early = [];
    let flowing = true;
    for (const { chunk, release } of early) flowing = sink(chunk, release) && flowing;
    if (flowing && !this.socket.destroyed) this.socket.resume();
  }
}

export function connectVm(host: string, port: number, timeoutMs = CONNECT_TIMEOUT_MS): Promise<VmConnection> {
  // Set when the connect promise resolves, in a microtask: no read callback can run before it.
  let conn: VmConnection | undefined;
  const pool = new ReadPool(READ_BUFFER_BYTES, SPARE_READ_BUFFERS);
  const onread = {
    buffer: pool.next,
    callback: (n: number, buf: Buffer) => {
      const { chunk, release } = pool.take(n, buf);
      return conn!.receive(chunk, release);
    },
  };
  return connectTcp(host, port, timeoutMs, onread).then((socket) => (conn = new VmConnection(socket)));
}

/**
 * A connection over a driver's stream (Guest.openStream). Its chunks are its own (no read buffer to
 * lend back); a sink that says stop pauses the stream until the relay resumes it.
 */
export function streamConnection(stream: Duplex): VmConnection {
  const conn = new VmConnection(stream);
  stream.on('data', (chunk: Buffer) => {
    if (!conn.receive(chunk, () => {})) stream.pause();
  });
  return conn;
}

/**
 * Connects to the VM's VNC server or sshd: through the driver's stream when it offers one (a VM
 * reached only through its Mac), else over TCP to the endpoint.
 */
export async function connectGuest(
  guest: Guest,
  service: GuestService,
  endpoint: Endpoint,
): Promise<VmConnection> {
  if (!guest.openStream) return connectVm(endpoint.host, endpoint.port);
  try {
    return streamConnection(await guest.openStream(service));
  } catch (err) {
    if (err instanceof DriverError && err.code === 'timeout') {
      throw new ApiError('guest_timeout', `The VM did not accept a ${service} connection: ${err.message}`);
    }
    throw new ApiError(
      'guest_unreachable',
      `The VM's ${service} server is unreachable: ${(err as Error).message}`,
    );
  }
}

function connectTcp(
  host: string,
  port: number,
  timeoutMs: number,
  onread: { buffer: () => Buffer; callback: (n: number, buf: Buffer) => boolean },
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true, onread });
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
  writeJsonAnswer(socket, err.status, err.toJSON(), headers);
}

/** What a proxy (VNC, SSH) hands the upgrade: the sandbox, its open VM connection, and how to greet. */
export interface ProxyTarget {
  kind: 'vnc' | 'ssh';
  sandbox: Sandbox;
  /** Connected to the VM; what it sent so far is buffered until the relay starts. */
  vm: VmConnection;
  /** When the connection must end (viewer link expiry), ms since the epoch. */
  closeAt?: number;
  /** A handshake with the client after the upgrade; resolves with bytes read beyond it. */
  greet?: (ws: WebSocket) => Promise<Buffer>;
}
