// The strip encoder's PNGs decode to the very pixels given (three bytes each, or four with padding):
// zlib checks the combined Adler-32, sharp the chunks' CRCs, whatever changed since the last image;
// only strips that changed are compressed.
import { randomBytes } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  STRIP_ROWS,
  StripPngEncoder,
  adler32,
  adler32Combine,
  libvipsPng,
  type RgbImage,
} from './png-strips.ts';

/** A screen-like image: flat areas, text-like noise in a band, a gradient. */
function screen(width: number, height: number, seed: number): RgbImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 3;
      const band = y % 40 < 12 && x % 7 < 3;
      data[at] = band ? (x * 31 + y * 17 + seed) & 0xff : 0x30;
      data[at + 1] = band ? (x ^ y ^ seed) & 0xff : (y + seed) & 0xff;
      data[at + 2] = (x + seed) & 0xff;
    }
  }
  return { width, height, data };
}

/** The zlib stream of a PNG's IDAT chunks, and the PNG's pixels as sharp decodes them. */
async function decoded(
  png: Buffer,
): Promise<{ raw: Buffer; width: number; height: number; inflated: Buffer }> {
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const inflated = inflateSync(Buffer.concat(idat)); // throws on a wrong Adler-32
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(3);
  return { raw: data, width: info.width, height: info.height, inflated };
}

async function expectSame(png: Buffer, image: RgbImage): Promise<void> {
  const d = await decoded(png);
  expect([d.width, d.height]).toEqual([image.width, image.height]);
  const pixels = image.width * image.height;
  const rgb =
    image.channels === 4
      ? Buffer.from(
          Array.from({ length: pixels * 3 }, (_, i) => image.data[Math.floor(i / 3) * 4 + (i % 3)]!),
        )
      : image.data.subarray(0, pixels * 3);
  expect(d.raw.equals(rgb)).toBe(true);
  expect(d.inflated.length).toBe(image.height * (image.width * 3 + 1));
}

/** The whole-image encoder the drivers give it (libvips), counting its calls. */
function wholeEncoder(): { encode: (image: RgbImage) => Promise<Buffer>; calls: number } {
  const counter = {
    calls: 0,
    encode: (image: RgbImage) => {
      counter.calls++;
      return libvipsPng(image);
    },
  };
  return counter;
}

/** An encoder whose strips all hold `image`'s: the first shot goes whole, the background fills the rest. */
async function primed(
  image: RgbImage,
): Promise<{ encoder: StripPngEncoder; whole: ReturnType<typeof wholeEncoder>; png: Buffer }> {
  const whole = wholeEncoder();
  const encoder = new StripPngEncoder(whole.encode);
  const png = await encoder.encode(image);
  await expectSame(png, image);
  expect(encoder.last).toEqual({ path: 'whole', compressed: 0 });
  await encoder.filled();
  return { encoder, whole, png };
}

