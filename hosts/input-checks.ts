// Checks of mouse and keyboard arguments, shared by the drivers so that they refuse the same input
// with the same words (`invalid_argument`) before anything reaches the screen.
import { DriverError } from './driver.ts';
import type { ScreenSize } from './screenshot-options.ts';

/** Throws unless (x, y) is an integer point on the screen. */
export function checkPoint(x: number, y: number, screen: ScreenSize): void {
  if (
    !Number.isInteger(x) ||
    !Number.isInteger(y) ||
    x < 0 ||
    y < 0 ||
    x >= screen.width ||
    y >= screen.height
  ) {
    throw new DriverError(
      'invalid_argument',
      `point (${x}, ${y}) is outside the ${screen.width}×${screen.height} screen (integers from 0)`,
    );
  }
}

/** Throws unless a scroll moves 0 to 1000 notches. */
export function checkScrollAmount(amount: number): void {
  if (!Number.isInteger(amount) || amount < 0 || amount > 1000) {
    throw new DriverError(
      'invalid_argument',
      `scroll amount must be an integer from 0 to 1000, got ${amount}`,
    );
  }
}

/** Longest a type call may pause in all: it holds the request open and cannot be called off. */
export const MAX_TYPE_PAUSES_MS = 300_000;

/**
 * Throws unless the pause between typed keystrokes is 0 to 10 s and the `keystrokes - 1` pauses
 * together last at most 300 s (each bound alone allows 100 000 characters × 10 s: 11 days).
 */
export function checkTypeDelay(delayMs: number, keystrokes = 1): void {
  if (!Number.isFinite(delayMs) || delayMs < 0 || delayMs > 10_000) {
    throw new DriverError('invalid_argument', `delay must be 0–10000 ms, got ${delayMs}`);
  }
  const pauses = delayMs * Math.max(0, keystrokes - 1);
  if (pauses > MAX_TYPE_PAUSES_MS) {
    throw new DriverError(
      'invalid_argument',
      `typing ${keystrokes} keystrokes ${delayMs} ms apart would pause ${Math.round(pauses / 1000)} s; at most ${MAX_TYPE_PAUSES_MS / 1000} s per call`,
    );
  }
}
