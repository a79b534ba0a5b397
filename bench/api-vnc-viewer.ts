// The viewer side of bench/api.ts's VNC measurement, in its own thread (as a real viewer is its own
// process). One viewer code for every path, so that paths are compared like with like:
// - the RFB side: the handshake of api/ws/rfb.ts (VNC authentication when the server asks for it),
//   raw encoding only, and the pixel bytes skipped as they arrive (no framebuffer is painted), so
//   that the viewer costs little next to the path it measures;
// - the transport: raw TCP bytes, or WebSocket frames decoded as a stream (each frame's payload
//   goes on as it arrives, as the TCP bytes do), or the `ws` library (what a Node client gets
//   by default: each message is assembled, and copied, before it is handed on).
// Paths are measured one at a time (x11vnc serves its clients in one loop), round after round, so
// that none gets the quieter moment. Each measures full raw updates (request → last byte, and first
// → last byte) and the round trip of a 16×16 update.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { WebSocket } from 'ws';
import { ByteReader } from '../api/ws/byte-reader.ts';
import { toBuffer } from '../api/ws/relay.ts';
import { authenticateToServer } from '../api/ws/rfb.ts';

export interface ViewerPath {
  name: string;
  /** `tcp`: host/port; `ws` and `ws-lib`: url. */
  transport: 'tcp' | 'ws' | 'ws-lib';
  host?: string;
  port?: number;
  url?: string;
  /** The VNC password, when the path leads to a server that asks for one. */
  password?: string;
  /**
   * Send each request this late (a busy wait after the previous answer): a direct viewer made as
   * far from the server as a relay makes it, to tell the server's sensitivity from the relay's cost.
   */
  lateMs?: number;
}

export interface ViewerJob {
  paths: ViewerPath[];
  frames: number;
  roundTrips: number;
  rounds: number;
}

export interface PathResult {
  /** Median over rounds, bytes/s: pixel bytes over request → last byte. */
  cycle: number;
  /** Median over rounds, bytes/s: pixel bytes over first → last byte. */
  transfer: number;
  /** Every full update's request → first byte, ms. */
  waits: number[];
  /** Every small update's round trip, ms. */
  rtt: number[];
}

/** Longer than x11vnc's 0.5 s of urgent updates after a client connects. */
const SETTLE_MS = 700;

interface Transport {
  write(b: Buffer): void;
  close(): void;
}

/** Opens the transport; every byte received goes to `reader`, and `reader.fail` on close. */
async function openTransport(path: ViewerPath, reader: ByteReader, mark: () => void): Promise<Transport> {
  const push = (b: Buffer) => {
    mark();
    reader.push(b);
  };
  if (path.transport === 'ws-lib') {
    const ws = new WebSocket(path.url!, { perMessageDeflate: false });
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => push(toBuffer(data)));
    ws.on('close', () => reader.fail(new Error('websocket closed')));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return { write: (b) => ws.send(b), close: () => ws.close() };
  }
  const url = path.transport === 'ws' ? new URL(path.url!) : undefined;
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect({
      host: url?.hostname ?? path.host!,
      port: url ? Number(url.port) : path.port!,
      noDelay: true,
    });
    s.once('connect', () => resolve(s)).once('error', reject);
  });
  socket.on('close', () => reader.fail(new Error('connection closed')));
  if (!url) {
    socket.on('data', push);
    return { write: (b) => socket.write(b), close: () => socket.destroy() };
  }
  const frames = new FrameDecoder(
    push,
    (b) => socket.write(maskedFrame(0xa, b)),
    () => socket.destroy(),
  );
  await upgrade(socket, url, (rest) => frames.push(rest));
  socket.on('data', (b: Buffer) => frames.push(b));
  return { write: (b) => socket.write(maskedFrame(0x2, b)), close: () => socket.destroy() };
}

