// `exec_ax` on the use.computer client's wire path: `POST /v1/sandboxes/{id}/exec_ax {command}`.
// The same service as `POST …/exec` with `ax: true` (which stays): the command runs under the
// in-VM control agent's session, where the accessibility APIs are allowed.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SandboxParams, defaultsOptional, errorResponses } from '../../schemas/common.ts';
import { ExecRequestSchema, ExecResultSchema } from '../../schemas/sandboxes.ts';
import type { RouteOptions } from '../../services/context.ts';
import { execOnSandbox } from '../../services/exec.ts';

const { command, timeout } = ExecRequestSchema.properties;

/** `{command, timeout?}`: exec's body without `ax` (the path says it). */
export const ExecAxRequestSchema = defaultsOptional(
  Type.Object({ command, timeout }, { additionalProperties: false }),
);

export const execAxRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/sandboxes/:sandboxID/exec_ax',
    {
      schema: {
        operationId: 'execAxCommand',
        tags: ['shell'],
        summary: "Run a shell command under the in-VM control agent (the use.computer client's exec_ax)",
        params: SandboxParams,
        body: ExecAxRequestSchema,
        response: { 200: ExecResultSchema, ...errorResponses(400, 401, 404, 409, 502, 504) },
      },
    },
    async (request, reply) => {
      const { command, timeout } = request.body;
      return execOnSandbox(ctx, request, reply, { command, timeoutS: timeout, ax: true });
    },
  );
};
