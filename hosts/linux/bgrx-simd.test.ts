import { describe, expect, it } from 'vitest';
import { FRAMES_PER_SCREEN, bgrxToRgbSimd, framesBeside, screenMemory } from './bgrx-simd.ts';
import { bgrxToRgbBytes } from './screen-capture.ts';

/** BGRX pixels with every byte different from its neighbours. */
function pattern(area: Buffer, pixels: number): void {
  for (let i = 0; i < pixels * 4; i++) area[i] = (i * 7 + (i >> 9)) & 0xff;
}

describe('BGRX → RGB in WebAssembly SIMD', () => {
  it('converts in place as the plain loop does, for whole screens, regions and odd pixel counts', () => {
    const screen = 1280 * 800;
    const area = screenMemory(screen * 4);
    const frames = framesBeside(area);
    expect(frames).toHaveLength(FRAMES_PER_SCREEN);
    for (const f of frames) expect(f.length).toBeGreaterThanOrEqual(screen * 3 + 4);
    for (const pixels of [screen, 1, 3, 4, 5, 7, 400 * 301, 1279 * 799]) {
      pattern(area, pixels);
      const out = frames[pixels % FRAMES_PER_SCREEN]!;
      out.fill(0xee);
      expect(bgrxToRgbSimd(area.subarray(0, pixels * 4), pixels, out), `${pixels} px`).toBe(true);
      const expected = bgrxToRgbBytes(area, pixels);
      expect(out.subarray(0, pixels * 3).equals(expected), `${pixels} px`).toBe(true);
      // At most 4 bytes past the pixels are touched (the last group's store); none after that.
      expect(
        out.subarray(pixels * 3 + 4).every((b) => b === 0xee),
        `${pixels} px`,
      ).toBe(true);
    }
    // The capture area itself is left as it was.
    pattern(area, screen);
    const before = Buffer.from(area);
    bgrxToRgbSimd(area, screen, frames[0]!);
    expect(area.equals(before)).toBe(true);
  });

  it('converts nothing for buffers outside one screen memory (the plain loop does those)', () => {
    const area = screenMemory(64 * 4);
    const other = screenMemory(64 * 4);
    expect(bgrxToRgbSimd(Buffer.alloc(64 * 4), 64, Buffer.alloc(64 * 3 + 4))).toBe(false);
    expect(bgrxToRgbSimd(area, 64, Buffer.alloc(64 * 3 + 4))).toBe(false);
    expect(bgrxToRgbSimd(area, 64, framesBeside(other)[0]!)).toBe(false);
    // A frame without the 4 bytes to spare.
    expect(bgrxToRgbSimd(area, 64, framesBeside(area)[0]!.subarray(0, 64 * 3))).toBe(false);
    expect(framesBeside(Buffer.alloc(16))).toEqual([]);
  });
});