describe('strip PNG encoder', () => {
  it('hands a new screen to the whole-image encoder, then compresses only the strips that changed', async () => {
    const width = 1280;
    const height = 800;
    const image = screen(width, height, 1);
    const { encoder, whole, png } = await primed(image);

    // Unchanged: the very same PNG, though the background has compressed the strips since (a
    // caller comparing shots byte for byte sees the screen settled).
    expect(await encoder.encode({ ...image, data: Buffer.from(image.data) })).toBe(png);
    expect(encoder.last).toEqual({ path: 'unchanged', compressed: 0 });

    // One pixel in row 100 (the other strips are the background's), then a box over three strips
    // (two boundaries crossed).
    image.data[(100 * width + 5) * 3] = 0xff - image.data[(100 * width + 5) * 3]!;
    const byStrips = await encoder.encode(image);
    await expectSame(byStrips, image);
    expect(encoder.last).toEqual({ path: 'strips', compressed: 1 });
    expect((await encoder.encode(image)).equals(byStrips)).toBe(true);
    expect(encoder.last.path).toBe('unchanged');
    for (let y = STRIP_ROWS * 10 - 3; y < STRIP_ROWS * 12 - 2; y++)
      image.data.fill(0x7f, (y * width + 600) * 3, (y * width + 700) * 3);
    await expectSame(await encoder.encode(image), image);
    expect(encoder.last).toEqual({ path: 'strips', compressed: 3 });

    // 40% of the strips new (the limit): still by strips. 45%, then all of it: whole.
    const strips = height / STRIP_ROWS;
    const partly = (share: number, seed: number) => {
      const next = screen(width, height, seed);
      const kept = strips - Math.round(strips * share);
      image.data.copy(next.data, 0, 0, kept * STRIP_ROWS * width * 3);
      return next;
    };
    const forty = partly(0.4, 7);
    await expectSame(await encoder.encode(forty), forty);
    expect(encoder.last).toEqual({ path: 'strips', compressed: strips * 0.4 });
    expect(whole.calls).toBe(1);
    for (const next of [partly(0.45, 8), screen(width, height, 99)]) {
      await expectSame(await encoder.encode(next), next);
      expect(encoder.last.path).toBe('whole');
    }
    expect(whole.calls).toBe(3);
  });

  it('sends a screen that changes whole at every shot whole each time, and fills the strips of the last for the next', async () => {
    const whole = wholeEncoder();
    const encoder = new StripPngEncoder(whole.encode);
    for (const seed of [1, 2, 3]) {
      const image = screen(320, 200, seed);
      await expectSame(await encoder.encode(image), image);
      expect(encoder.last.path).toBe('whole');
    }
    // Screen 3 stayed: its strips were compressed after its first shot, and a pixel changed
    // compresses one strip.
    await encoder.filled();
    const image = screen(320, 200, 3);
    await expectSame(await encoder.encode(image), image);
    expect(encoder.last).toEqual({ path: 'unchanged', compressed: 0 });
    image.data[0] = 0xff - image.data[0]!;
    await expectSame(await encoder.encode(image), image);
    expect(encoder.last).toEqual({ path: 'strips', compressed: 1 });
  });

  it('drops strips compressed in the background from pixels that changed since', async () => {
    const image = screen(320, 200, 1);
    const whole = wholeEncoder();
    const encoder = new StripPngEncoder(whole.encode);
    await encoder.encode(image); // whole, and a fill of its strips begins
    // Before the fill is done, the top strip changes: its fill result is of the old pixels.
    image.data.fill(0, 0, 320 * 3 * 4);
    await expectSame(await encoder.encode(image), image);
    await encoder.filled();
    // A pixel of the last row changes: by strips, the top one among the kept (of its new pixels).
    image.data[image.data.length - 1] = 0xff - image.data[image.data.length - 1]!;
    await expectSame(await encoder.encode(image), image);
    expect(encoder.last).toEqual({ path: 'strips', compressed: 1 });
  });

  it('starts afresh on another size, and encodes heights that are not whole strips, one row, one column', async () => {
    // Sizes of one or two strips go whole whenever they change (one strip is more than 40% of them).
    for (const [w, h] of [
      [641, STRIP_ROWS * 3 + 5],
      [1, 1],
      [1, STRIP_ROWS + 1],
      [1, 2 * STRIP_ROWS + 1],
      [300, 1],
    ] as const) {
      const image = screen(w, h, w + h);
      const { encoder } = await primed(image);
      // The last, short strip changed alone: by strips, unless it is the image's only one.
      image.data[image.data.length - 1] = 0x55 ^ image.data[image.data.length - 1]!;
      await expectSame(await encoder.encode(image), image);
      expect(encoder.last).toEqual(
        Math.ceil(h / STRIP_ROWS) >= 3 ? { path: 'strips', compressed: 1 } : { path: 'whole', compressed: 0 },
      );
    }
    const first = screen(640, 400, 1);
    const { encoder } = await primed(first);
    const second = screen(400, 640, 1);
    await expectSame(await encoder.encode(second), second);
    expect(encoder.last.path).toBe('whole');
    await encoder.filled();
    await expectSame(await encoder.encode(second), second);
    expect(encoder.last).toEqual({ path: 'unchanged', compressed: 0 });
  });

  it('keeps encodes issued together apart: each PNG is of its own image', async () => {
    const { encoder } = await primed(screen(320, 200, 1));
    const images = [1, 2, 2, 3, 1].map((seed) => screen(320, 200, seed));
    // Every fourth row of each image differs from the first: a quarter of the strips, by strips.
    for (const image of images)
      for (let y = 0; y < 200; y += 4 * STRIP_ROWS)
        image.data.fill(image.data[0]! ^ 1, y * 960, (y + 1) * 960);
    const pngs = await Promise.all(images.map((i) => encoder.encode(i)));
    for (const [i, png] of pngs.entries()) await expectSame(png, images[i]!);
  });

  it('takes pixels with a padding byte (an RFB framebuffer) and drops it', async () => {
    const rgb = screen(640, 400, 3);
    /** The same pixels with a fourth byte after each, `pad` for all. */
    const rgbx = (pad: number): RgbImage => {
      const data = Buffer.alloc(640 * 400 * 4, pad);
      for (let p = 0; p < 640 * 400; p++) rgb.data.copy(data, p * 4, p * 3, p * 3 + 3);
      return { width: 640, height: 400, data, channels: 4 };
    };
    const { encoder } = await primed(rgbx(0));
    await expectSame(await encoder.encode(rgbx(0)), rgb);
    expect(encoder.last).toEqual({ path: 'unchanged', compressed: 0 });
    // One pixel changed: one strip, compressed from the four-byte pixels.
    rgb.data[(200 * 640 + 9) * 3 + 1] = 0xff - rgb.data[(200 * 640 + 9) * 3 + 1]!;
    await expectSame(await encoder.encode(rgbx(0)), rgb);
    expect(encoder.last).toEqual({ path: 'strips', compressed: 1 });
    // Other padding everywhere: the same picture, whichever way it is encoded.
    await expectSame(await encoder.encode(rgbx(0xff)), rgb);
    // Three-byte pixels of the same size start afresh.
    await expectSame(await encoder.encode(rgb), rgb);
    expect(encoder.last.path).toBe('whole');
  });

  it('refuses pixels shorter than the size says, and changes nothing', async () => {
    const image = screen(64, 64, 5);
    const { encoder } = await primed(image);
    await expect(
      encoder.encode({ width: 64, height: 64, data: Buffer.alloc(64 * 64 * 3 - 1) }),
    ).rejects.toThrow(RangeError);
    await expectSame(await encoder.encode(image), image);
    expect(encoder.last).toEqual({ path: 'unchanged', compressed: 0 });
  });
});

