// ZRLE (RFB encoding 16, RFC 6143 §7.7.6) decoded into the session's R,G,B,X framebuffer. One zlib
// stream lives for the whole connection (the server flushes it after every rectangle with
// Z_SYNC_FLUSH), so each rectangle's bytes are inflated in order on the same inflater. A rectangle
// is 64×64 tiles, each raw, solid, packed-palette, plain RLE or palette RLE. With the pixel format
// the client sets (32 bpp, depth 24, little-endian, colours in the low three bytes) a compressed
// pixel (CPIXEL) is three bytes: R, G, B.
import { endianness } from 'node:os';
import { constants, createInflate, type Inflate } from 'node:zlib';
import { DriverError } from '../driver.ts';

export const ENCODING_ZRLE = 16;
const TILE = 64;

/** Where a rectangle's pixels go: a row-major R,G,B,X buffer `width` pixels wide. */
export interface Framebuffer {
  data: Buffer;
  width: number;
}

export class ZrleDecoder {
  readonly #inflate: Inflate = createInflate();
  #out: Buffer[] = [];
  #error: Error | undefined;

  constructor() {
    this.#inflate.on('data', (b: Buffer) => this.#out.push(b));
    this.#inflate.on('error', (e: Error) => (this.#error = e));
  }

  /** Inflates one rectangle's zlib data (everything the server flushed for it). */
  async #inflateRect(data: Buffer): Promise<Buffer> {
    // After an error zlib calls no flush callback (and the stream is destroyed): the error ends the
    // wait, and every later rectangle fails at once, so the session is failed and reopened.
    if (this.#error) throw bad(`zlib: ${this.#error.message}`);
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error) => reject(bad(`zlib: ${e.message}`));
      this.#inflate.once('error', onError);
      this.#inflate.write(data);
      this.#inflate.flush(constants.Z_SYNC_FLUSH, () => {
        this.#inflate.off('error', onError);
        resolve();
      });
    });
    const out = this.#out.length === 1 ? this.#out[0]! : Buffer.concat(this.#out);
    this.#out = [];
    return out;
  }

  /** Decodes the rectangle (x, y, w, h) whose zlib data is `data` into `fb`. */
  async decode(data: Buffer, x: number, y: number, w: number, h: number, fb: Framebuffer): Promise<void> {
    const src = await this.#inflateRect(data);
    // The framebuffer as one 32-bit word per pixel: a tile's pixels are stored and runs filled a
    // word at a time (a full screen is a million pixels).
    const words = pixelWords(fb);
    const stride = fb.width;
    let p = 0;
    const need = (n: number) => {
      if (p + n > src.length) throw bad(`a ${w}×${h} rectangle's tiles end after ${src.length} bytes`);
    };
    const cpixel = (): number => {
      need(3);
      const v = word(src[p]!, src[p + 1]!, src[p + 2]!);
      p += 3;
      return v;
    };
    const palette: number[] = [];
    for (let ty = y; ty < y + h; ty += TILE) {
      const th = Math.min(TILE, y + h - ty);
      for (let tx = x; tx < x + w; tx += TILE) {
        const tw = Math.min(TILE, x + w - tx);
        need(1);
        const sub = src[p++]!;
        if (sub === 0) {
          need(tw * th * 3);
          for (let j = 0; j < th; j++) {
            let o = (ty + j) * stride + tx;
            for (let i = 0; i < tw; i++, p += 3) words[o++] = word(src[p]!, src[p + 1]!, src[p + 2]!);
          }
        } else if (sub === 1) {
          const v = cpixel();
          for (let j = 0; j < th; j++) words.fill(v, (ty + j) * stride + tx, (ty + j) * stride + tx + tw);
        } else if (sub <= 16) {
          palette.length = 0;
          for (let i = 0; i < sub; i++) palette.push(cpixel());
          const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
          const rowBytes = Math.ceil((tw * bits) / 8);
          need(rowBytes * th);
          const mask = (1 << bits) - 1;
          for (let j = 0; j < th; j++) {
            const o = (ty + j) * stride + tx;
            for (let i = 0; i < tw; i++) {
              const bit = i * bits;
              const index = (src[p + (bit >> 3)]! >> (8 - bits - (bit & 7))) & mask;
              words[o + i] = palette[index] ?? 0;
            }
            p += rowBytes;
          }
        } else if (sub === 128 || sub >= 130) {
          palette.length = 0;
          const paletted = sub !== 128;
          for (let i = 0; paletted && i < sub - 128; i++) palette.push(cpixel());
          const total = tw * th;
          for (let n = 0; n < total;) {
            let v: number;
            let run = 1;
            if (paletted) {
              need(1);
              const index = src[p++]!;
              v = palette[index & 0x7f] ?? 0;
              if (index & 0x80) run = runLength();
            } else {
              v = cpixel();
              run = runLength();
            }
            if (n + run > total) throw bad(`a run of ${run} pixels overflows a ${tw}×${th} tile`);
            // The run, row piece by row piece.
            for (let left = run; left > 0;) {
              const col = n % tw;
              const span = Math.min(left, tw - col);
              const o = (ty + (n - col) / tw) * stride + tx + col;
              if (span === 1) words[o] = v;
              else words.fill(v, o, o + span);
              n += span;
              left -= span;
            }
          }
        } else {
          throw bad(`tile subencoding ${sub} does not exist`);
        }
      }
    }
    if (p !== src.length) throw bad(`${src.length - p} bytes left after a ${w}×${h} rectangle's tiles`);

    function runLength(): number {
      let run = 1;
      for (;;) {
        need(1);
        const b = src[p++]!;
        run += b;
        if (b !== 255) return run;
      }
    }
  }

  close(): void {
    this.#inflate.destroy();
  }
}

/** R,G,B as the word that lays them out R,G,B,0 in memory, whatever the machine's byte order. */
const word =
  endianness() === 'LE'
    ? (r: number, g: number, b: number) => (r | (g << 8) | (b << 16)) >>> 0
    : (r: number, g: number, b: number) => ((r << 24) | (g << 16) | (b << 8)) >>> 0;

/** The framebuffer's bytes as 32-bit words (it starts on a 4-byte boundary: Buffer.alloc's do). */
function pixelWords(fb: Framebuffer): Uint32Array {
  if (fb.data.byteOffset % 4 !== 0) {
    throw new Error('the framebuffer must start on a 4-byte boundary');
  }
  return new Uint32Array(fb.data.buffer, fb.data.byteOffset, fb.data.length >> 2);
}

function bad(what: string): DriverError {
  return new DriverError('command_failed', `VNC server's ZRLE data: ${what}`);
}
