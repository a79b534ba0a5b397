// PNG screenshots that compress only what changed since the screen's last one. An agent's steps
// mostly change a small part of the screen (a menu, a line of text, the pointer), yet a whole-frame
// encode costs 3–9 ms of a 1280×800 screenshot, the largest part of an agent step (bench/api.ts
// --only agent). Here the frame is cut into strips of rows, each compressed as its own raw deflate
// segment (ended by a sync flush: byte-aligned, not final, no reference outside itself), and a strip
// whose pixels are those of the screen's previous shot keeps its compressed bytes. One zlib stream
// is the segments in order, a final empty block and the Adler-32 of all rows combined from the
// strips' own (as pigz joins its blocks); PNG holds it in one IDAT chunk. Rows use filter 0 (none),
// as the whole-frame encoder did: a strip's bytes depend on its own pixels only.
//
// Strips to compress are compressed on libuv's pool in parallel (node:zlib, level 1), while this
// thread sums their Adler-32. When more than 40% of the strips would need compressing (a new
// screen), the whole image goes to libvips instead, which compresses about twice as fast as node's
// zlib; its strips are then compressed in the background, for the next shots. A screen that has
// not changed at all gets the last PNG again. Both drivers use it: the linux driver's captures
// (three bytes a pixel) and the tart driver's RFB frames (four, the padding byte dropped).
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, type ZlibOptions } from 'node:zlib';
import sharp, { type PngOptions } from 'sharp';
import { Mutex } from './linux/mutex.ts';

/** Rows per strip: small enough that a one-line change re-encodes little, large enough to compress well. */
export const STRIP_ROWS = 16;
const LEVEL = 1;

const deflateRawAsync = promisify(deflateRaw) as (buf: Buffer, opts: ZlibOptions) => Promise<Buffer>;
/** Each strip ends with a sync flush: byte-aligned and not final, so that the next one can follow. */
const DEFLATE: ZlibOptions = { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH };

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** zlib header: deflate, 32 KiB window, the "fastest" level class, no dictionary (0x7801 % 31 == 0). */
const ZLIB_HEADER = Buffer.from([0x78, 0x01]);
/** A final, empty block of fixed Huffman codes: ends the stream the strips leave open. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);
const IEND = chunk('IEND', Buffer.alloc(0));

interface Strip {
  deflated: Buffer;
  adler: number;
  /** Uncompressed bytes: its rows, each with its filter byte. */
  length: number;
}

export interface RgbImage {
  width: number;
  height: number;
  /** Rows without padding, each pixel R, G, B, and with `channels: 4` a fourth byte that is dropped. */
  data: Buffer;
  /** 3 (the default) or 4: R, G, B and a padding byte (an RFB framebuffer's pixels). */
  channels?: 3 | 4;
}

/** How an encode went: the same pixels as the last (its PNG again), by strips (how many), or whole. */
export interface LastEncode {
  path: 'unchanged' | 'strips' | 'whole';
  compressed: number;
}

/** Encodes a whole image another way (libvips): used when too much changed for the strips to pay. */
export type WholeImageEncoder = (image: RgbImage) => Promise<Buffer>;

/**
 * libvips' PNG settings for what the strips do not encode (a new screen, a region, a scaled shot):
 * zlib level 1 without adaptive filtering (lossless). Level 1 is the fastest here on every screen
 * measured (bare XFCE desktop 7.1 ms / 437 KiB, terminal 3.6 ms / 176 KiB, Thunar, Chromium,
 * Mousepad: 0.5–2.4 ms faster than level 2 for 10–60% more bytes; adaptive filtering costs 6×): the
 * encode is most of a screenshot's time, and a few more KiB cost an agent nothing on a local network
 * (bench/api.ts --only agent).
 */
export const PNG_OPTIONS: PngOptions = { compressionLevel: 1, adaptiveFiltering: false };

/** The whole image as PNG by libvips (a padding byte dropped): both drivers' `WholeImageEncoder`. */
export function libvipsPng(image: RgbImage): Promise<Buffer> {
  const raw = { width: image.width, height: image.height, channels: image.channels ?? 3 };
  return sharp(image.data, { raw }).removeAlpha().png(PNG_OPTIONS).toBuffer();
}

/**
 * Above this share of strips to compress, the whole image goes to `whole` instead. Node's zlib
 * compresses at level 1 about half as fast as libvips' encoder: all strips of a terminal cost 9.0 ms
 * against libvips' 4.2, a quarter of them 2.7 ms (the bare desktop: 9.2 against 6.9, a quarter 3.9;
 * bench/api.ts --only agent), so they break even near 40%.
 */
const MAX_SHARE = 0.4;

/**
 * One screen's encoder: it keeps the pixels of the last image it saw and the compressed strips it
 * has. Encodes run one at a time (they read and update that state).
 */
