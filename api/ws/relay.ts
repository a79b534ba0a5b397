// Relays bytes between a WebSocket (binary messages) and a TCP connection to the VM, with
// backpressure both ways and closes propagated both ways:
// - VM → viewer: reading from the VM stops while more than HIGH_WATER bytes wait in the WebSocket's
//   send queue (counted until each send's callback), and resumes below LOW_WATER;
// - viewer → VM: the WebSocket is paused while the TCP socket's buffer is full, until 'drain';
// - the VM closing (or failing) closes the WebSocket (1000, or 1011); the viewer closing ends the
//   TCP connection, which is destroyed if the VM does not close its side soon after.
import type { WebSocket } from 'ws';
import type { VmConnection } from './connect.ts';

const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
const TCP_CLOSE_GRACE_MS = 2_000;

export interface RelayCounters {
  toVm(bytes: number): void;
  toClient(bytes: number): void;
}

/** Starts relaying; resolves once both sides are closed. `initialToVm`: bytes read during a handshake. */
export function relay(
  vm: VmConnection,
  ws: WebSocket,
  opts: { initialToVm?: Buffer; counters?: RelayCounters },
): Promise<void> {
  const tcp = vm.socket;
  let queued = 0;
  let stopped = false;
  const sendToClient = (chunk: Buffer): boolean => {
    if (ws.readyState !== ws.OPEN) return true;
    queued += chunk.length;
    opts.counters?.toClient(chunk.length);
    ws.send(chunk, { binary: true }, () => {
      queued -= chunk.length;
      if (stopped && queued < LOW_WATER && !tcp.destroyed) {
        stopped = false;
        tcp.resume();
      }
    });
    stopped = queued > HIGH_WATER;
    return !stopped;
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
    vm.setSink(sendToClient);
    // The VM may have hung up while the viewer was still shaking hands: its 'close' is past.
    if (tcp.destroyed) {
      tcpClosed = true;
      if (ws.readyState === ws.OPEN) ws.close(1000, 'VM closed the connection');
      done();
    }
  });
}

export function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
