// Raw pixels of the VM's screen from its long-running X11 connection. GetImage lands in a MIT-SHM
// segment when the server can attach one (about 1 ms for 1280×800 here), else in the reply itself
// (about 6 ms: 4 MB through the socket). Captures on one connection run one at a time, because
// they share the segment.
import { endianness } from 'node:os';
import { DriverError } from '../driver.ts';
import { checkRegion, type Region } from '../screenshot-options.ts';
import { FRAMES_PER_SCREEN, bgrxToRgbSimd, framesBeside } from './bgrx-simd.ts';
import type { X11Connection } from './x11-connection.ts';

/** Packed RGB, 3 bytes per pixel, rows without padding. */
export interface RgbFrame {
  width: number;
  height: number;
  data: Buffer;
  /**
   * Gives `data` back for the next capture once the caller is done with it (the encoder has read
   * it). Optional: a frame never released is simply collected.
   */
  release(): void;
}

interface ShmSegment {
  buffer: Buffer;
  size: number;
  getImage(
    drawable: number,
    x: number,
    y: number,
    w: number,
    h: number,
    planeMask: number,
    format: number | undefined,
    offset: number,
    cb: (err: Error | null, rep: { depth: number; size: number }) => boolean | void,
  ): void;
}

interface Shm {
  usable(cb: (err: Error | null, ok: boolean) => void): void;
  createSegment(size: number, cb: (err: Error | null, seg: ShmSegment) => void): void;
}

interface CursorImage {
  x: number;
  y: number;
  width: number;
  height: number;
  xhot: number;
  yhot: number;
  cursorImage: Buffer;
}

interface XFixes {
  GetCursorImage(cb: (err: Error | null, img: CursorImage) => boolean | void): void;
}

const Z_PIXMAP = 2;

interface CaptureState {
  segment: ShmSegment | undefined;
  /** Tail of the chain that serializes captures on this connection. */
  tail: Promise<unknown>;
  /**
   * Released RGB buffers, reused by the next captures: a fresh 3 MB buffer per 1280×800 shot cost
   * ~0.5 ms of main-thread CPU and as much garbage collection per shot (bench/api.ts --only agent).
   */
  free: Buffer[];
}

/** Released buffers kept per connection: a shot being encoded while the next one is captured. */
const FREE_FRAMES = FRAMES_PER_SCREEN;

const states = new WeakMap<X11Connection, Promise<CaptureState>>();

function stateOf(conn: X11Connection): Promise<CaptureState> {
  let state = states.get(conn);
  if (!state) {
    // The frames beside the segment (bgrx-simd.ts) come first; any others are allocated as needed.
    state = openSegment(conn).then((segment) => ({
      segment,
      tail: Promise.resolve(),
      free: segment ? framesBeside(segment.buffer) : [],
    }));
    states.set(conn, state);
  }
  return state;
}

/** A segment the size of the whole screen, or undefined when shared memory does not work here. */
async function openSegment(conn: X11Connection): Promise<ShmSegment | undefined> {
  const shm = await conn.extension<Shm>('shm');
  if (!shm) return undefined;
  const usable = await conn.request<boolean>('ShmAttach probe', (reply) =>
    shm.usable((err, ok) => reply(err, ok)),
  );
  if (!usable) return undefined;
  return conn
    .request<ShmSegment>('ShmCreateSegment', (reply) =>
      shm.createSegment(conn.width * conn.height * 4, (err, seg) => reply(err, seg)),
    )
    .catch(() => undefined);
}

/** Captures `region` (default: the whole screen) as packed RGB. */
export async function captureRgb(conn: X11Connection, region?: Region): Promise<RgbFrame> {
  const r = region ?? { x: 0, y: 0, width: conn.width, height: conn.height };
  checkRegion(r, conn);
  const state = await stateOf(conn);
  const run = state.tail.then(() => grab(conn, state, r));
  state.tail = run.catch(() => undefined);
  return run;
}

async function grab(conn: X11Connection, state: CaptureState, r: Region): Promise<RgbFrame> {
  const segment = state.segment;
  let bgrx: Buffer;
  let depth: number;
  if (segment) {
    const rep = await conn.request<{ depth: number; size: number }>('ShmGetImage', (reply) =>
      segment.getImage(conn.root, r.x, r.y, r.width, r.height, 0xffffffff, Z_PIXMAP, 0, (err, rep) =>
        reply(err, rep),
      ),
    );
    await conn.readBack(segment.buffer, rep.size);
    bgrx = segment.buffer.subarray(0, rep.size);
    depth = rep.depth;
  } else {
    const img = await conn.request<{ depth: number; data: Buffer }>('GetImage', (reply) =>
      conn.client.GetImage(Z_PIXMAP, conn.root, r.x, r.y, r.width, r.height, 0xffffffff, reply),
    );
    bgrx = img.data;
    depth = img.depth;
  }
  if ((depth !== 24 && depth !== 32) || bgrx.length < r.width * r.height * 4) {
    throw new DriverError(
      'command_failed',
      `unsupported screen format: depth ${depth}, ${bgrx.length} bytes`,
    );
  }
  const pixels = r.width * r.height;
  const size = rgbBufferSize(pixels);
  // A frame beside the segment is the whole screen's size (with bytes to spare): any region fits.
  const at = state.free.findIndex((b) => b.length === size || (b.buffer === bgrx.buffer && b.length > size));
  const out = at < 0 ? Buffer.allocUnsafeSlow(size) : state.free.splice(at, 1)[0]!;
  let released = false;
  return {
    width: r.width,
    height: r.height,
    data: bgrxToRgbSimd(bgrx, pixels, out) ? out.subarray(0, pixels * 3) : bgrxToRgb(bgrx, pixels, out),
    release: () => {
      if (released) return;
      released = true;
      // Frames beside the segment are kept whatever the count (there are FREE_FRAMES of them).
      if (state.free.length >= FREE_FRAMES && out.buffer !== bgrx.buffer) return;
      state.free.push(out);
    },
  };
}

