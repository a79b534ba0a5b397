// `sandbox.clipboard`: what the sandbox's clipboard holds (text, or a PNG image), and replacing it.
import type { Transport } from './http.ts';
import type { ClipboardContent } from './types.ts';

/** The clipboard's content, an image's base64 decoded. */
export type Clipboard =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: 'image/png'; data: Uint8Array }
  | { type: 'empty' };

export class ClipboardGroup {
  readonly #t: Transport;
  readonly #base: string;
  constructor(t: Transport, base: string) {
    this.#t = t;
    this.#base = base;
  }

  /** What it holds; `type` picks text or the image when it offers both (default text). */
  async get(o: { type?: 'text' | 'image' } = {}): Promise<Clipboard> {
    const c = await this.#t.json<ClipboardContent>('GET', `${this.#base}/clipboard`, {
      query: { type: o.type },
    });
    if (c.type !== 'image') return c;
    return { type: 'image', mimeType: 'image/png', data: fromBase64(c.data) };
  }

  /** Puts text on the clipboard (at most 1 MiB). */
  async setText(text: string): Promise<void> {
    await this.#t.none('PUT', `${this.#base}/clipboard`, { json: { type: 'text', text } });
  }

  /** Puts a PNG image on the clipboard (at most 8 MiB). */
  async setImage(png: Uint8Array): Promise<void> {
    await this.#t.none('PUT', `${this.#base}/clipboard`, {
      json: { type: 'image', mime_type: 'image/png', data: toBase64(png) },
    });
  }
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(b64: string): Uint8Array {
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}