export class StripPngEncoder {
  readonly #whole: WholeImageEncoder;
  #width = 0;
  #height = 0;
  #channels = 3;
  #previous = Buffer.alloc(0);
  #strips: (Strip | undefined)[] = [];
  /** Bumped when a strip's pixels change: bytes compressed from older pixels are not kept. */
  #versions = new Uint32Array(0);
  /** Encodes, one at a time. */
  readonly #encodes = new Mutex();
  /** Strips compressed in the background, one fill after another. */
  readonly #fills = new Mutex();
  #last: LastEncode = { path: 'strips', compressed: 0 };
  /** The PNG of the pixels in #previous, once one was made. */
  #png: Buffer | undefined;

  readonly #maxShare: number;

  /** `maxShare` (default 0.4): the share of strips to compress above which `whole` encodes instead. */
  constructor(whole: WholeImageEncoder, opts: { maxShare?: number } = {}) {
    this.#whole = whole;
    this.#maxShare = opts.maxShare ?? MAX_SHARE;
  }

  /** How the last encode went: the same pixels as before, by strips (and how many), or whole. */
  get last(): LastEncode {
    return this.#last;
  }

  /** Settles once the strips being compressed in the background are in. */
  filled(): Promise<void> {
    return this.#fills.run(async () => undefined);
  }

  /**
   * A PNG of `image` (8-bit RGB). `image.data` must stay unchanged until the promise settles. The
   * same pixels as the last image give the very same PNG (the same buffer: callers only read it),
   * whichever way that one was made: a caller comparing shots byte for byte (the collector's
   * settle rule) sees the screen unchanged.
   */
  encode(image: RgbImage): Promise<Buffer> {
    return this.#encodes.run(() => this.#encode(image));
  }

