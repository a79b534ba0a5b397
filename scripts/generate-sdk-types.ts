// Writes sdk/typescript/src/generated/openapi.ts from the customer API's served OpenAPI document
// (`npm run sdk:types`); re-run it after any route or schema change.
import { writeFile } from 'node:fs/promises';
import { SDK_TYPES_FILE, renderSdkTypes, servedOpenApi } from './sdk-types.ts';

await writeFile(SDK_TYPES_FILE, await renderSdkTypes(await servedOpenApi()));
console.log(`wrote ${SDK_TYPES_FILE}`);
