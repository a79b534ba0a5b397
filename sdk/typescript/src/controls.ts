// The input and observation groups of a sandbox (`sandbox.mouse`, `.keyboard`, `.screenshot`,
// `.display`, `.accessibility`, `.recording`): each method is one request of the API.
import { writeLocalFile } from './local-fs.ts';
import type { Transport } from './http.ts';
import type { AccessibilityTree, DisplayInfo, Ok, Position, Recording, WindowTree } from './types.ts';

export type Button = 'left' | 'right';
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export class Mouse {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  click(x: number, y: number, o: { button?: Button; double?: boolean } = {}): Promise<Ok> {
    return this.#t.json('POST', `${this.#base}/mouse/click`, { json: { x, y, ...o } });
  }

  doubleClick(x: number, y: number, o: { button?: Button } = {}): Promise<Ok> {
    return this.click(x, y, { ...o, double: true });
  }

  move(x: number, y: number): Promise<Ok> {
    return this.#t.json('POST', `${this.#base}/mouse/move`, { json: { x, y } });
  }

  drag(
    startX: number,
    startY: number,
    endX: number,
    endY: number,
    o: { button?: Button | 'middle' } = {},
  ): Promise<Ok> {
    return this.#t.json('POST', `${this.#base}/mouse/drag`, { json: { startX, startY, endX, endY, ...o } });
  }

  scroll(x: number, y: number, o: { direction?: ScrollDirection; amount?: number } = {}): Promise<Ok> {
    return this.#t.json('POST', `${this.#base}/mouse/scroll`, { json: { x, y, ...o } });
  }

  getPosition(): Promise<Position> {
    return this.#t.json('GET', `${this.#base}/mouse/position`);
  }
}

export class Keyboard {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  /** Types text; `delay` is milliseconds between keystrokes. */
  type(text: string, o: { delay?: number } = {}): Promise<Ok> {
    return this.#t.json('POST', `${this.#base}/keyboard/type`, { json: { text, ...o } });
  }

  /** Presses one key (e.g. `return`, `a`), optionally with modifiers (`cmd`, `ctrl`, `alt`, `shift`). */
  press(key: string, o: { modifiers?: string[] } = {}): Promise<Ok> {
    return this.#t.json('POST', `${this.#base}/keyboard/press`, { json: { key, ...o } });
  }

  /** A key combination: `"ctrl+c"` or `["ctrl", "c"]`. */
  hotkey(keys: string | string[]): Promise<Ok> {
    const joined = Array.isArray(keys) ? keys.join('+') : keys;
    return this.#t.json('POST', `${this.#base}/keyboard/hotkey`, { json: { keys: joined } });
  }
}

export class Screenshot {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  /** The whole screen as PNG bytes. */
  takeFullScreen(o: { showCursor?: boolean } = {}): Promise<Uint8Array> {
    return this.#t.bytes('GET', `${this.#base}/screenshot`, { query: { show_cursor: o.showCursor } });
  }

  /** A region as PNG bytes. */
  takeRegion(x: number, y: number, width: number, height: number): Promise<Uint8Array> {
    return this.#t.bytes('GET', `${this.#base}/screenshot/region`, { query: { x, y, width, height } });
  }

  /** JPEG (default) or PNG, optionally scaled down (`scale` in (0, 1]). */
  takeCompressed(o: { format?: 'jpeg' | 'png'; quality?: number; scale?: number } = {}): Promise<Uint8Array> {
    return this.#t.bytes('GET', `${this.#base}/screenshot/compressed`, { query: { ...o } });
  }
}

export class Display {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  getInfo(): Promise<DisplayInfo> {
    return this.#t.json('GET', `${this.#base}/display/info`);
  }

  /** The windows on screen (a list), each with its accessibility elements below it. */
  getWindows(): Promise<WindowTree> {
    return this.#t.json('GET', `${this.#base}/display/windows`);
  }
}

export class Accessibility {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  /**
   * The accessibility tree, best effort: `{available: true, tree}` (the windows, as
   * `display.getWindows()` gives them), or `{available: false, error}` when the VM cannot give it.
   */
  getTree(): Promise<AccessibilityTree> {
    return this.#t.json('GET', `${this.#base}/display/windows`, { query: { best_effort: '1' } });
  }
}

export class Recordings {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  start(o: { name?: string } = {}): Promise<Recording> {
    return this.#t.json('POST', `${this.#base}/recording/start`, { json: o });
  }

  stop(id: string): Promise<Recording> {
    return this.#t.json('POST', `${this.#base}/recording/stop`, { json: { id } });
  }

  listAll(): Promise<Recording[]> {
    return this.#t.json('GET', `${this.#base}/recordings`);
  }

  get(id: string): Promise<Recording> {
    return this.#t.json('GET', `${this.#base}/recordings/${encodeURIComponent(id)}`);
  }

  delete(id: string): Promise<void> {
    return this.#t.none('DELETE', `${this.#base}/recordings/${encodeURIComponent(id)}`);
  }

  /** The MP4 as a stream. */
  async stream(id: string): Promise<ReadableStream<Uint8Array>> {
    const res = await this.#t.call('GET', `${this.#base}/recordings/${encodeURIComponent(id)}/download`);
    return res.body!;
  }

  /** Saves the MP4 to a local file. */
  async download(id: string, localPath: string): Promise<void> {
    await writeLocalFile(localPath, await this.stream(id));
  }
}