  async #encode(image: RgbImage): Promise<Buffer> {
    const { width, height, data } = image;
    const channels = image.channels ?? 3;
    const rowBytes = width * channels;
    if (data.length < rowBytes * height)
      throw new RangeError(`${width}×${height} pixels of ${channels} bytes need ${rowBytes * height} bytes`);
    if (width !== this.#width || height !== this.#height || channels !== this.#channels) {
      this.#reset(width, height, channels);
    }
    const missing: number[] = [];
    let changed = 0;
    for (let i = 0; i < this.#strips.length; i++) {
      const [from, to] = this.#span(i);
      const pixels = data.subarray(from, to);
      if (!pixels.equals(this.#previous.subarray(from, to))) {
        pixels.copy(this.#previous, from);
        this.#strips[i] = undefined;
        this.#versions[i]!++;
        changed++;
      }
      if (!this.#strips[i]) missing.push(i);
    }
    if (changed === 0 && this.#png) {
      this.#last = { path: 'unchanged', compressed: 0 };
      return this.#png;
    }
    // Whatever happens next, the PNG kept is not of these pixels.
    this.#png = undefined;
    const limit = this.#strips.length * this.#maxShare;
    if (missing.length > limit) {
      // A new screen (or one not yet compressed): libvips encodes it, and its strips are compressed
      // in the background, one at a time, for the shots after it (an agent's next step mostly comes
      // seconds later). A strip that changes again before its turn is skipped.
      this.#fill(missing);
      this.#last = { path: 'whole', compressed: 0 };
      return (this.#png = await this.#whole(image));
    }
    const pending: Promise<void>[] = [];
    for (const i of missing) {
      const rows = this.#rows(i);
      const compressed = deflateRawAsync(rows, DEFLATE);
      const adler = adler32(rows); // on this thread, while the pool compresses
      const seen = { versions: this.#versions, version: this.#versions[i]! };
      pending.push(compressed.then((deflated) => this.#keep(i, seen, rows, deflated, adler)));
    }
    this.#last = { path: 'strips', compressed: missing.length };
    await Promise.all(pending);
    return (this.#png = this.#assemble(width, height));
  }

  /**
   * Compresses `strips` one after another, off this thread. Each is read when its turn comes: a
   * strip whose version is still the one seen here still holds those pixels in #previous; one that
   * changed since is skipped (the encode that changed it has dealt with it).
   */
  #fill(strips: number[]): void {
    const work = strips.map((i) => ({ i, version: this.#versions[i]! }));
    const versions = this.#versions;
    void this.#fills.run(async () => {
      for (const { i, version } of work) {
        if (this.#versions !== versions || versions[i] !== version || this.#strips[i]) continue;
        const rows = this.#rows(i);
        const deflated = await deflateRawAsync(rows, DEFLATE).catch(() => undefined);
        if (deflated) this.#keep(i, { versions, version }, rows, deflated, adler32(rows));
      }
    });
  }

  /** Keeps strip `i`'s bytes if its pixels are still those they were compressed from. */
  #keep(
    i: number,
    seen: { versions: Uint32Array; version: number },
    rows: Buffer,
    deflated: Buffer,
    adler: number,
  ): void {
    if (this.#versions === seen.versions && seen.versions[i] === seen.version) {
      this.#strips[i] = { deflated, adler, length: rows.length };
    }
  }

  /** Byte offsets of strip `i` in the image. */
  #span(i: number): [number, number] {
    const rowBytes = this.#width * this.#channels;
    return [i * STRIP_ROWS * rowBytes, Math.min(this.#height, (i + 1) * STRIP_ROWS) * rowBytes];
  }

  /** Strip `i`'s rows as PNG holds them, from the pixels last seen. */
  #rows(i: number): Buffer {
    const [from, to] = this.#span(i);
    return filtered(this.#previous.subarray(from, to), this.#width, this.#channels);
  }

  #reset(width: number, height: number, channels: number): void {
    this.#width = width;
    this.#height = height;
    this.#channels = channels;
    this.#previous = Buffer.alloc(width * height * channels);
    this.#png = undefined;
    const strips = Math.ceil(height / STRIP_ROWS);
    this.#strips = new Array<Strip | undefined>(strips).fill(undefined);
    // A new array: fills of the old size see it is not theirs and stop.
    this.#versions = new Uint32Array(strips);
  }

  #assemble(width: number, height: number): Buffer {
    const strips = this.#strips as Strip[];
    let adler = 1;
    let deflatedBytes = 0;
    for (const s of strips) {
      adler = adler32Combine(adler, s.adler, s.length);
      deflatedBytes += s.deflated.length;
    }
    const idat = Buffer.allocUnsafe(ZLIB_HEADER.length + deflatedBytes + FINAL_BLOCK.length + 4);
    let at = ZLIB_HEADER.copy(idat, 0);
    for (const s of strips) at += s.deflated.copy(idat, at);
    at += FINAL_BLOCK.copy(idat, at);
    idat.writeUInt32BE(adler, at);
    return Buffer.concat([SIGNATURE, chunk('IHDR', header(width, height)), chunk('IDAT', idat), IEND]);
  }
}

/** IHDR: 8-bit truecolour, deflate, adaptive-filter method 0 (rows say their filter), no interlace. */
function header(width: number, height: number): Buffer {
  const h = Buffer.alloc(13);
  h.writeUInt32BE(width, 0);
  h.writeUInt32BE(height, 4);
  h[8] = 8; // bit depth
  h[9] = 2; // colour type: RGB
  return h;
}

function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

/** The rows of `pixels` as R, G, B, each row after its filter byte 0 (none). */
function filtered(pixels: Buffer, width: number, channels: number): Buffer {
  const rowBytes = width * channels;
  const rows = pixels.length / rowBytes;
  const out = Buffer.allocUnsafe(rows * (width * 3 + 1));
  let at = 0;
  for (let r = 0; r < rows; r++) {
    out[at++] = 0;
    if (channels === 3) {
      at += pixels.copy(out, at, r * rowBytes, (r + 1) * rowBytes);
      continue;
    }
    for (let p = r * rowBytes, end = p + rowBytes; p < end; p += 4) {
      out[at++] = pixels[p]!;
      out[at++] = pixels[p + 1]!;
      out[at++] = pixels[p + 2]!;
    }
  }
  return out;
}

const ADLER_BASE = 65521;
/**
 * Bytes summed before reducing: the largest run for which s2 stays below 2^31, so that both sums
 * stay small integers for V8 (zlib's NMAX, 5552, assumes unsigned 32-bit).
 */
const ADLER_RUN = 3800;

/** Adler-32 (RFC 1950), eight bytes a step: 2.2 ms for 3 MB here against 3.2 ms a byte a step. */
export function adler32(buf: Uint8Array, start = 1): number {
  let s1 = start & 0xffff;
  let s2 = start >>> 16;
  const n = buf.length;
  let i = 0;
  while (i < n) {
    const end = Math.min(n, i + ADLER_RUN);
    const end8 = i + ((end - i) & ~7);
    for (; i < end8; i += 8) {
      const b0 = buf[i]!,
        b1 = buf[i + 1]!,
        b2 = buf[i + 2]!,
        b3 = buf[i + 3]!;
      const b4 = buf[i + 4]!,
        b5 = buf[i + 5]!,
        b6 = buf[i + 6]!,
        b7 = buf[i + 7]!;
      s2 += 8 * s1 + 8 * b0 + 7 * b1 + 6 * b2 + 5 * b3 + 4 * b4 + 3 * b5 + 2 * b6 + b7;
      s1 += b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7;
    }
    for (; i < end; i++) {
      s1 += buf[i]!;
      s2 += s1;
    }
    s1 %= ADLER_BASE;
    s2 %= ADLER_BASE;
  }
  return s2 * 65536 + s1;
}

/** The Adler-32 of A then B from A's, B's and B's length (zlib's adler32_combine). */
export function adler32Combine(adler1: number, adler2: number, length2: number): number {
  const rem = length2 % ADLER_BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (adler2 & 0xffff) + ADLER_BASE - 1;
  sum2 += (adler1 >>> 16) + (adler2 >>> 16) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= 2 * ADLER_BASE) sum2 -= 2 * ADLER_BASE;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return sum2 * 65536 + sum1;
}
