// The routes the fuzzer covers, read from the app itself (`app.routeTable`, api/route-table.ts:
// every route as it was registered, Fastify's HEAD routes included), and what each takes, read
// from its own schema. A route added anywhere is found and fuzzed without a list kept by hand.
import type { FastifyInstance } from 'fastify';
import type { RouteEntry } from '../../../api/route-table.ts';
import type { JsonSchema } from './schema-values.ts';

/** What a route takes, beyond its path parameters. */
export interface RouteInput {
  query?: Record<string, JsonSchema>;
  requiredQuery?: string[];
  headers?: Record<string, JsonSchema>;
  /** Media types the body may have; the first is the usual one. */
  bodyTypes?: string[];
  /** JSON bodies: the schema; other bodies are bytes. */
  bodySchema?: JsonSchema;
}

export interface RouteRef {
  method: string;
  url: string;
  schema?: RouteEntry['schema'];
}

export function routesOf(app: FastifyInstance): RouteRef[] {
  const seen = new Set<string>();
  return app.routeTable
    .filter((r) => !seen.has(routeName(r)) && seen.add(routeName(r)))
    .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method));
}

/** `GET /v1/sandboxes/:sandboxID`: how routes are named in fuzz tables and reports. */
export function routeName(r: Pick<RouteRef, 'method' | 'url'>): string {
  return `${r.method} ${r.url}`;
}

interface ObjectSchema extends JsonSchema {
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/**
 * What the route's schema says it takes; undefined for a route without a schema (its world must
 * describe it, or the route has no fuzz target).
 */
export function schemaInput(route: RouteRef): RouteInput | undefined {
  const schema = route.schema as
    { querystring?: ObjectSchema; body?: JsonSchema; headers?: ObjectSchema; params?: unknown } | undefined;
  if (!schema) return undefined;
  const input: RouteInput = {
    query: { ...schema.querystring?.properties },
    requiredQuery: schema.querystring?.required ?? [],
    headers: { ...schema.headers?.properties },
  };
  if (schema.body) {
    input.bodyTypes = ['application/json'];
    input.bodySchema = schema.body;
  } else if (route.method === 'PUT') {
    // Raw-byte uploads (files, archives): any content type is bytes there.
    input.bodyTypes = ['application/octet-stream'];
  }
  return input;
}
