// When is the screen showing an action's effect? Not a fixed time after it: a menu opens in a few
// ms, a dialog or a page may take most of a second. The step's screenshot is the first one that is
// the same as the one before it, taken SETTLE_POLL_MS apart, starting SETTLE_MIN_MS after the
// action; a screen that keeps changing (a video, a spinner) gives the one taken at SETTLE_MAX_MS.
import { setTimeout as delay } from 'node:timers/promises';

/** The first screenshot comes this long after the action (the input reaching the app, a repaint). */
export const SETTLE_MIN_MS = 100;
/** Between two screenshots compared. */
export const SETTLE_POLL_MS = 50;
/** A screen still changing this long after the action is taken as it is then. */
export const SETTLE_MAX_MS = 1000;

export interface Settled {
  png: Buffer;
  /** Two screenshots in a row were the same (else SETTLE_MAX_MS passed). */
  settled: boolean;
  /** Screenshots taken. */
  shots: number;
}

/**
 * The screenshot of a screen that has settled after an action completed `ago` ms before the call.
 * Waits are measured on the monotonic clock: they are about the screen, whatever clock the caller
 * keeps its times in.
 */
export async function settledScreenshot(
  shoot: () => Promise<Buffer>,
  ago: number,
  limits = { min: SETTLE_MIN_MS, poll: SETTLE_POLL_MS, max: SETTLE_MAX_MS },
): Promise<Settled> {
  const at = performance.now() - Math.max(0, ago);
  const first = at + limits.min - performance.now();
  if (first > 0) await delay(first);
  let png = await shoot();
  let shots = 1;
  while (performance.now() < at + limits.max) {
    await delay(limits.poll);
    const next = await shoot();
    shots++;
    if (next.equals(png)) return { png: next, settled: true, shots };
    png = next;
  }
  return { png, settled: false, shots };
}
