// The platforms catalog (reservation-scoped): images and capacity available now.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth.ts';
import { errorResponses } from '../schemas/common.ts';
import { PlatformsQuery, PlatformsSchema } from '../schemas/platforms.ts';
import type { RouteOptions } from '../services/context.ts';
import { platforms } from '../services/platforms.ts';

export const platformRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.get(
    '/v1/platforms',
    {
      schema: {
        operationId: 'listPlatforms',
        tags: ['reservations'],
        summary: "Models for sale with their availability; the reservation's images and free capacity",
        querystring: PlatformsQuery,
        response: { 200: PlatformsSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => platforms(ctx, principalOf(request), request.query.reservation_id),
  );
};
