// Screenshots of a sim guest: a plain, deterministic picture made with sharp — the VM's own colour
// and a lighter menu bar, the pointer drawn as a small black square when asked. It shows no desktop
// (there is none); it is a valid PNG or JPEG of the right size. Encoded images are cached, so a
// thousand guests polling screenshots cost little.
import sharp, { type OverlayOptions } from 'sharp';
import type { ScreenshotOptions } from '../driver.ts';
import { checkScreenshotOptions } from '../screenshot-options.ts';

const DEFAULT_JPEG_QUALITY = 80;
const MENU_BAR = 24;
const CURSOR = 8;
const CACHE_MAX = 64;
const cache = new Map<string, Promise<Buffer>>();

export interface ScreenState {
  width: number;
  height: number;
  /** Seed of the VM's colour (its name). */
  seed: string;
  cursor: { x: number; y: number };
}

function colourOf(seed: string): { r: number; g: number; b: number } {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
  return { r: 40 + (h & 0x7f), g: 40 + ((h >>> 8) & 0x7f), b: 40 + ((h >>> 16) & 0x7f) };
}

export function screenshot(s: ScreenState, opts: ScreenshotOptions = {}): Promise<Buffer> {
  checkScreenshotOptions(opts, s);
  const region = opts.region ?? { x: 0, y: 0, width: s.width, height: s.height };
  const cursor = opts.showCursor ? s.cursor : undefined;
  const key = JSON.stringify([
    s.seed,
    s.width,
    s.height,
    region,
    cursor,
    opts.format,
    opts.quality,
    opts.scale,
  ]);
  let image = cache.get(key);
  if (!image) {
    image = render(s, region, cursor, opts);
    // A failed encode is not cached.
    image.catch(() => cache.delete(key));
    cache.set(key, image);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  }
  return image;
}

async function render(
  s: ScreenState,
  region: { x: number; y: number; width: number; height: number },
  cursor: { x: number; y: number } | undefined,
  opts: ScreenshotOptions,
): Promise<Buffer> {
  const layers: OverlayOptions[] = [];
  const rect = (x: number, y: number, w: number, h: number, v: number) => {
    // Clip to the region; the overlay is in region coordinates.
    const left = Math.max(x, region.x);
    const top = Math.max(y, region.y);
    const right = Math.min(x + w, region.x + region.width);
    const bottom = Math.min(y + h, region.y + region.height);
    if (right <= left || bottom <= top) return;
    const width = right - left;
    const height = bottom - top;
    layers.push({
      input: Buffer.alloc(width * height * 3, v),
      raw: { width, height, channels: 3 },
      left: left - region.x,
      top: top - region.y,
    });
  };
  rect(0, 0, s.width, MENU_BAR, 235);
  if (cursor) rect(cursor.x, cursor.y, CURSOR, CURSOR, 0);
  let img = sharp({
    create: { width: region.width, height: region.height, channels: 3, background: colourOf(s.seed) },
  }).composite(layers);
  const scale = opts.scale ?? 1;
  if (scale < 1) {
    // Composite first, then resize: sharp applies resize before composite within one pipeline.
    const flat = await img.png().toBuffer();
    img = sharp(flat).resize(
      Math.max(1, Math.round(region.width * scale)),
      Math.max(1, Math.round(region.height * scale)),
      { fit: 'fill' },
    );
  }
  if (opts.format === 'jpeg') return img.jpeg({ quality: opts.quality ?? DEFAULT_JPEG_QUALITY }).toBuffer();
  return img.png({ compressionLevel: 6 }).toBuffer();
}
