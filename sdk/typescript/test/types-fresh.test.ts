// The checked-in generated types match what the customer API serves now: a route or schema change
// without `npm run sdk:types` fails here.
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { SDK_TYPES_FILE, renderSdkTypes, servedOpenApi } from '../../../scripts/sdk-types.ts';

it('the generated OpenAPI types are those of the served /openapi.json (run `npm run sdk:types`)', async () => {
  const fresh = await renderSdkTypes(await servedOpenApi());
  expect((await readFile(SDK_TYPES_FILE, 'utf8')) === fresh, 'stale: run `npm run sdk:types`').toBe(true);
});
