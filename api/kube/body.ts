// Request bodies of the Kubernetes API: JSON (and its patch variants) or YAML, parsed without letting a
// `__proto__` key through (bodies are merged into stored objects later).
import type { FastifyInstance } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { StoreError } from '../../store/store.ts';

export const JSON_TYPES = [
  'application/json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
];
export const YAML_TYPES = ['application/yaml', 'application/apply-patch+yaml'];

/** Registers the body parsers in the (encapsulated) Kubernetes API scope. An empty body is undefined. */
export function bodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJson(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser(YAML_TYPES, { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseYamlBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

export function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text, (key, value: unknown) => {
      if (key === '__proto__') throw new StoreError('BadRequest', 'a "__proto__" key is not allowed');
      return value;
    });
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StoreError('BadRequest', `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function parseYamlBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (err) {
    throw new StoreError('BadRequest', `the request body is not valid YAML: ${(err as Error).message}`);
  }
  rejectProtoKeys(value);
  return value;
}

function rejectProtoKeys(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    if (key === '__proto__') throw new StoreError('BadRequest', 'a "__proto__" key is not allowed');
    rejectProtoKeys((value as Record<string, unknown>)[key]);
  }
}

/** The media type of a Content-Type header, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
