// Pause and resume: the sandbox's VM frozen where it is (memory kept, no CPU), and let go again.
// Idempotent under Idempotency-Key (a retry replays the answer instead of a 409 for the state the
// first attempt reached).
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { idempotent } from '../idempotency.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { SandboxInfoSchema } from '../schemas/sandboxes.ts';
import type { RouteOptions } from '../services/context.ts';
import { PAUSE_DEADLINE_MS, pauseSandbox, resumeSandbox } from '../services/pauses.ts';
import { sandboxOf } from '../services/request.ts';
import { sandboxInfo, vncUrlOf } from '../services/sandboxes.ts';

const headers = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'At most 255 bytes.' })),
});

export const pauseRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const idem = idempotent(ctx, () => PAUSE_DEADLINE_MS);
  const routeOf = (operationId: string, summary: string) => ({
    schema: {
      operationId,
      tags: ['sandboxes'],
      summary,
      params: SandboxParams,
      headers,
      response: { 200: SandboxInfoSchema, ...errorResponses(400, 401, 404, 409, 501, 502, 504) },
    },
    preHandler: idem.preHandler,
    onSend: idem.onSend,
  });

  app.post(
    '/v1/sandboxes/:sandboxID/pause',
    routeOf('pauseSandbox', 'Pause a running sandbox: its VM frozen, memory kept, no CPU used'),
    async (request) => {
      const paused = await pauseSandbox(ctx, await sandboxOf(ctx, request));
      return sandboxInfo(paused, await vncUrlOf(ctx, paused));
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/resume',
    routeOf('resumeSandbox', 'Resume a paused sandbox where it was'),
    async (request) => {
      const running = await resumeSandbox(ctx, await sandboxOf(ctx, request));
      return sandboxInfo(running, await vncUrlOf(ctx, running));
    },
  );
};