/** Bytes of the buffer `bgrxToRgb` writes `pixels` into: whole 32-bit words. */
function rgbBufferSize(pixels: number): number {
  return Math.ceil((pixels * 3) / 4) * 4;
}

/**
 * ZPixmap at depth 24/32 on a little-endian server is B, G, R, X per pixel. Into `out` when given
 * (at least `rgbBufferSize(pixels)` bytes, word-aligned), else a new buffer.
 */
export function bgrxToRgb(src: Buffer, pixels: number, out?: Buffer): Buffer {
  return LITTLE_ENDIAN && src.byteOffset % 4 === 0 && (out === undefined || out.byteOffset % 4 === 0)
    ? bgrxToRgbWords(src, pixels, out)
    : bgrxToRgbBytes(src, pixels, out);
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** One byte at a time: the plain form (and the fallback). */
export function bgrxToRgbBytes(src: Buffer, pixels: number, into?: Buffer): Buffer {
  const out = (into ?? Buffer.allocUnsafe(pixels * 3)).subarray(0, pixels * 3);
  for (let p = 0, q = 0; q < out.length; p += 4, q += 3) {
    out[q] = src[p + 2] as number;
    out[q + 1] = src[p + 1] as number;
    out[q + 2] = src[p] as number;
  }
  return out;
}

/**
 * Four pixels (four 32-bit words in) to twelve bytes (three words out) at a time: about 4× faster
 * than a byte at a time; the form for buffers outside a screen memory (captures land in one and
 * are converted by bgrx-simd.ts, ~8× faster again). A word read little-endian is X<<24 | R<<16 |
 * G<<8 | B; `swap` turns it into B<<16 | G<<8 | R, i.e. the bytes R, G, B when written back.
 */
function bgrxToRgbWords(src: Buffer, pixels: number, into?: Buffer): Buffer {
  // Rounded up to whole words (the extra bytes are cut off below).
  const out = into ?? Buffer.allocUnsafe(rgbBufferSize(pixels));
  const s = new Uint32Array(src.buffer, src.byteOffset, pixels);
  const o = new Uint32Array(out.buffer, out.byteOffset, rgbBufferSize(pixels) / 4);
  const swap = (w: number) => ((w >>> 16) & 0xff) | (w & 0xff00) | ((w & 0xff) << 16);
  const whole = pixels - (pixels % 4);
  let q = 0;
  for (let p = 0; p < whole; p += 4, q += 3) {
    const a = swap(s[p] as number);
    const b = swap(s[p + 1] as number);
    const c = swap(s[p + 2] as number);
    const d = swap(s[p + 3] as number);
    o[q] = a | (b << 24);
    o[q + 1] = (b >>> 8) | (c << 16);
    o[q + 2] = (c >>> 16) | (d << 8);
  }
  for (let p = whole, at = whole * 3; p < pixels; p++, at += 3) {
    out[at] = src[p * 4 + 2] as number;
    out[at + 1] = src[p * 4 + 1] as number;
    out[at + 2] = src[p * 4] as number;
  }
  return out.subarray(0, pixels * 3);
}

/**
 * Draws the pointer into `frame` (whose top-left is at `origin` on the screen). Xvfb leaves the
 * pointer out of GetImage, so the image comes from XFixes GetCursorImage (premultiplied ARGB).
 * Returns false when the server has no XFixes.
 */
export async function drawCursor(
  conn: X11Connection,
  frame: RgbFrame,
  origin: { x: number; y: number },
): Promise<boolean> {
  const fixes = await conn.extension<XFixes>('fixes');
  if (!fixes) return false;
  const c = await conn.request<CursorImage>('XFixesGetCursorImage', (reply) =>
    fixes.GetCursorImage((err, img) => reply(err, img)),
  );
  const left = c.x - c.xhot - origin.x;
  const top = c.y - c.yhot - origin.y;
  for (let cy = 0; cy < c.height; cy++) {
    const fy = top + cy;
    if (fy < 0 || fy >= frame.height) continue;
    for (let cx = 0; cx < c.width; cx++) {
      const fx = left + cx;
      if (fx < 0 || fx >= frame.width) continue;
      const s = (cy * c.width + cx) * 4;
      const a = c.cursorImage[s + 3] as number;
      if (a === 0) continue;
      const d = (fy * frame.width + fx) * 3;
      const keep = 255 - a;
      // Premultiplied: out = src + dst × (1 − α).
      frame.data[d] = Math.min(
        255,
        (c.cursorImage[s + 2] as number) + Math.round(((frame.data[d] as number) * keep) / 255),
      );
      frame.data[d + 1] = Math.min(
        255,
        (c.cursorImage[s + 1] as number) + Math.round(((frame.data[d + 1] as number) * keep) / 255),
      );
      frame.data[d + 2] = Math.min(
        255,
        (c.cursorImage[s] as number) + Math.round(((frame.data[d + 2] as number) * keep) / 255),
      );
    }
  }
  return true;
}
