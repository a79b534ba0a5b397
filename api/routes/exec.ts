// Shell commands in the sandbox, over the VM's SSH (or under the in-VM agent with `ax: true`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { ExecRequestSchema, ExecResultSchema } from '../schemas/sandboxes.ts';
import type { RouteOptions } from '../services/context.ts';
import { execOnSandbox } from '../services/exec.ts';

export const execRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/sandboxes/:sandboxID/exec',
    {
      schema: {
        operationId: 'execCommand',
        tags: ['shell'],
        summary: 'Run a shell command; a non-zero exit is a result, not an error',
        params: SandboxParams,
        body: ExecRequestSchema,
        response: { 200: ExecResultSchema, ...errorResponses(400, 401, 404, 409, 502, 504) },
      },
    },
    async (request, reply) => {
      const { command, timeout, ax } = request.body;
      return execOnSandbox(ctx, request, reply, { command, timeoutS: timeout, ax });
    },
  );
};
