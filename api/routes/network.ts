// A sandbox's network: the egress policy in force and the modes its Mac enforces (GET), and a
// change of the policy while it runs (PATCH), answered once the policy is in force.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { NetworkPatchSchema, NetworkSchema } from '../schemas/network.ts';
import type { RouteOptions } from '../services/context.ts';
import { networkOf, setSandboxEgress } from '../services/network.ts';
import { sandboxOf } from '../services/request.ts';

const tags = ['sandboxes'];

export const networkRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.get(
    '/v1/sandboxes/:sandboxID/network',
    {
      schema: {
        operationId: 'getSandboxNetwork',
        tags,
        summary: "The sandbox's egress policy in force, and the modes its Mac enforces",
        params: SandboxParams,
        response: { 200: NetworkSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => networkOf(ctx, await sandboxOf(ctx, request)),
  );

  app.patch(
    '/v1/sandboxes/:sandboxID/network',
    {
      schema: {
        operationId: 'setSandboxEgress',
        tags,
        summary: "Change the running sandbox's egress policy; answers once it is in force",
        params: SandboxParams,
        body: NetworkPatchSchema,
        response: { 200: NetworkSchema, ...errorResponses(400, 401, 404, 409, 422, 502, 504) },
      },
    },
    async (request) => setSandboxEgress(ctx, await sandboxOf(ctx, request), request.body.egress),
  );
};
