// The OpenAPI document explains each field (issue 10, item 6): every property of the request and
// response bodies, and every parameter, of the operations in the groups below carries a
// description, so SDK generators and the /docs page show one instead of nothing. Every tag of the
// customer API is listed. The admin routes are served by the admin app, which has no OpenAPI
// document: their route schemas are held to the same rule directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import { buildAdminRoutes, buildCustomerApp } from './app.ts';
import { openStore, tempDir, type TempDir } from '../test/api-harness.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';

const DESCRIBED_TAGS = new Set([
  'sandboxes',
  'reservations',
  'snapshots',
  'system',
  'shell',
  'mouse',
  'keyboard',
  'screenshots',
  'display',
  'act',
  'connectivity',
  'files',
  'account',
  'recordings',
  'trajectories',
  'clipboard',
  'evaluation',
  'cua',
]);

type Schema = {
  description?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  additionalProperties?: Schema | boolean;
};
type Operation = {
  tags?: string[];
  parameters?: { name: string; in: string; description?: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

/** Paths (`field.sub[]`) of properties without a description, under `schema`. */
function undescribed(schema: Schema | undefined, at: string, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (!prop.description && !prop.$ref) out.push(`${at}.${name}`);
    undescribed(prop, `${at}.${name}`, out);
  }
  undescribed(schema.items, `${at}[]`, out);
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    undescribed(branch, at, out);
  return out;
}

let tmp: TempDir;
let store: SqliteStore;
let app: FastifyInstance;

beforeAll(async () => {
  tmp = await tempDir('sandbay-openapi-');
  store = await openStore(tmp.dir);
  app = await buildCustomerApp({ store, drivers: {}, bootId: 'openapi', environment: 'test' });
});

afterAll(async () => {
  await app?.close();
  await store?.close();
  await tmp?.cleanup();
});

describe('OpenAPI field descriptions', () => {
  it('describes every field and parameter of the covered operations', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const missing: string[] = [];
    let covered = 0;
    let operations = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        operations++;
        if (!op.tags?.some((t) => DESCRIBED_TAGS.has(t))) continue;
        covered++;
        const at = `${method.toUpperCase()} ${path}`;
        for (const p of op.parameters ?? [])
          if (!p.description && !p.schema?.description) missing.push(`${at} ${p.in} ${p.name}`);
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {}))
          undescribed(media.schema, `${at} body(${type})`, missing);
        for (const [status, res] of Object.entries(op.responses ?? {}))
          for (const media of Object.values(res.content ?? {}))
            undescribed(media.schema, `${at} ${status}`, missing);
      }
    }
    expect(covered).toBeGreaterThan(15);
    expect(covered).toBe(operations);
    expect(missing).toEqual([]);
  });

  it('describes every field and parameter of the admin routes', async () => {
    const admin = Fastify();
    const schemas: { at: string; schema: Record<string, Schema | Record<number, Schema>> }[] = [];
    admin.addHook('onRoute', (route) => {
      if (route.schema)
        schemas.push({ at: `${String(route.method)} ${route.url}`, schema: route.schema as never });
    });
    await admin.register(buildAdminRoutes(), { store });
    await admin.ready();
    await admin.close();
    const missing: string[] = [];
    for (const { at, schema } of schemas) {
      for (const part of ['params', 'querystring', 'body'] as const)
        undescribed(schema[part] as Schema | undefined, `${at} ${part}`, missing);
      for (const [status, res] of Object.entries((schema.response ?? {}) as Record<string, Schema>))
        undescribed(res, `${at} ${status}`, missing);
    }
    expect(schemas.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });
});