/** The HTTP upgrade of a client WebSocket; resolves on 101 with any bytes read past the headers. */
function upgrade(socket: Socket, url: URL, onRest: (b: Buffer) => void): Promise<void> {
  socket.write(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
      'Sec-WebSocket-Version: 13\r\n\r\n',
  );
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onData = (b: Buffer) => {
      head = Buffer.concat([head, b]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.1 101 /.test(status)) return reject(new Error(`upgrade refused: ${status}`));
      resolve();
      if (head.length > end + 4) onRest(head.subarray(end + 4));
    };
    socket.on('data', onData);
  });
}

/** A client frame (RFC 6455: client frames are masked). */
function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const frame = Buffer.allocUnsafe(2 + ext + 4 + len);
  frame[0] = 0x80 | opcode;
  frame[1] = 0x80 | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) frame.writeUInt16BE(len, 2);
  if (ext === 8) frame.writeBigUInt64BE(BigInt(len), 2);
  const mask = randomBytes(4);
  mask.copy(frame, 2 + ext);
  for (let i = 0; i < len; i++) frame[6 + ext + i] = payload[i]! ^ mask[i & 3]!;
  return frame;
}

/** Server frames (unmasked) decoded as a stream: payload bytes go on as they arrive. */
class FrameDecoder {
  #head: Buffer = Buffer.alloc(0);
  #payloadLeft = 0;
  #opcode = 0;
  #control: Buffer[] = [];
  readonly #onData: (b: Buffer) => void;
  readonly #onPing: (b: Buffer) => void;
  readonly #onClose: () => void;

  constructor(onData: (b: Buffer) => void, onPing: (b: Buffer) => void, onClose: () => void) {
    this.#onData = onData;
    this.#onPing = onPing;
    this.#onClose = onClose;
  }

