// A persistent RFB (VNC) client session on a stream: Tart's VNC server, reached through the Mac's SSH
// connection. It keeps the framebuffer in memory, decoded in-process, pixels as 32-bit R,G,B,X so
// that sharp takes them as they are. It asks for ZRLE first (zrle.ts: a full 1280×800 screen is a
// few hundred KiB instead of 4 MiB through the SSH tunnel) and Raw after it: a server uses the first
// encoding it supports, and every RFB server has Raw (Tart's server's encodings are undocumented,
// see docs/mac.md). Pointer and key events are RFB messages 5 and 4.
import type { Duplex } from 'node:stream';
import { ByteReader } from '../../api/ws/byte-reader.ts';
import { authenticateToServer } from '../../api/ws/rfb.ts';
import { DriverError } from '../driver.ts';
import { ENCODING_ZRLE, ZrleDecoder } from './zrle.ts';

const ENCODING_RAW = 0;
const ENCODING_DESKTOP_SIZE = -223;
/** Cursor pseudo-encoding: the server sends the pointer's shape (the framebuffer never holds it). */
const ENCODING_CURSOR = -239;

/** The pointer's shape as the server last sent it: R,G,B,X pixels and a 1-bit opacity mask. */
export interface CursorShape {
  hotX: number;
  hotY: number;
  width: number;
  height: number;
  pixels: Buffer;
  /** Rows of ceil(width / 8) bytes, most significant bit first; 1 = drawn. */
  mask: Buffer;
}

/** Pixel encodings the client offers, best first: `raw` offers Raw alone (the bench's baseline). */
export type RfbEncodings = 'zrle' | 'raw';

export class RfbClient {
  width = 0;
  height = 0;
  /** R,G,B,X per pixel, row-major. */
  #fb = Buffer.alloc(0);
  readonly #stream: Duplex;
  readonly #reader = new ByteReader();
  /** Updates asked for and received: a capture waits until the update it asked for has arrived. */
  #requested = 0;
  #received = 0;
  #waiters: { seq: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  /** The last capture in line (see capture()). */
  #captures: Promise<unknown> = Promise.resolve();
  #error: Error | undefined;
  readonly #zrle = new ZrleDecoder();
  /** Pixel encodings the server has used on this session (RFB numbers: 0 Raw, 16 ZRLE). */
  readonly encodingsUsed = new Set<number>();
  /** Undefined until the server sends a shape (a server without the Cursor encoding never does). */
  cursor: CursorShape | undefined;

