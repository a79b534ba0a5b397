// The clipboard's limits and checks, the same for every driver: what the API carries in one request
// (the body of PUT …/clipboard is JSON, an image base64 in it) and what a driver hands a guest. A
// payload over its limit is refused before anything in the guest changes.
import { DriverError, type ClipboardContent } from './driver.ts';

/** Largest text the clipboard carries, in UTF-8 bytes. */
export const CLIPBOARD_TEXT_MAX_BYTES = 1024 * 1024;
/** Largest image (PNG bytes) the clipboard carries. */
export const CLIPBOARD_IMAGE_MAX_BYTES = 8 * 1024 * 1024;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The limit of one kind of content, in bytes. */
export function clipboardLimit(type: 'text' | 'image'): number {
  return type === 'text' ? CLIPBOARD_TEXT_MAX_BYTES : CLIPBOARD_IMAGE_MAX_BYTES;
}

/** Throws `too_large` past the limit, `invalid_argument` for an image that is not a PNG or text with a NUL. */
export function checkClipboard(content: Exclude<ClipboardContent, { type: 'empty' }>): void {
  if (content.type === 'text') {
    if (typeof content.text !== 'string')
      throw new DriverError('invalid_argument', 'clipboard text must be a string');
    tooLarge('text', Buffer.byteLength(content.text));
    // An X selection or a pasteboard string ends at a NUL for most of the programs reading it.
    if (content.text.includes('\0'))
      throw new DriverError('invalid_argument', 'clipboard text contains a NUL character');
    return;
  }
  if (!Buffer.isBuffer(content.data) || content.mimeType !== 'image/png')
    throw new DriverError('invalid_argument', 'a clipboard image must be PNG bytes');
  tooLarge('image', content.data.length);
  if (!content.data.subarray(0, 8).equals(PNG_SIGNATURE))
    throw new DriverError('invalid_argument', 'the clipboard image is not a PNG (no PNG signature)');
}

/** Throws `too_large` when `bytes` of `type` are over its limit (also for what a guest holds). */
export function tooLarge(type: 'text' | 'image', bytes: number): void {
  const limit = clipboardLimit(type);
  if (bytes > limit) {
    throw new DriverError(
      'too_large',
      `clipboard ${type} of more than ${limit / (1024 * 1024)} MiB (the most the clipboard carries)`,
    );
  }
}
