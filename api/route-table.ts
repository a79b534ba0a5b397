// Every route an app serves, as its `onRoute` hooks saw it registered: method, URL and schema
// (Fastify's automatic HEAD routes included). Fastify has no public list of its routes, and
// `printRoutes()` drops the path before a wildcard (`/view/novnc/*` prints as `*`); tests that must
// cover every route (the fuzzer, test/api-fuzz.test.ts) read this list instead.
import type { FastifyInstance, FastifySchema } from 'fastify';

export interface RouteEntry {
  method: string;
  /** As registered, with its prefix: `/v1/sandboxes/:sandboxID/files`, `/view/novnc/*`. */
  url: string;
  schema?: FastifySchema;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's routes, filled in as they are registered (see api/route-table.ts). */
    routeTable: readonly RouteEntry[];
  }
}

/** Decorates `app` with `routeTable`; call it before any route is registered. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method])
      table.push({ method, url: route.url, ...(route.schema && { schema: route.schema }) });
  });
}
