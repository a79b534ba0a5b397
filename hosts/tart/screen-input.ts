// Screen and input of a tart VM over one persistent RFB session to Tart's VNC server (tunnelled
// through the Mac's SSH connection): no permission is needed inside the guest and it works at the
// login window. Screenshots are encoded as the linux driver's are (a whole screen as PNG by the
// session's strip encoder, png-strips.ts; anything else by sharp); pointer buttons and
// wheel steps are RFB button-mask bits; keys are the keysyms of the Mac keymap (mac-keys.ts: the
// physical keys Tart's server presses, Shift explicit), and text with no key is pasted through the
// guest's clipboard.
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import type { Duplex } from 'node:stream';
import { DriverError, type MouseButton, type ScreenshotOptions, type ScrollDirection } from '../driver.ts';
import { checkPoint, checkScrollAmount, checkTypeDelay } from '../input-checks.ts';
import type { Chord } from '../linux/keys.ts';
import { macChordFor, macParseHotkey, macTypePlan, PASTE_CHORD } from './mac-keys.ts';
import { PNG_OPTIONS, StripPngEncoder, libvipsPng } from '../png-strips.ts';
import { checkScreenshotOptions, isWholeScreenPng } from '../screenshot-options.ts';
import { RfbClient, type CursorShape } from './rfb-client.ts';

/** RFB's mask has no bits for the side buttons (X buttons 8 and 9): `back`/`forward` are refused. */
const BUTTON: Partial<Record<MouseButton, number>> = { left: 1, middle: 2, right: 4 };
const WHEEL: Record<ScrollDirection, number> = { up: 8, down: 16, left: 32, right: 64 };
const DEFAULT_JPEG_QUALITY = 80;
/**
 * After Command-V, how long the guest has to read the clipboard before the next keys (or the old
 * contents, restored) follow. Nothing tells the driver when an app has read the pasteboard: an app
 * reads it while handling Command-V (AppKit: synchronously), so this covers the event's delivery
 * and the app's turn to it. A paste that comes later than this gets the restored contents.
 */
export const PASTE_SETTLE_MS = 400;

/** The guest's clipboard as text (pbpaste / pbcopy over SSH, guest.ts). */
export interface GuestClipboard {
  read(): Promise<string>;
  write(text: string): Promise<void>;
}

export class ScreenInput {
  readonly #open: () => Promise<{ stream: Duplex; password: string }>;
  readonly #clipboard: GuestClipboard;
  #session: Promise<RfbClient> | undefined;
  #pos = { x: 0, y: 0 };
  /** Buttons held down by button() (a move keeps them held, as RFB sends the whole mask each time). */
  #held = 0;
  /** Whole-screen PNGs: only the strips that changed since the last one are compressed. */
  readonly #png = new StripPngEncoder(libvipsPng);

  constructor(open: () => Promise<{ stream: Duplex; password: string }>, clipboard: GuestClipboard) {
    this.#open = open;
    this.#clipboard = clipboard;
  }

