// Screenshots: capture (screen-capture.ts), optionally draw the pointer, then encode with sharp
// (libvips) — PNG at zlib level 1 without adaptive filtering (5× faster than adaptive filtering on
// text, still lossless), JPEG at the asked quality, resized for `scale`.
import sharp from 'sharp';
import { DriverError, type DisplayInfo, type ScreenshotOptions } from '../driver.ts';
import { captureRgb, drawCursor } from './screen-capture.ts';
import type { X11Connection } from './x11-connection.ts';

const DEFAULT_JPEG_QUALITY = 80;

function checkOptions(opts: ScreenshotOptions): void {
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
}

export async function screenshot(conn: X11Connection, opts: ScreenshotOptions = {}): Promise<Buffer> {
  checkOptions(opts);
  const frame = await captureRgb(conn, opts.region);
  if (opts.showCursor) await drawCursor(conn, frame, { x: opts.region?.x ?? 0, y: opts.region?.y ?? 0 });
  let image = sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 3 } });
  const scale = opts.scale ?? 1;
  if (scale < 1) {
    image = image.resize(
      Math.max(1, Math.round(frame.width * scale)),
      Math.max(1, Math.round(frame.height * scale)),
      { fit: 'fill' },
    );
  }
  if (opts.format === 'jpeg') {
    // Without the second Huffman pass: 3× faster for ~3% more bytes.
    return image.jpeg({ quality: opts.quality ?? DEFAULT_JPEG_QUALITY, optimizeCoding: false }).toBuffer();
  }
  return image.png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer();
}

export function displayInfo(conn: X11Connection): DisplayInfo {
  // Xvfb has no HiDPI: one screen pixel is one point.
  return { width: conn.width, height: conn.height, scale: 1 };
}
