// Screenshots: capture (screen-capture.ts), optionally draw the pointer, then encode. A whole screen
// as PNG goes to the screen's strip encoder (png-strips.ts), which compresses only the strips that
// changed since its last shot and hands a new screen to sharp. sharp (libvips) encodes everything
// else: PNG at zlib level 1 without adaptive filtering (lossless), JPEG at the asked quality, resized
// for `scale`. Level 1 is the fastest here on every screen measured (bare XFCE desktop 7.1 ms / 437
// KiB, terminal 3.6 ms / 176 KiB, Thunar, Chromium, Mousepad: 0.5–2.4 ms faster than level 2 for
// 10–60% more bytes; adaptive filtering costs 6×): the encode is most of a screenshot's time, and a
// few more KiB cost an agent nothing on a local network (bench/api.ts --only agent).
import sharp from 'sharp';
import type { DisplayInfo, ScreenshotOptions } from '../driver.ts';
import { checkScreenshotOptions } from '../screenshot-options.ts';
import { StripPngEncoder, type RgbImage } from '../png-strips.ts';
import { captureRgb, drawCursor, type RgbFrame } from './screen-capture.ts';
import type { X11Connection } from './x11-connection.ts';

const DEFAULT_JPEG_QUALITY = 80;
/** zlib level of screenshots: the fastest (see above). */
const PNG_LEVEL = 1;

/** Each screen's strip encoder, by its X11 connection (a new connection starts afresh). */
const stripEncoders = new WeakMap<X11Connection, StripPngEncoder>();

function stripEncoderOf(conn: X11Connection): StripPngEncoder {
  let encoder = stripEncoders.get(conn);
  if (!encoder) stripEncoders.set(conn, (encoder = new StripPngEncoder(wholePng)));
  return encoder;
}

function wholePng(image: RgbImage): Promise<Buffer> {
  const raw = { width: image.width, height: image.height, channels: 3 } as const;
  return sharp(image.data, { raw }).png({ compressionLevel: PNG_LEVEL, adaptiveFiltering: false }).toBuffer();
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
  const scale = opts.scale ?? 1;
  if (opts.format !== 'jpeg' && !opts.region && scale >= 1) return stripEncoderOf(conn).encode(frame);
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
  return image.png({ compressionLevel: PNG_LEVEL, adaptiveFiltering: false }).toBuffer();
}

export function displayInfo(conn: X11Connection): DisplayInfo {
  // Xvfb has no HiDPI: one screen pixel is one point.
  return { width: conn.width, height: conn.height, scale: 1 };
}