  /** The session, re-opened if the last one died (the Mac's connection dropped, the VM rebooted). */
  async #rfb(): Promise<RfbClient> {
    const current = await this.#session?.catch(() => undefined);
    if (current?.alive) return current;
    this.#session = this.#open().then(({ stream, password }) => RfbClient.connect(stream, password));
    return this.#session;
  }

  async size(): Promise<{ width: number; height: number }> {
    const c = await this.#rfb();
    return { width: c.width, height: c.height };
  }

  /** The whole screen now, as the RFB session holds it: R,G,B,X bytes (a recording's frame). */
  async frame(): Promise<{ data: Buffer; width: number; height: number }> {
    return (await this.#rfb()).capture();
  }

  async screenshot(opts: ScreenshotOptions = {}): Promise<Buffer> {
    const c = await this.#rfb();
    checkScreenshotOptions(opts, c);
    const frame = await c.capture();
    if (opts.showCursor && c.cursor) drawCursor(frame, c.cursor, this.#pos);
    const r = opts.region;
    if (isWholeScreenPng(opts)) return this.#png.encode({ ...frame, channels: 4 });
    const scale = opts.scale ?? 1;
    let image = sharp(frame.data, { raw: { width: frame.width, height: frame.height, channels: 4 } });
    if (r) image = image.extract({ left: r.x, top: r.y, width: r.width, height: r.height });
    // The pixels' fourth byte is padding: a PNG without alpha, as the other drivers make.
    image = sharp(await image.removeAlpha().raw().toBuffer(), {
      raw: { width: r?.width ?? frame.width, height: r?.height ?? frame.height, channels: 3 },
    });
    if (scale < 1) {
      const [w, h] = [r?.width ?? frame.width, r?.height ?? frame.height];
      image = image.resize(Math.max(1, Math.round(w * scale)), Math.max(1, Math.round(h * scale)), {
        fit: 'fill',
      });
    }
    if (opts.format === 'jpeg') {
      return image.jpeg({ quality: opts.quality ?? DEFAULT_JPEG_QUALITY, optimizeCoding: false }).toBuffer();
    }
    return image.png(PNG_OPTIONS).toBuffer();
  }

  async move(x: number, y: number): Promise<void> {
    const c = await this.#rfb();
    checkPoint(x, y, c);
    this.#pos = { x, y };
    c.pointer(x, y, this.#held);
  }

  /** Presses or releases one button where the pointer is. */
  async button(button: MouseButton, down: boolean): Promise<void> {
    const mask = BUTTON[button];
    if (mask === undefined) throw new DriverError('invalid_argument', `unknown button ${String(button)}`);
    const c = await this.#rfb();
    this.#held = down ? this.#held | mask : this.#held & ~mask;
    c.pointer(this.#pos.x, this.#pos.y, this.#held);
  }

  async click(x: number, y: number, button: MouseButton = 'left', double = false): Promise<void> {
    const mask = BUTTON[button];
    if (mask === undefined) throw new DriverError('invalid_argument', `unknown button ${String(button)}`);
    await this.move(x, y);
    const c = await this.#rfb();
    for (let i = 0; i < (double ? 2 : 1); i++) {
      c.pointer(x, y, mask);
      c.pointer(x, y, 0);
    }
  }

  async drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    button: MouseButton = 'left',
  ): Promise<void> {
    const mask = BUTTON[button];
    if (mask === undefined) throw new DriverError('invalid_argument', `unknown button ${String(button)}`);
    const c = await this.#rfb();
    checkPoint(to.x, to.y, c);
    await this.move(from.x, from.y);
    c.pointer(from.x, from.y, mask);
    c.pointer(to.x, to.y, mask);
    c.pointer(to.x, to.y, 0);
    this.#pos = { ...to };
  }

  async scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void> {
    checkScrollAmount(amount);
    const bit = WHEEL[direction];
    if (bit === undefined)
      throw new DriverError('invalid_argument', `unknown direction ${String(direction)}`);
    await this.move(x, y);
    const c = await this.#rfb();
    for (let i = 0; i < amount; i++) {
      c.pointer(x, y, bit);
      c.pointer(x, y, 0);
    }
  }

  /** The pointer where this driver last put it (RFB does not report the server's pointer). */
  position(): { x: number; y: number } {
    return { ...this.#pos };
  }

  /**
   * Types `text`: each character of the US keyboard as its keystroke (Shift held where needed), each
   * run of other characters pasted (the clipboard set to it, Command-V), the clipboard's text
   * restored at the end. A clipboard holding something other than text (an image) is not restored.
   */
  async type(text: string, delayMs = 0): Promise<void> {
    if (typeof text !== 'string') throw new DriverError('invalid_argument', 'text must be a string');
    const plan = macTypePlan(text);
    checkTypeDelay(
      delayMs,
      plan.reduce((n, s) => n + ('keys' in s ? s.keys.length : 1), 0),
    );
    const c = await this.#rfb();
    const saved = plan.some((s) => 'paste' in s) ? await this.#clipboard.read() : undefined;
    try {
      let first = true;
      for (const step of plan) {
        for (const chord of 'keys' in step ? step.keys : [PASTE_CHORD]) {
          if (!first && delayMs > 0) await sleep(delayMs);
          first = false;
          if ('paste' in step) await this.#clipboard.write(step.paste);
          sendChord(c, chord);
          if ('paste' in step) await sleep(PASTE_SETTLE_MS);
        }
      }
    } finally {
      if (saved !== undefined) await this.#clipboard.write(saved);
    }
  }

  async press(key: string, modifiers: string[] = []): Promise<void> {
    sendChord(await this.#rfb(), macChordFor(key, modifiers));
  }

  async hotkey(keys: string): Promise<void> {
    sendChord(await this.#rfb(), macParseHotkey(keys));
  }

  /** Holds (in order) or releases (in reverse) every key of `a+b+c`. */
  async keys(keys: string, down: boolean): Promise<void> {
    const ch = macParseHotkey(keys);
    const all = [...ch.held, ch.key];
    const c = await this.#rfb();
    for (const k of down ? all : all.reverse()) c.key(k, down);
  }

  close(): void {
    void this.#session?.then((c) => c.close()).catch(() => {});
    this.#session = undefined;
  }
}

/** Holds the chord's keys in order, presses and releases its key, releases the held keys in reverse. */
function sendChord(c: RfbClient, ch: Chord): void {
  for (const k of ch.held) c.key(k, true);
  c.key(ch.key, true);
  c.key(ch.key, false);
  for (const k of [...ch.held].reverse()) c.key(k, false);
}

/**
 * Draws the server's cursor shape into a frame (R,G,B,X) with its hotspot where the driver last put
 * the pointer: RFB servers keep the pointer out of the framebuffer once a client takes its shape.
 */
export function drawCursor(
  frame: { data: Buffer; width: number; height: number },
  cursor: CursorShape,
  at: { x: number; y: number },
): void {
  const stride = Math.ceil(cursor.width / 8);
  for (let cy = 0; cy < cursor.height; cy++) {
    const y = at.y - cursor.hotY + cy;
    if (y < 0 || y >= frame.height) continue;
    for (let cx = 0; cx < cursor.width; cx++) {
      const x = at.x - cursor.hotX + cx;
      if (x < 0 || x >= frame.width) continue;
      if (((cursor.mask[cy * stride + (cx >> 3)] ?? 0) & (0x80 >> (cx & 7))) === 0) continue;
      cursor.pixels.copy(
        frame.data,
        (y * frame.width + x) * 4,
        (cy * cursor.width + cx) * 4,
        (cy * cursor.width + cx) * 4 + 4,
      );
    }
  }
}