  private constructor(stream: Duplex) {
    this.#stream = stream;
    stream.on('data', (b: Buffer) => this.#reader.push(b));
    const end = (e?: Error) => this.#fail(e ?? new DriverError('unreachable', 'the VNC connection closed'));
    stream.on('error', end);
    stream.on('close', () => end());
  }

  static async connect(
    stream: Duplex,
    password: string,
    encodings: RfbEncodings = 'zrle',
  ): Promise<RfbClient> {
    const c = new RfbClient(stream);
    try {
      await authenticateToServer(c.#reader, (b) => stream.write(b), password);
      stream.write(Buffer.from([1])); // ClientInit: shared, other viewers stay connected
      const init = await c.#reader.read(24);
      c.#resize(init.readUInt16BE(0), init.readUInt16BE(2));
      await c.#reader.read(init.readUInt32BE(20)); // desktop name
      const fmt = Buffer.alloc(20);
      fmt[0] = 0; // SetPixelFormat
      fmt.set([32, 24, 0, 1], 4); // bpp, depth, little-endian, true colour
      fmt.writeUInt16BE(255, 8);
      fmt.writeUInt16BE(255, 10);
      fmt.writeUInt16BE(255, 12);
      fmt.set([0, 8, 16], 14); // shifts: red, green, blue → bytes R,G,B,X in memory
      const offered = [
        ...(encodings === 'zrle' ? [ENCODING_ZRLE] : []),
        ENCODING_RAW,
        ENCODING_DESKTOP_SIZE,
        ENCODING_CURSOR,
      ];
      const enc = Buffer.alloc(4 + offered.length * 4);
      enc[0] = 2; // SetEncodings
      enc.writeUInt16BE(offered.length, 2);
      offered.forEach((e, i) => enc.writeInt32BE(e, 4 + i * 4));
      stream.write(Buffer.concat([fmt, enc]));
    } catch (e) {
      stream.destroy();
      throw new DriverError('unreachable', `VNC login failed: ${(e as Error).message}`);
    }
    void c.#loop();
    return c;
  }

  get alive(): boolean {
    return this.#error === undefined;
  }

  /**
   * The whole screen as it is after a full update asked for now: R,G,B,X bytes. One request is out
   * at a time (callers queue): a server may answer several pending requests with one update (x11vnc
   * does), and RFB does not say which request an update answers.
   */
  capture(): Promise<{ data: Buffer; width: number; height: number }> {
    const turn = this.#captures.then(() => this.#captureNow());
    this.#captures = turn.catch(() => undefined);
    return turn;
  }

  async #captureNow(): Promise<{ data: Buffer; width: number; height: number }> {
    if (this.#error) throw this.#error;
    const seq = ++this.#requested;
    const req = Buffer.alloc(10);
    req[0] = 3; // FramebufferUpdateRequest, not incremental
    req.writeUInt16BE(this.width, 6);
    req.writeUInt16BE(this.height, 8);
    this.#stream.write(req);
    await new Promise<void>((resolve, reject) => this.#waiters.push({ seq, resolve, reject }));
    return { data: Buffer.from(this.#fb), width: this.width, height: this.height };
  }

  pointer(x: number, y: number, buttons: number): void {
    const m = Buffer.alloc(6);
    m[0] = 5;
    m[1] = buttons;
    m.writeUInt16BE(x, 2);
    m.writeUInt16BE(y, 4);
    this.#write(m);
  }

  key(keysym: number, down: boolean): void {
    const m = Buffer.alloc(8);
    m[0] = 4;
    m[1] = down ? 1 : 0;
    m.writeUInt32BE(keysym >>> 0, 4);
    this.#write(m);
  }

  close(): void {
    this.#stream.destroy();
  }

  #write(b: Buffer): void {
    if (this.#error) throw this.#error;
    this.#stream.write(b);
  }

  #resize(width: number, height: number): void {
    this.width = width;
    this.height = height;
    this.#fb = Buffer.alloc(width * height * 4);
  }

  async #loop(): Promise<void> {
    try {
      for (;;) {
        const type = await this.#reader.readU8();
        if (type === 0) await this.#update();
        else if (type === 1) {
          const h = await this.#reader.read(5);
          await this.#reader.skip(h.readUInt16BE(3) * 6);
        } else if (type === 2)
          continue; // bell
        else if (type === 3) {
          const h = await this.#reader.read(7);
          await this.#reader.skip(h.readUInt32BE(3));
        } else throw new DriverError('command_failed', `VNC server sent an unknown message type ${type}`);
      }
    } catch (e) {
      this.#fail(e as Error);
    }
  }

  async #update(): Promise<void> {
    const h = await this.#reader.read(3);
    const rects = h.readUInt16BE(1);
    for (let i = 0; i < rects; i++) {
      const r = await this.#reader.read(12);
      const [x, y, w, hgt] = [r.readUInt16BE(0), r.readUInt16BE(2), r.readUInt16BE(4), r.readUInt16BE(6)];
      const encoding = r.readInt32BE(8);
      if (encoding === ENCODING_DESKTOP_SIZE) {
        this.#resize(w, hgt);
      } else if (encoding === ENCODING_CURSOR) {
        const pixels = await this.#reader.read(w * hgt * 4);
        const mask = await this.#reader.read(Math.ceil(w / 8) * hgt);
        this.cursor = w * hgt > 0 ? { hotX: x, hotY: y, width: w, height: hgt, pixels, mask } : undefined;
      } else if (encoding === ENCODING_RAW) {
        this.encodingsUsed.add(encoding);
        const pixels = await this.#reader.read(w * hgt * 4);
        for (let row = 0; row < hgt; row++) {
          pixels.copy(this.#fb, ((y + row) * this.width + x) * 4, row * w * 4, (row + 1) * w * 4);
        }
      } else if (encoding === ENCODING_ZRLE) {
        this.encodingsUsed.add(encoding);
        const length = (await this.#reader.read(4)).readUInt32BE(0);
        const data = await this.#reader.read(length);
        await this.#zrle.decode(data, x, y, w, hgt, { data: this.#fb, width: this.width });
      } else {
        throw new DriverError(
          'command_failed',
          `VNC server used encoding ${encoding}, which was not offered`,
        );
      }
    }
    this.#received++;
    const done = this.#waiters.filter((w) => w.seq <= this.#received);
    this.#waiters = this.#waiters.filter((w) => w.seq > this.#received);
    for (const w of done) w.resolve();
  }

  #fail(e: Error): void {
    if (this.#error) return;
    this.#error = e instanceof DriverError ? e : new DriverError('unreachable', `VNC session: ${e.message}`);
    this.#reader.fail(this.#error);
    for (const w of this.#waiters) w.reject(this.#error);
    this.#waiters = [];
    this.#stream.destroy();
    this.#zrle.close();
  }
}
