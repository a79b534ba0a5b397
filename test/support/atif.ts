// Validates an exported trajectory twice over: against the ATIF validator written from Harbor's RFC
// 0001 (./atif-rfc-validator.ts: the rules as the RFC states them, independent of sandbay's code),
// and against sandbay's own published schema (api/schemas/atif.ts, the route's response schema and
// the OpenAPI document) with ajv, a maintained validator independent of the TypeBox compiler the API
// uses.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { AtifSchema, type AtifDocument } from '../../api/schemas/atif.ts';
import { atifRfcProblems } from './atif-rfc-validator.ts';

// ajv-formats is CommonJS: under ESM its default import is the module, the plugin its `default`.
const addFormats = addFormatsModule.default;
const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
// A plain JSON copy: the schema exactly as the OpenAPI document publishes it.
const validate = ajv.compile<AtifDocument>(JSON.parse(JSON.stringify(AtifSchema)) as object);

/**
 * Fails the test with every reason the document is not valid ATIF. `files` are the entries beside
 * `trajectory.json` in an archive: every image path must name one of them. Image paths are always
 * relative and in `images/` (the RFC's storage convention, and where the ZIP puts them).
 */
export function expectValidAtif(doc: unknown, files?: Iterable<string>): asserts doc is AtifDocument {
  const options = { imageDir: 'images/', ...(files && { files: new Set(files) }) };
  expect(atifRfcProblems(doc, options)).toEqual([]);
  const ok = validate(doc);
  expect(ok ? [] : validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
}
