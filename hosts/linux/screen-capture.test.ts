// The BGRX → RGB conversion of captured frames (the word-at-a-time form against the definition).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bgrxToRgb } from './screen-capture.ts';

/** The definition: each pixel B, G, R, X becomes R, G, B. */
function reference(src: Buffer, pixels: number): Buffer {
  const out = Buffer.alloc(pixels * 3);
  for (let i = 0; i < pixels; i++) {
    out[i * 3] = src[i * 4 + 2]!;
    out[i * 3 + 1] = src[i * 4 + 1]!;
    out[i * 3 + 2] = src[i * 4]!;
  }
  return out;
}

describe('bgrxToRgb', () => {
  it('matches the definition for every pixel count around a multiple of four, and a full screen', () => {
    for (const pixels of [1, 2, 3, 4, 5, 6, 7, 8, 9, 1280 * 800, 1280 * 800 + 3]) {
      const src = randomBytes(pixels * 4);
      expect(bgrxToRgb(src, pixels).equals(reference(src, pixels)), `${pixels} pixels`).toBe(true);
    }
  });

  it('converts a frame that does not start on a word boundary, and only the pixels asked', () => {
    const backing = randomBytes(4 * 101 + 1);
    const src = backing.subarray(1);
    expect(bgrxToRgb(src, 100).equals(reference(src, 100))).toBe(true);
    expect(bgrxToRgb(src, 100)).toHaveLength(300);
  });

  it('converts into a reused buffer holding an older frame, aligned or not', () => {
    for (const pixels of [7, 1280 * 800]) {
      const into = randomBytes(Math.ceil((pixels * 3) / 4) * 4); // a previous frame's leftovers
      const src = randomBytes(pixels * 4);
      const out = bgrxToRgb(src, pixels, into);
      expect(out.buffer).toBe(into.buffer);
      expect(out.equals(reference(src, pixels)), `${pixels} pixels`).toBe(true);
      const odd = randomBytes(pixels * 4 + 1).subarray(1); // the byte-at-a-time path
      expect(bgrxToRgb(odd, pixels, into).equals(reference(odd, pixels))).toBe(true);
    }
  });
});
