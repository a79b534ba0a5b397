// The sandbox's clipboard: read it (text, or a PNG image where the guest holds one) and replace it.
// Content over its limit, or an image that is not a PNG, is refused before the guest is asked.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ClipboardContent, Guest } from '../../hosts/driver.ts';
import { checkClipboard } from '../../hosts/clipboard.ts';
import { ApiError } from '../errors.ts';
import {
  CLIPBOARD_BODY_LIMIT_BYTES,
  ClipboardQuery,
  ClipboardSchema,
  ClipboardWriteSchema,
  type ClipboardBody,
  type ClipboardWrite,
} from '../schemas/clipboard.ts';
import { NoContent, SandboxParams, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

const tags = ['clipboard'];

/** The guest's clipboard calls, or 501 naming what is missing. */
export function clipboardOf(guest: Guest): Required<Pick<Guest, 'getClipboard' | 'setClipboard'>> {
  if (!guest.getClipboard || !guest.setClipboard)
    throw new ApiError('feature_not_supported', "This sandbox's host driver has no clipboard.");
  return { getClipboard: guest.getClipboard.bind(guest), setClipboard: guest.setClipboard.bind(guest) };
}

/** A write as the driver takes it, checked against the limits first (nothing in the guest changes on a refusal). */
export function clipboardContent(body: ClipboardWrite): Exclude<ClipboardContent, { type: 'empty' }> {
  const content: Exclude<ClipboardContent, { type: 'empty' }> =
    body.type === 'text'
      ? { type: 'text', text: body.text }
      : { type: 'image', mimeType: 'image/png', data: Buffer.from(body.data, 'base64') };
  checkClipboard(content);
  return content;
}

function toBody(content: ClipboardContent): ClipboardBody {
  if (content.type === 'image')
    return { type: 'image', mime_type: 'image/png', data: content.data.toString('base64') };
  return content;
}

export const clipboardRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.get(
    '/v1/sandboxes/:sandboxID/clipboard',
    {
      schema: {
        operationId: 'getClipboard',
        tags,
        summary: "What the sandbox's clipboard holds: text, a PNG image (base64), or empty",
        params: SandboxParams,
        querystring: ClipboardQuery,
        response: { 200: ClipboardSchema, ...errorResponses(400, 401, 404, 409, 413, 501, 502, 504) },
      },
    },
    async (request) => {
      const { getClipboard } = clipboardOf(await guestFor(ctx, request));
      return toBody(await getClipboard(request.query.type));
    },
  );

  app.put(
    '/v1/sandboxes/:sandboxID/clipboard',
    {
      bodyLimit: CLIPBOARD_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'setClipboard',
        tags,
        summary: "Replace the sandbox's clipboard with text or a PNG image",
        params: SandboxParams,
        body: ClipboardWriteSchema,
        response: { 204: NoContent, ...errorResponses(400, 401, 404, 409, 413, 501, 502, 504) },
      },
    },
    async (request, reply) => {
      const content = clipboardContent(request.body);
      const { setClipboard } = clipboardOf(await guestFor(ctx, request));
      await setClipboard(content);
      return reply.code(204).send();
    },
  );
};