describe('Adler-32', () => {
  /** zlib's own: the trailer of a stored (level 0) zlib stream. */
  const zlibAdler = (b: Buffer) => {
    const z = deflateSync(b, { level: 0 });
    return z.readUInt32BE(z.length - 4);
  };

  it('is zlib’s for any length, all-0xff runs included (the sums at their largest)', () => {
    for (const n of [0, 1, 7, 8, 9, 3799, 3800, 3801, 5552, 5553, 100_003]) {
      const random = randomBytes(n);
      expect(adler32(random), `${n} random bytes`).toBe(zlibAdler(random));
      const ones = Buffer.alloc(n, 0xff);
      expect(adler32(ones), `${n} × 0xff`).toBe(zlibAdler(ones));
    }
  });

  it('combines as zlib does: the checksum of A then B from each one’s', () => {
    for (const [a, b] of [
      [0, 0],
      [0, 10],
      [10, 0],
      [1, 65521],
      [70_000, 65522],
      [3841, 61456],
    ] as const) {
      const A = randomBytes(a);
      const B = a === 70_000 ? Buffer.alloc(b, 0xff) : randomBytes(b);
      expect(adler32Combine(adler32(A), adler32(B), B.length), `${a} + ${b}`).toBe(
        zlibAdler(Buffer.concat([A, B])),
      );
    }
  });
});
