// Keyboard input: type text, press a key with modifiers, hotkeys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HotkeySchema, PressSchema, TypeSchema } from '../schemas/control.ts';
import { OkResultSchema, SandboxParams, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

const tags = ['keyboard'];

export const keyboardRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const params = SandboxParams;
  const response = { 200: OkResultSchema, ...errorResponses(400, 401, 404, 409, 502, 504) };

  app.post(
    '/v1/sandboxes/:sandboxID/keyboard/type',
    { schema: { operationId: 'typeText', tags, summary: 'Type text', params, body: TypeSchema, response } },
    async (request) => {
      await (await guestFor(ctx, request)).type(request.body.text, request.body.delay);
      return { ok: true };
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/keyboard/press',
    {
      schema: {
        operationId: 'pressKey',
        tags,
        summary: 'Press one key with modifiers held',
        params,
        body: PressSchema,
        response,
      },
    },
    async (request) => {
      await (await guestFor(ctx, request)).press(request.body.key, request.body.modifiers);
      return { ok: true };
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/keyboard/hotkey',
    {
      schema: {
        operationId: 'pressHotkey',
        tags,
        summary: 'Press a key combination such as `cmd+shift+4`',
        params,
        body: HotkeySchema,
        response,
      },
    },
    async (request) => {
      await (await guestFor(ctx, request)).hotkey(request.body.keys);
      return { ok: true };
    },
  );
};
