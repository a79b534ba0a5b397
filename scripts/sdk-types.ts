// The TypeScript SDK's generated types: the customer API's served OpenAPI document (GET
// /openapi.json of a customer app on a throwaway store) rendered by openapi-typescript, keyed by
// path (`paths['/v1/sandboxes']['post']`), so the SDK depends on no operationId.
// scripts/generate-sdk-types.ts writes them; sdk/typescript/test/types-fresh.test.ts fails when the
// checked-in file differs from what this renders.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { buildCustomerApp } from '../api/app.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';

export const SDK_TYPES_FILE = path.join(
  import.meta.dirname,
  '..',
  'sdk',
  'typescript',
  'src',
  'generated',
  'openapi.ts',
);

/** The document the customer API serves. */
export async function servedOpenApi(): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sandbay-openapi-'));
  const store = await openSqliteStore({ file: path.join(dir, 'store.db') });
  try {
    const app = await buildCustomerApp({ store, drivers: {}, bootId: 'openapi', environment: 'openapi' });
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
      return res.json<Record<string, unknown>>();
    } finally {
      await app.close();
    }
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const HEADER =
  "// Generated from the customer API's /openapi.json by scripts/generate-sdk-types.ts (`npm run sdk:types`).\n" +
  '// Do not edit: sdk/typescript/test/types-fresh.test.ts fails when this differs from the served document.\n';

/** The file's text for a document. */
export async function renderSdkTypes(doc: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0], { alphabetize: true });
  const options = (await resolveConfig(SDK_TYPES_FILE)) ?? {};
  return format(HEADER + astToString(ast), { ...options, filepath: SDK_TYPES_FILE });
}
