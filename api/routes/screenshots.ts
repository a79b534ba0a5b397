// Screenshots: full screen (PNG), a region (PNG), compressed (JPEG or PNG, scaled).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CompressedQuery, RegionQuery, ScreenshotQuery } from '../schemas/control.ts';
import { SandboxParams, binaryResponse, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

const tags = ['screenshots'];
const errors = errorResponses(400, 401, 404, 409, 502, 504);

export const screenshotRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const params = SandboxParams;

  app.get(
    '/v1/sandboxes/:sandboxID/screenshot',
    {
      schema: {
        operationId: 'takeScreenshot',
        tags,
        summary: 'Full-screen PNG',
        params,
        querystring: ScreenshotQuery,
        response: { 200: binaryResponse(['image/png'], 'PNG image.'), ...errors },
      },
    },
    async (request, reply) => {
      const png = await (
        await guestFor(ctx, request)
      ).screenshot({ showCursor: request.query.show_cursor, format: 'png' });
      return reply.type('image/png').send(png);
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/screenshot/region',
    {
      schema: {
        operationId: 'takeRegionScreenshot',
        tags,
        summary: 'PNG of a region of the screen',
        params,
        querystring: RegionQuery,
        response: { 200: binaryResponse(['image/png'], 'PNG image.'), ...errors },
      },
    },
    async (request, reply) => {
      const { x, y, width, height } = request.query;
      const png = await (
        await guestFor(ctx, request)
      ).screenshot({ region: { x, y, width, height }, format: 'png' });
      return reply.type('image/png').send(png);
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/screenshot/compressed',
    {
      schema: {
        operationId: 'takeCompressedScreenshot',
        tags,
        summary: 'Compressed screenshot (JPEG by default), optionally scaled down',
        params,
        querystring: CompressedQuery,
        response: { 200: binaryResponse(['image/jpeg', 'image/png'], 'JPEG or PNG image.'), ...errors },
      },
    },
    async (request, reply) => {
      const { format, quality, scale } = request.query;
      const image = await (
        await guestFor(ctx, request)
      ).screenshot({
        format,
        quality,
        ...(scale !== undefined && { scale }),
      });
      return reply.type(format === 'png' ? 'image/png' : 'image/jpeg').send(image);
    },
  );
};
