// Mouse input: click, move, drag, scroll, and the cursor position.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ClickSchema, DragSchema, MoveSchema, PositionSchema, ScrollSchema } from '../schemas/control.ts';
import { OkResultSchema, SandboxParams, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

const tags = ['mouse'];
const errors = errorResponses(400, 401, 404, 409, 502, 504);

export const mouseRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const params = SandboxParams;
  const ok = { 200: OkResultSchema, ...errors };

  app.post(
    '/v1/sandboxes/:sandboxID/mouse/click',
    {
      schema: {
        operationId: 'click',
        tags,
        summary: 'Click (or double-click) at a point',
        params,
        body: ClickSchema,
        response: ok,
      },
    },
    async (request) => {
      const { x, y, button, double } = request.body;
      await (await guestFor(ctx, request)).click(x, y, { button, double });
      return { ok: true };
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/mouse/move',
    {
      schema: {
        operationId: 'moveMouse',
        tags,
        summary: 'Move the cursor',
        params,
        body: MoveSchema,
        response: ok,
      },
    },
    async (request) => {
      await (await guestFor(ctx, request)).move(request.body.x, request.body.y);
      return { ok: true };
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/mouse/drag',
    {
      schema: {
        operationId: 'drag',
        tags,
        summary: 'Drag from one point to another with a button held',
        params,
        body: DragSchema,
        response: ok,
      },
    },
    async (request) => {
      const { startX, startY, endX, endY, button } = request.body;
      await (await guestFor(ctx, request)).drag({ x: startX, y: startY }, { x: endX, y: endY }, button);
      return { ok: true };
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/mouse/scroll',
    {
      schema: {
        operationId: 'scroll',
        tags,
        summary: 'Scroll at a point',
        params,
        body: ScrollSchema,
        response: ok,
      },
    },
    async (request) => {
      const { x, y, direction, amount } = request.body;
      await (await guestFor(ctx, request)).scroll(x, y, direction, amount);
      return { ok: true };
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/mouse/position',
    {
      schema: {
        operationId: 'getMousePosition',
        tags,
        summary: 'The cursor position',
        params,
        response: { 200: PositionSchema, ...errors },
      },
    },
    async (request) => (await guestFor(ctx, request)).position(),
  );
};
