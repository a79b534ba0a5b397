// The ZRLE decoder against rectangles encoded here by the RFC's rules (every tile subencoding, tiles
// cut at the rectangle's edge, two rectangles on one zlib stream), compared pixel by pixel with the
// picture they encode. The real server's ZRLE (x11vnc) is decoded in guest.test.ts.
import { constants, createDeflate, type Deflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ZrleDecoder } from './zrle.ts';

type Pixels = number[][]; // [row][col] = 0xBBGGRR

const cpixel = (v: number) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff];

function runBytes(run: number): number[] {
  const out: number[] = [];
  let rest = run - 1;
  while (rest >= 255) {
    out.push(255);
    rest -= 255;
  }
  out.push(rest);
  return out;
}

/** One tile in the given subencoding kind. */
function tile(px: Pixels, kind: 'raw' | 'solid' | 'packed' | 'rle' | 'paletteRle'): number[] {
  const flat = px.flat();
  const palette = [...new Set(flat)];
  switch (kind) {
    case 'raw':
      return [0, ...flat.flatMap(cpixel)];
    case 'solid':
      return [1, ...cpixel(flat[0]!)];
    case 'packed': {
      const bits = palette.length === 2 ? 1 : palette.length <= 4 ? 2 : 4;
      const out = [palette.length, ...palette.flatMap(cpixel)];
      for (const row of px) {
        let byte = 0;
        let used = 0;
        for (const v of row) {
          byte |= palette.indexOf(v) << (8 - bits - used);
          used += bits;
          if (used === 8) {
            out.push(byte);
            byte = 0;
            used = 0;
          }
        }
        if (used > 0) out.push(byte);
      }
      return out;
    }
    case 'rle':
    case 'paletteRle': {
      const out = kind === 'rle' ? [128] : [128 + palette.length, ...palette.flatMap(cpixel)];
      for (let i = 0; i < flat.length;) {
        let run = 1;
        while (i + run < flat.length && flat[i + run] === flat[i]) run++;
        if (kind === 'rle') out.push(...cpixel(flat[i]!), ...runBytes(run));
        else if (run === 1) out.push(palette.indexOf(flat[i]!));
        else out.push(palette.indexOf(flat[i]!) | 0x80, ...runBytes(run));
        i += run;
      }
      return out;
    }
  }
}

/** A rectangle's zlib data: tiles left to right, top to bottom, flushed as a server does. */
async function zrleRect(z: Deflate, px: Pixels, kinds: Parameters<typeof tile>[1][]): Promise<Buffer> {
  const [h, w] = [px.length, px[0]!.length];
  const bytes: number[] = [];
  let k = 0;
  for (let ty = 0; ty < h; ty += 64) {
    for (let tx = 0; tx < w; tx += 64) {
      const t = px.slice(ty, ty + 64).map((row) => row.slice(tx, tx + 64));
      bytes.push(...tile(t, kinds[k++ % kinds.length]!));
    }
  }
  const chunks: Buffer[] = [];
  const onData = (c: Buffer) => chunks.push(c);
  z.on('data', onData);
  await new Promise<void>((resolve) => {
    z.write(Buffer.from(bytes));
    z.flush(constants.Z_SYNC_FLUSH, () => resolve());
  });
  z.off('data', onData);
  return Buffer.concat(chunks);
}

function picture(w: number, h: number, f: (x: number, y: number) => number): Pixels {
  return Array.from({ length: h }, (_, y) => Array.from({ length: w }, (_, x) => f(x, y)));
}

function expectPixels(fb: Buffer, fbWidth: number, x0: number, y0: number, px: Pixels): void {
  for (let y = 0; y < px.length; y++) {
    for (let x = 0; x < px[0]!.length; x++) {
      const o = ((y0 + y) * fbWidth + x0 + x) * 4;
      const got = fb[o]! | (fb[o + 1]! << 8) | (fb[o + 2]! << 16);
      if (got !== px[y]![x])
        throw new Error(`pixel ${x0 + x},${y0 + y}: ${got.toString(16)} ≠ ${px[y]![x]!.toString(16)}`);
    }
  }
}

describe('ZrleDecoder', () => {
  it('decodes every tile subencoding, edge tiles and two rectangles on one zlib stream', async () => {
    const z = createDeflate();
    const d = new ZrleDecoder();
    const fb = { data: Buffer.alloc(300 * 200 * 4), width: 300 };
    // 150×130 at (10, 20): 3×3 tiles, the last column 22 wide and the last row 2 high.
    const colours = [0x102030, 0xa0b0c0, 0x0000ff, 0x00ff00, 0xff0000, 0x123456];
    const stripes = picture(150, 130, (x, y) => colours[Math.floor((x + 3 * y) / 7) % colours.length]!);
    const first = await zrleRect(z, stripes, ['raw', 'packed', 'rle', 'paletteRle']);
    await d.decode(first, 10, 20, 150, 130, fb);
    expectPixels(fb.data, 300, 10, 20, stripes);

    // Two and three colours (1- and 2-bit packed palettes), a solid tile, long runs (> 255).
    const two = picture(64, 64, (x) => (x % 3 === 0 ? 0xffffff : 0x000000));
    const flat = picture(64, 64, () => 0x445566);
    const three = picture(64, 64, (x, y) => [0x1, 0x2, 0x3][(x * y) % 3]!);
    const second = [two, flat, three];
    for (const [i, px] of second.entries()) {
      const kind = i === 1 ? 'solid' : 'packed';
      await d.decode(await zrleRect(z, px, [kind]), 64 * i, 130, 64, 64, fb);
      expectPixels(fb.data, 300, 64 * i, 130, px);
    }
    const long = picture(200, 64, (x) => (x < 190 ? 0x777777 : 0x888888));
    await d.decode(await zrleRect(z, long, ['rle']), 0, 0, 200, 64, fb);
    expectPixels(fb.data, 300, 0, 0, long);
    d.close();
    z.close();
  });

  it('refuses data that ends early or runs past its tile, naming what was wrong', async () => {
    const z = createDeflate();
    const d = new ZrleDecoder();
    const fb = { data: Buffer.alloc(64 * 64 * 4), width: 64 };
    const px = picture(4, 4, () => 0x010203);
    const short = await zrleRect(z, px.slice(0, 2), ['raw']); // the tiles of 4×2, sent for a 4×4
    await expect(d.decode(short, 0, 0, 4, 4, fb)).rejects.toMatchObject({
      code: 'command_failed',
      message: expect.stringMatching(/ZRLE data: a 4×4 rectangle's tiles end after/),
    });
    d.close();
    z.close();
  });

  it('fails a rectangle whose zlib data is corrupt, and every later one, instead of waiting', async () => {
    const d = new ZrleDecoder();
    const fb = { data: Buffer.alloc(64 * 64 * 4), width: 64 };
    const notZlib = Buffer.from('this is not a zlib stream at all');
    await expect(d.decode(notZlib, 0, 0, 4, 4, fb)).rejects.toMatchObject({
      code: 'command_failed',
      message: expect.stringMatching(/zlib: /),
    });
    await expect(d.decode(notZlib, 0, 0, 4, 4, fb)).rejects.toMatchObject({ code: 'command_failed' });
    d.close();
  });
});
