// Screenshots: capture (screen-capture.ts), optionally draw the pointer, then encode. A whole screen
// as PNG goes to the screen's strip encoder (png-strips.ts), which compresses only the strips that
// changed since its last shot and hands a new screen to libvips. sharp (libvips) encodes everything
// else: PNG with png-strips.ts's settings, JPEG at the asked quality, resized for `scale`.
import sharp from 'sharp';
import type { DisplayInfo, ScreenshotOptions } from '../driver.ts';
import { checkScreenshotOptions, isWholeScreenPng } from '../screenshot-options.ts';
import { PNG_OPTIONS, StripPngEncoder, libvipsPng } from '../png-strips.ts';
import { captureRgb, drawCursor, type RgbFrame } from './screen-capture.ts';
import type { X11Connection } from './x11-connection.ts';

const DEFAULT_JPEG_QUALITY = 80;

/** Each screen's strip encoder, by its X11 connection (a new connection starts afresh). */
const stripEncoders = new WeakMap<X11Connection, StripPngEncoder>();

function stripEncoderOf(conn: X11Connection): StripPngEncoder {
  let encoder = stripEncoders.get(conn);
  if (!encoder) stripEncoders.set(conn, (encoder = new StripPngEncoder(libvipsPng)));
  return encoder;
}

export async function screenshot(conn: X11Connection, opts: ScreenshotOptions = {}): Promise<Buffer> {
  checkScreenshotOptions(opts, conn);
  const frame = await captureRgb(conn, opts.region);
  try {
    return await encode(conn, frame, opts);
  } finally {
    frame.release(); // the encoder has read it: the next capture reuses the buffer
  }
}

async function encode(conn: X11Connection, frame: RgbFrame, opts: ScreenshotOptions): Promise<Buffer> {
  if (opts.showCursor) await drawCursor(conn, frame, { x: opts.region?.x ?? 0, y: opts.region?.y ?? 0 });
  if (isWholeScreenPng(opts)) return stripEncoderOf(conn).encode(frame);
  const scale = opts.scale ?? 1;
  let image = sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 3 } });
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
  return image.png(PNG_OPTIONS).toBuffer();
}

export function displayInfo(conn: X11Connection): DisplayInfo {
  // Xvfb has no HiDPI: one screen pixel is one point.
  return { width: conn.width, height: conn.height, scale: 1 };
}
