// Validation of ScreenshotOptions, shared by every driver so that they all refuse the same input
// with the same words: a bad option is an `invalid_argument` DriverError before anything is captured.
import { DriverError, type ScreenshotOptions } from './driver.ts';

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The size of the screen a region must lie inside, in pixels. */
export interface ScreenSize {
  width: number;
  height: number;
}

/** Throws unless `r` is a non-empty integer rectangle inside `screen`. */
export function checkRegion(r: Region, screen: ScreenSize): void {
  const ints = [r.x, r.y, r.width, r.height].every((v) => Number.isInteger(v));
  if (
    !ints ||
    r.x < 0 ||
    r.y < 0 ||
    r.width < 1 ||
    r.height < 1 ||
    r.x + r.width > screen.width ||
    r.y + r.height > screen.height
  ) {
    throw new DriverError(
      'invalid_argument',
      `region ${r.width}×${r.height} at (${r.x}, ${r.y}) is not inside the ${screen.width}×${screen.height} screen`,
    );
  }
}

/** Throws on a format other than png/jpeg, a quality outside 1–100, a scale outside (0, 1], or a region off the screen. */
export function checkScreenshotOptions(opts: ScreenshotOptions, screen: ScreenSize): void {
  if (opts.format !== undefined && opts.format !== 'png' && opts.format !== 'jpeg') {
    throw new DriverError('invalid_argument', `format must be png or jpeg, got ${String(opts.format)}`);
  }
  if (
    opts.quality !== undefined &&
    (!Number.isInteger(opts.quality) || opts.quality < 1 || opts.quality > 100)
  ) {
    throw new DriverError(
      'invalid_argument',
      `quality must be an integer from 1 to 100, got ${opts.quality}`,
    );
  }
  if (opts.scale !== undefined && (typeof opts.scale !== 'number' || !(opts.scale > 0 && opts.scale <= 1))) {
    throw new DriverError('invalid_argument', `scale must be a number in (0, 1], got ${String(opts.scale)}`);
  }
  if (opts.region !== undefined) checkRegion(opts.region, screen);
}

/** A whole screen at full size as PNG: what each screen's strip encoder (png-strips.ts) encodes. */
export function isWholeScreenPng(opts: ScreenshotOptions): boolean {
  return opts.format !== 'jpeg' && !opts.region && (opts.scale ?? 1) >= 1;
}
