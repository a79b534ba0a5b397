// `GET /v1/platforms/events`: the models of /v1/platforms (rates, Macs free per model, the warm VMs of
// each layout) as server-sent events, a `models` event now and one after every change the store's
// watch brings (within milliseconds; the dashboard's live rates page). A comment line every 15 s
// keeps proxies from closing an idle stream.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import type { PlatformFeed } from '../services/platform-feed.ts';

const HEARTBEAT_MS = 15_000;

const EventStream = Type.Unsafe<string>({
  description: 'text/event-stream: `event: models` with `data:` the `models` array of /v1/platforms.',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as unknown as Parameters<typeof Type.Unsafe>[0]);

export const platformEventRoutes: FastifyPluginAsyncTypebox<RouteOptions & { feed: PlatformFeed }> = async (
  app,
  { feed },
) => {
  app.get(
    '/v1/platforms/events',
    {
      schema: {
        operationId: 'watchPlatforms',
        tags: ['reservations'],
        summary: 'Rates and availability per model and layout, live (server-sent events)',
        response: { 200: EventStream, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-accel-buffering': 'no',
        'x-request-id': request.id,
      });
      // A HEAD gets the head and no stream: Node sends no body for it, nor the head until the end,
      // so a HEAD left streaming never had an answer (and held a feed subscription while it waited).
      if (request.method === 'HEAD') return void res.end();
      res.write('retry: 2000\n\n');
      const heartbeat = setInterval(() => res.write(': keepalive\n\n'), HEARTBEAT_MS);
      // The client may hang up while the feed is starting: `end` then runs before the subscription exists.
      const subscription: { unsubscribe?: () => void } = {};
      const end = () => {
        clearInterval(heartbeat);
        subscription.unsubscribe?.();
        res.end();
      };
      request.raw.on('close', end);
      subscription.unsubscribe = await feed.subscribe({
        update: (models) => res.write(`event: models\ndata: ${JSON.stringify(models)}\n\n`),
        closed: end,
      });
      if (res.destroyed) end();
    },
  );
};
