// The settle rule on screens whose frames are known: the first repeated frame is the step's
// screenshot; a screen that keeps changing is taken at the bound.
import { describe, expect, it } from 'vitest';
import { settledScreenshot } from './settle.ts';

/** A screen showing `frames` one after the other per screenshot, then the last one for good. */
function screen(frames: string[]) {
  let i = 0;
  return async () => Buffer.from(frames[Math.min(i++, frames.length - 1)]!);
}

const limits = { min: 5, poll: 5, max: 200 };
/** For screens that settle: a bound no stall of a loaded machine reaches (they return when settled). */
const roomy = { ...limits, max: 10_000 };

describe('settledScreenshot', () => {
  it('takes the first frame seen twice in a row', async () => {
    const r = await settledScreenshot(screen(['menu opening', 'menu open']), 0, roomy);
    expect([r.png.toString(), r.settled, r.shots]).toEqual(['menu open', true, 3]);
  });

  it('takes a still screen after two screenshots', async () => {
    const r = await settledScreenshot(screen(['still']), 0, roomy);
    expect([r.png.toString(), r.settled, r.shots]).toEqual(['still', true, 2]);
  });

  it('stops at the bound on a screen that keeps changing', async () => {
    let n = 0;
    const start = Date.now();
    const r = await settledScreenshot(async () => Buffer.from(`frame ${n++}`), 0, limits);
    expect(r.settled).toBe(false);
    expect(r.png.toString()).toBe(`frame ${n - 1}`);
    expect(Date.now() - start).toBeGreaterThanOrEqual(limits.max);
  });

  it('does not wait for a step whose bound has passed (a queue of steps catches up)', async () => {
    let n = 0;
    const r = await settledScreenshot(async () => Buffer.from(`frame ${n++}`), 1000, limits);
    expect([r.settled, r.shots]).toEqual([false, 1]);
  });
});