  push(b: Buffer): void {
    while (b.length > 0) {
      if (this.#payloadLeft > 0) {
        const part = b.subarray(0, this.#payloadLeft);
        b = b.subarray(part.length);
        this.#payloadLeft -= part.length;
        if (this.#opcode < 8) this.#onData(part);
        else this.#control.push(part);
        if (this.#payloadLeft === 0) this.#endFrame();
        continue;
      }
      this.#head = this.#head.length ? Buffer.concat([this.#head, b]) : b;
      const h = this.#head;
      if (h.length < 2) return;
      const short = h[1]! & 0x7f;
      const headLen = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (h.length < headLen) return;
      this.#opcode = h[0]! & 0x0f;
      this.#payloadLeft =
        short === 126 ? h.readUInt16BE(2) : short === 127 ? Number(h.readBigUInt64BE(2)) : short;
      b = h.subarray(headLen);
      this.#head = Buffer.alloc(0);
      if (this.#payloadLeft === 0) this.#endFrame();
    }
  }

  #endFrame(): void {
    if (this.#opcode === 0x9) this.#onPing(Buffer.concat(this.#control));
    if (this.#opcode === 0x8) this.#onClose();
    this.#control = [];
  }
}

/** An RFB session that asks for raw updates and skips their pixels. */
class Viewer {
  readonly reader = new ByteReader();
  #transport: Transport | undefined;
  #bitsPerPixel = 32;
  width = 0;
  height = 0;
  /** When the first byte after the last `mark()` arrived. */
  firstByteAt: number | undefined;

  async open(path: ViewerPath): Promise<void> {
    this.#transport = await openTransport(path, this.reader, () => (this.firstByteAt ??= performance.now()));
    const write = (b: Buffer) => this.#transport!.write(b);
    await authenticateToServer(this.reader, write, path.password ?? '');
    write(Buffer.from([1])); // ClientInit: shared
    const init = await this.reader.read(24);
    await this.reader.skip(init.readUInt32BE(20)); // the desktop name
    this.width = init.readUInt16BE(0);
    this.height = init.readUInt16BE(2);
    this.#bitsPerPixel = init.readUInt8(4);
    write(Buffer.from([2, 0, 0, 1, 0, 0, 0, 0])); // SetEncodings: raw only
  }

  requestUpdate(region = { x: 0, y: 0, width: this.width, height: this.height }): void {
    this.firstByteAt = undefined;
    const msg = Buffer.alloc(10);
    msg.writeUInt8(3, 0);
    msg.writeUInt16BE(region.x, 2);
    msg.writeUInt16BE(region.y, 4);
    msg.writeUInt16BE(region.width, 6);
    msg.writeUInt16BE(region.height, 8);
    this.#transport!.write(msg);
  }

  /** Reads server messages until a FramebufferUpdate; resolves with its pixel bytes. */
  async readUpdate(): Promise<number> {
    for (;;) {
      const type = await this.reader.readU8();
      if (type === 0) {
        const rects = (await this.reader.read(3)).readUInt16BE(1);
        let pixelBytes = 0;
        for (let i = 0; i < rects; i++) {
          const r = await this.reader.read(12);
          const encoding = r.readInt32BE(8);
          if (encoding === -223) continue; // DesktopSize: no payload
          if (encoding !== 0) throw new Error(`unexpected encoding ${encoding}`);
          const n = r.readUInt16BE(4) * r.readUInt16BE(6) * (this.#bitsPerPixel / 8);
          await this.reader.skip(n);
          pixelBytes += n;
        }
        return pixelBytes;
      }
      if (type === 1) {
        const head = await this.reader.read(5);
        await this.reader.skip(head.readUInt16BE(3) * 6);
      } else if (type === 3) {
        await this.reader.skip((await this.reader.read(7)).readUInt32BE(3));
      } else if (type !== 2) {
        throw new Error(`unexpected server message ${type}`);
      }
    }
  }

  close(): void {
    this.#transport?.close();
  }
}

interface Sample {
  cycle: number;
  transfer: number;
  waits: number[];
  rtt: number[];
}

/** A busy wait: timers are not precise below a millisecond. */
function late(ms = 0): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

async function measure(path: ViewerPath, job: ViewerJob): Promise<Sample> {
  const v = new Viewer();
  await v.open(path);
  // x11vnc skips its loop's sleep for 0.5 s after any client connects (urgent updates): measured
  // from the start, a path that connects faster would get more of those answers than another.
  // Every path is measured in x11vnc's steady loop.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  v.requestUpdate();
  await v.readUpdate(); // warm-up
  let bytes = 0;
  let cycleMs = 0;
  let transferMs = 0;
  const waits: number[] = [];
  for (let i = 0; i < job.frames; i++) {
    late(path.lateMs);
    const t = performance.now();
    v.requestUpdate();
    bytes += await v.readUpdate();
    const end = performance.now();
    const first = v.firstByteAt ?? t;
    cycleMs += end - t;
    transferMs += end - first;
    waits.push(first - t);
  }
  const rtt: number[] = [];
  for (let i = 0; i < job.roundTrips; i++) {
    late(path.lateMs);
    const t = performance.now();
    v.requestUpdate({ x: 0, y: 0, width: 16, height: 16 });
    await v.readUpdate();
    rtt.push(performance.now() - t);
  }
  v.close();
  return { cycle: bytes / (cycleMs / 1000), transfer: bytes / (transferMs / 1000), waits, rtt };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

export async function runViewer(job: ViewerJob): Promise<Record<string, PathResult>> {
  const samples = new Map<string, Sample[]>(job.paths.map((p) => [p.name, []]));
  for (let round = 0; round < job.rounds; round++) {
    for (const path of job.paths) samples.get(path.name)!.push(await measure(path, job));
  }
  return Object.fromEntries(
    [...samples].map(([name, s]) => [
      name,
      {
        cycle: median(s.map((x) => x.cycle)),
        transfer: median(s.map((x) => x.transfer)),
        waits: s.flatMap((x) => x.waits),
        rtt: s.flatMap((x) => x.rtt),
      },
    ]),
  );
}

if (parentPort && workerData) parentPort.postMessage(await runViewer(workerData as ViewerJob));
