// /health: no key needed; liveness plus pool statistics (Macs, VMs and sandboxes by phase), counted
// from the API's informer caches: a probe (or a flood of them) costs no store scan.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthSchema } from '../schemas/health.ts';
import type { RouteOptions } from '../services/context.ts';

function byPhase(items: { status?: { phase?: string } }[]): {
  total: number;
  by_phase: Record<string, number>;
} {
  const by_phase: Record<string, number> = {};
  for (const item of items) {
    const phase = item.status?.phase ?? 'pending';
    by_phase[phase] = (by_phase[phase] ?? 0) + 1;
  }
  return { total: items.length, by_phase };
}

export const healthRoutes: FastifyPluginAsyncTypebox<
  RouteOptions & { version: string; startedAt: number }
> = async (app, { ctx, version, startedAt }) => {
  app.get(
    '/health',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getHealth',
        tags: ['system'],
        summary: 'Liveness and pool statistics',
        security: [],
        response: { 200: HealthSchema },
      },
    },
    async () => {
      const { minis, vms, sandboxes } = ctx.reads.fleet();
      return {
        status: 'ok' as const,
        version,
        uptime_s: Math.round((ctx.clock.now() - startedAt) / 1000),
        minis: byPhase(minis),
        vms: byPhase(vms),
        sandboxes: byPhase(sandboxes),
      };
    },
  );
};
