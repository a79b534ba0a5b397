// Display information and the window / accessibility tree.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AccessibilityTreeSchema, bestEffortTree } from '../compat/use-computer/accessibility.ts';
import { DisplayInfoSchema, WindowsQuery, WindowsSchema } from '../schemas/control.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

const tags = ['display'];
const errors = errorResponses(400, 401, 404, 409, 502, 504);

export const displayRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.get(
    '/v1/sandboxes/:sandboxID/display/info',
    {
      schema: {
        operationId: 'getDisplayInfo',
        tags,
        summary: 'Screen size and scale',
        params: SandboxParams,
        response: { 200: DisplayInfoSchema, ...errors },
      },
    },
    async (request) => ({
      ...(await (await guestFor(ctx, request)).displayInfo()),
      platform: 'macos' as const,
    }),
  );

  app.get(
    '/v1/sandboxes/:sandboxID/display/windows',
    {
      schema: {
        operationId: 'listWindows',
        tags,
        summary:
          'Application windows with their accessibility tree (a list; `{available, tree, error}` with best_effort)',
        params: SandboxParams,
        querystring: WindowsQuery,
        response: { 200: Type.Union([WindowsSchema, AccessibilityTreeSchema]), ...errors },
      },
    },
    async (request) => {
      const windows = async () => (await guestFor(ctx, request)).windows();
      const bestEffort = request.query.best_effort === '1' || request.query.best_effort === 'true';
      return bestEffort ? bestEffortTree(windows) : windows();
    },
  );
};
