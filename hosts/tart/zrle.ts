// ZRLE (RFB encoding 16, RFC 6143 §7.7.6) decoded into the session's R,G,B,X framebuffer. One zlib
// stream lives for the whole connection (the server flushes it after every rectangle with
// Z_SYNC_FLUSH), so each rectangle's bytes are inflated in order on the same inflater. A rectangle
// is 64×64 tiles, each raw, solid, packed-palette, plain RLE or palette RLE. With the pixel format
// the client sets (32 bpp, depth 24, little-endian, colours in the low three bytes) a compressed
// pixel (CPIXEL) is three bytes: R, G, B.
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
    await new Promise<void>((resolve) => {
      this.#inflate.write(data);
      this.#inflate.flush(constants.Z_SYNC_FLUSH, () => resolve());
    });
    if (this.#error) throw bad(`zlib: ${this.#error.message}`);
    const out = this.#out.length === 1 ? this.#out[0]! : Buffer.concat(this.#out);
    this.#out = [];
    return out;
  }

  /** Decodes the rectangle (x, y, w, h) whose zlib data is `data` into `fb`. */
  async decode(data: Buffer, x: number, y: number, w: number, h: number, fb: Framebuffer): Promise<void> {
    const src = await this.#inflateRect(data);
    let p = 0;
    const need = (n: number) => {
      if (p + n > src.length) throw bad(`a ${w}×${h} rectangle's tiles end after ${src.length} bytes`);
    };
    const cpixel = (): number => {
      need(3);
      const v = src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16);
      p += 3;
      return v;
    };
    const put = (px: number, py: number, v: number) => {
      const o = (py * fb.width + px) * 4;
      fb.data[o] = v & 0xff;
      fb.data[o + 1] = (v >> 8) & 0xff;
      fb.data[o + 2] = (v >> 16) & 0xff;
      fb.data[o + 3] = 0;
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
          for (let j = 0; j < th; j++) for (let i = 0; i < tw; i++) put(tx + i, ty + j, cpixel());
        } else if (sub === 1) {
          const v = cpixel();
          for (let j = 0; j < th; j++) for (let i = 0; i < tw; i++) put(tx + i, ty + j, v);
        } else if (sub <= 16) {
          palette.length = 0;
          for (let i = 0; i < sub; i++) palette.push(cpixel());
          const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
          const rowBytes = Math.ceil((tw * bits) / 8);
          need(rowBytes * th);
          const mask = (1 << bits) - 1;
          for (let j = 0; j < th; j++) {
            for (let i = 0; i < tw; i++) {
              const bit = i * bits;
              const byte = src[p + (bit >> 3)]!;
              const index = (byte >> (8 - bits - (bit & 7))) & mask;
              put(tx + i, ty + j, palette[index] ?? 0);
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
            for (let k = 0; k < run; k++, n++) put(tx + (n % tw), ty + Math.floor(n / tw), v);
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

function bad(what: string): DriverError {
  return new DriverError('command_failed', `VNC server's ZRLE data: ${what}`);
}
