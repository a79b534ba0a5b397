// Forking a running sandbox into N (idempotent under Idempotency-Key, like a create).
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { ForkRequestSchema, ForkResultSchema } from '../schemas/forks.ts';
import type { RouteOptions } from '../services/context.ts';
import { forkSandbox, newForkGroup } from '../services/forks.ts';
import { sandboxOf } from '../services/request.ts';
import { CREATE_DEADLINE_MS } from '../services/sandboxes.ts';

export const forkRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  // Under an Idempotency-Key the call's id is the key's: a retry after a crash finds its forks.
  const idem = idempotent(ctx, () => CREATE_DEADLINE_MS, newForkGroup);

  app.post(
    '/v1/sandboxes/:sandboxID/fork',
    {
      schema: {
        operationId: 'forkSandbox',
        tags: ['sandboxes'],
        summary: 'Fork a running sandbox into N new ones, each started from a copy of its disk',
        params: SandboxParams,
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'At most 255 bytes.' })),
        }),
        body: ForkRequestSchema,
        response: {
          201: ForkResultSchema,
          ...errorResponses(400, 401, 402, 404, 409, 422, 502, 503, 504),
        },
      },
      // The body is optional: none is one fork.
      preValidation: async (request) => {
        request.body ??= { count: 1 };
      },
      preHandler: idem.preHandler,
      onSend: idem.onSend,
    },
    async (request, reply) => {
      const source = await sandboxOf(ctx, request);
      const group = request.idempotencyClaim?.resource;
      const result = await forkSandbox(ctx, principalOf(request), source, request.body.count, group);
      return reply.code(201).send(result);
    },
  );
};
