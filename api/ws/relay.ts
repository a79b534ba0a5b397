// Relays bytes between a WebSocket (binary messages) and a TCP connection to the VM, with
// backpressure both ways and closes propagated both ways:
// - VM → viewer: the socket is paused while more than HIGH_WATER bytes wait in the WebSocket's send
//   queue (counted until each send's callback), and resumed below LOW_WATER;
// - viewer → VM: the WebSocket is paused while the TCP socket's buffer is full, until 'drain';
// - the VM closing (or failing) closes the WebSocket (1000, or 1011); the viewer closing ends the
//   TCP connection, which is destroyed if the VM does not close its side soon after.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
const TCP_CLOSE_GRACE_MS = 2_000;

export interface RelayCounters {
  toVm(bytes: number): void;
  toClient(bytes: number): void;
}

/** Starts relaying; resolves once both sides are closed. `initial*` are bytes read during handshakes. */
export function relay(
  tcp: Socket,
  ws: WebSocket,
  opts: { initialToClient?: Buffer; initialToVm?: Buffer; counters?: RelayCounters },
): Promise<void> {
  let queued = 0;
  const sendToClient = (chunk: Buffer) => {
    queued += chunk.length;
    opts.counters?.toClient(chunk.length);
    ws.send(chunk, { binary: true }, () => {
      queued -= chunk.length;
      if (queued < LOW_WATER && tcp.isPaused() && !tcp.destroyed) tcp.resume();
    });
    if (queued > HIGH_WATER) tcp.pause();
  };
  const sendToVm = (chunk: Buffer) => {
    opts.counters?.toVm(chunk.length);
    if (!tcp.write(chunk)) {
      ws.pause();
      tcp.once('drain', () => ws.resume());
    }
  };

  return new Promise<void>((resolve) => {
    let wsClosed = false;
    let tcpClosed = false;
    const done = () => {
      if (wsClosed && tcpClosed) resolve();
    };

    tcp.on('data', (chunk: Buffer) => {
      if (ws.readyState === ws.OPEN) sendToClient(chunk);
    });
    tcp.on('error', () => {
      if (ws.readyState === ws.OPEN) ws.close(1011, 'VM connection failed');
    });
    tcp.on('close', () => {
      tcpClosed = true;
      if (ws.readyState === ws.OPEN) ws.close(1000, 'VM closed the connection');
      done();
    });

    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      if (!tcp.destroyed && tcp.writable) sendToVm(toBuffer(data));
    });
    ws.on('close', () => {
      wsClosed = true;
      if (!tcp.destroyed) {
        tcp.end();
        setTimeout(() => tcp.destroy(), TCP_CLOSE_GRACE_MS).unref();
      }
      done();
    });
    ws.on('error', () => tcp.destroy());

    if (opts.initialToVm?.length) sendToVm(opts.initialToVm);
    if (opts.initialToClient?.length) sendToClient(opts.initialToClient);
    tcp.resume();
  });
}

export function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
