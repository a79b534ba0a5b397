// Act: one input action, then (by default) a PNG of the screen after a short delay, in one call.
import { setTimeout as delay } from 'node:timers/promises';
import Type, { type Static, type TSchema } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Guest } from '../../hosts/driver.ts';
import { ActResultSchema, ActSchema, type Action } from '../schemas/control.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

/** Runs one action with the same semantics as its own endpoint. */
export async function perform(guest: Guest, action: Action): Promise<void> {
  switch (action.type) {
    case 'click':
      return guest.click(action.x, action.y, { button: action.button, double: action.double });
    case 'move':
      return guest.move(action.x, action.y);
    case 'drag':
      return guest.drag(
        { x: action.startX, y: action.startY },
        { x: action.endX, y: action.endY },
        action.button,
      );
    case 'scroll':
      return guest.scroll(action.x, action.y, action.direction, action.amount);
    case 'type':
      return guest.type(action.text, action.delay);
    case 'key':
      return guest.press(action.key, action.modifiers);
    case 'hotkey':
      return guest.hotkey(action.keys);
  }
}

export const actRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/sandboxes/:sandboxID/act',
    {
      schema: {
        operationId: 'act',
        tags: ['act'],
        summary: 'Perform an action, then return a screenshot (PNG) or, with screenshot_after false, JSON',
        params: SandboxParams,
        body: ActSchema,
        response: {
          200: Type.Unsafe<Buffer | Static<typeof ActResultSchema>>({
            description: 'PNG after the action, or JSON when screenshot_after is false.',
            content: {
              'image/png': { schema: { type: 'string', format: 'binary' } },
              'application/json': { schema: ActResultSchema },
            },
          } as unknown as TSchema),
          ...errorResponses(400, 401, 404, 409, 502, 504),
        },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      const { action, screenshot_after, screenshot_delay_ms } = request.body;
      await perform(guest, action);
      if (!screenshot_after)
        return reply.type('application/json; charset=utf-8').send({ ok: true, action: action.type });
      if (screenshot_delay_ms > 0) await delay(screenshot_delay_ms);
      return reply.type('image/png').send(await guest.screenshot({ format: 'png' }));
    },
  );
};
