// The clipboard's wire shapes (GET/PUT /v1/sandboxes/{id}/clipboard, the act action): text as a
// string, a PNG image as base64, or nothing. Limits: hosts/clipboard.ts.
import Type, { type Static } from 'typebox';
import { CLIPBOARD_IMAGE_MAX_BYTES, CLIPBOARD_TEXT_MAX_BYTES } from '../../hosts/clipboard.ts';

const MIB = 1024 * 1024;

const ClipboardText = Type.Object(
  {
    type: Type.Literal('text', { description: 'Text (UTF-8).' }),
    text: Type.String({
      description: `The text; at most ${CLIPBOARD_TEXT_MAX_BYTES / MIB} MiB of UTF-8 (413 \`clipboard_too_large\` past it).`,
    }),
  },
  { additionalProperties: false },
);

const ClipboardImage = Type.Object(
  {
    type: Type.Literal('image', { description: 'An image.' }),
    mime_type: Type.Literal('image/png', { description: 'Always image/png.' }),
    data: Type.String({
      pattern: '^[A-Za-z0-9+/]*={0,2}$',
      description: `The PNG's bytes in base64; at most ${CLIPBOARD_IMAGE_MAX_BYTES / MIB} MiB decoded (413 \`clipboard_too_large\` past it).`,
    }),
  },
  { additionalProperties: false },
);

const ClipboardEmpty = Type.Object(
  { type: Type.Literal('empty', { description: 'Nothing is on the clipboard (or nothing text or PNG).' }) },
  { additionalProperties: false },
);

export const ClipboardSchema = Type.Union([ClipboardText, ClipboardImage, ClipboardEmpty], {
  description: "What the sandbox's clipboard holds.",
});
export type ClipboardBody = Static<typeof ClipboardSchema>;

export const ClipboardWriteSchema = Type.Union([ClipboardText, ClipboardImage], {
  description: 'What to put on the clipboard: text, or a PNG image.',
});
export type ClipboardWrite = Static<typeof ClipboardWriteSchema>;

export const ClipboardQuery = Type.Object({
  type: Type.Optional(
    Type.Union([Type.Literal('text'), Type.Literal('image')], {
      description:
        'Which representation to answer with when the clipboard offers both (default text; an image copied from a browser often carries text too).',
    }),
  ),
});

/** The largest PUT body: a base64 image at the limit, plus its JSON. */
export const CLIPBOARD_BODY_LIMIT_BYTES = Math.ceil(CLIPBOARD_IMAGE_MAX_BYTES / 3) * 4 + 64 * 1024;
