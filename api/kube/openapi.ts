// OpenAPI v3 of the sandbay.io group, built from the crds/ schemas. kubectl reads it to learn that
// PATCH accepts `fieldValidation` (so validation happens here, server-side, and kubectl needs no
// OpenAPI v2), to pick the patch type for `apply` (no strategic merge listed → JSON merge patch, as
// for any custom resource) and for `kubectl explain`.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { API_VERSION, GROUP, KINDS, VERSION, type KindDefinition } from '../../crds/index.ts';
import { failure } from './status.ts';

type Schema = Record<string, unknown>;

const GV_PATH = `apis/${GROUP}/${VERSION}`;
/** `io.sandbay.v1alpha1.Mini`: the API server's naming of definitions (reversed group). */
const DEFINITION_PREFIX = `${GROUP.split('.').reverse().join('.')}.${VERSION}`;

export function definitionName(kind: string): string {
  return `${DEFINITION_PREFIX}.${kind}`;
}

/**
 * A TypeBox (JSON Schema 2020-12) schema as an OpenAPI 3.0 schema: `const` becomes a one-value enum,
 * `patternProperties` becomes `additionalProperties`, an untyped enum of strings gets `type: string`,
 * a numeric `exclusiveMinimum`/`exclusiveMaximum` becomes the bound with OpenAPI 3.0's boolean flag
 * (kubectl's parser refuses the whole document otherwise), and a free-form value is marked
 * `x-kubernetes-preserve-unknown-fields`.
 */
export function toOpenApiSchema(schema: unknown): Schema {
  if (typeof schema !== 'object' || schema === null) return {};
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'const') out.enum = [value];
    else if (key === 'properties')
      out.properties = mapValues(value as Record<string, unknown>, toOpenApiSchema);
    else if (key === 'items' || key === 'additionalProperties') {
      out[key] = typeof value === 'object' ? toOpenApiSchema(value) : value;
    } else if (key === 'patternProperties') {
      const [first] = Object.values(value as Record<string, unknown>);
      out.additionalProperties = toOpenApiSchema(first);
    } else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf')
      out[key] = (value as unknown[]).map(toOpenApiSchema);
    else if ((key === 'exclusiveMinimum' || key === 'exclusiveMaximum') && typeof value === 'number') {
      out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
      out[key] = true;
    } else if (key !== '$id' && key !== '$schema') out[key] = value;
  }
  if (Array.isArray(out.enum) && out.type === undefined && out.enum.every((v) => typeof v === 'string')) {
    out.type = 'string';
  }
  if (Object.keys(out).length === 0) out['x-kubernetes-preserve-unknown-fields'] = true;
  return out;
}

function mapValues<T, U>(record: Record<string, T>, fn: (v: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fn(v)]));
}

const ref = (kind: string) => ({ $ref: `#/components/schemas/${definitionName(kind)}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const queryParam = (name: string, type = 'string') => ({ name, in: 'query', schema: { type } });

function operation(def: KindDefinition, action: string, verb: string, bodyKind?: string) {
  const responseKind = action === 'list' ? `${def.kind}List` : def.kind;
  return {
    operationId: `${verb}${def.kind}`,
    tags: [`${GROUP}_${VERSION}`],
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: GROUP, version: VERSION, kind: def.kind },
    ...(bodyKind && { requestBody: { required: true, content: json(ref(bodyKind)) } }),
    responses: { '200': { description: 'OK', content: json(ref(responseKind)) } },
  };
}

function patchOperation(def: KindDefinition) {
  const patch = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return {
    ...operation(def, 'patch', 'patch'),
    parameters: ['dryRun', 'fieldManager', 'fieldValidation'].map((p) => queryParam(p)),
    requestBody: {
      required: true,
      content: {
        'application/json-patch+json': { schema: patch },
        'application/merge-patch+json': { schema: patch },
      },
    },
  };
}

function writeParams() {
  return ['dryRun', 'fieldManager', 'fieldValidation'].map((p) => queryParam(p));
}

function pathsFor(def: KindDefinition): Record<string, unknown> {
  const namespaced = def.scope === 'Namespaced';
  const base = namespaced ? `/${GV_PATH}/namespaces/{namespace}/${def.plural}` : `/${GV_PATH}/${def.plural}`;
  const pathParams = (withName: boolean) => [
    ...(namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }] : []),
    ...(withName ? [{ name: 'name', in: 'path', required: true, schema: { type: 'string' } }] : []),
  ];
  const listParams = ['labelSelector', 'fieldSelector', 'resourceVersion'].map((p) => queryParam(p));
  const paths: Record<string, unknown> = {
    [base]: {
      parameters: pathParams(false),
      get: { ...operation(def, 'list', 'list'), parameters: [...listParams, queryParam('watch', 'boolean')] },
      post: { ...operation(def, 'post', 'create', def.kind), parameters: writeParams() },
    },
    [`${base}/{name}`]: {
      parameters: pathParams(true),
      get: operation(def, 'get', 'read'),
      put: { ...operation(def, 'put', 'replace', def.kind), parameters: writeParams() },
      patch: patchOperation(def),
      delete: operation(def, 'delete', 'delete'),
    },
    [`${base}/{name}/status`]: {
      parameters: pathParams(true),
      get: operation(def, 'get', 'read'),
      put: { ...operation(def, 'put', 'replace', def.kind), parameters: writeParams() },
      patch: patchOperation(def),
    },
  };
  if (namespaced) {
    paths[`/${GV_PATH}/${def.plural}`] = {
      get: { ...operation(def, 'list', 'list'), parameters: listParams },
    };
  }
  return paths;
}

function schemasFor(def: KindDefinition): Record<string, Schema> {
  const gvk = [{ group: GROUP, version: VERSION, kind: def.kind }];
  const listGvk = [{ group: GROUP, version: VERSION, kind: `${def.kind}List` }];
  return {
    [definitionName(def.kind)]: {
      ...toOpenApiSchema(def.schema),
      description: def.description,
      'x-kubernetes-group-version-kind': gvk,
    },
    [definitionName(`${def.kind}List`)]: {
      type: 'object',
      description: `A list of ${def.kind} objects.`,
      required: ['items'],
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { type: 'object', properties: { resourceVersion: { type: 'string' } } },
        items: { type: 'array', items: ref(def.kind) },
      },
      'x-kubernetes-group-version-kind': listGvk,
    },
  };
}

export function groupVersionDocument(kinds: readonly KindDefinition[] = KINDS) {
  return {
    openapi: '3.0.0',
    info: { title: 'sandbay', version: API_VERSION },
    paths: Object.assign({}, ...kinds.map(pathsFor)) as Record<string, unknown>,
    components: { schemas: Object.assign({}, ...kinds.map(schemasFor)) as Record<string, Schema> },
  };
}

export function openApiRoutes(app: FastifyInstance): void {
  const document = JSON.stringify(groupVersionDocument());
  // The hash lets clients cache the document; it changes only when the schemas do.
  const hash = createHash('sha512').update(document).digest('hex').slice(0, 64).toUpperCase();
  app.get('/openapi/v3', async () => ({
    paths: { [GV_PATH]: { serverRelativeURL: `/openapi/v3/${GV_PATH}?hash=${hash}` } },
  }));
  app.get(`/openapi/v3/${GV_PATH}`, async (_request, reply) =>
    reply.header('content-type', 'application/json').send(document),
  );
  // OpenAPI v2 is served only as protobuf by the API server; clients use v3 when v2 is absent.
  app.get('/openapi/v2', async (_request, reply) =>
    reply.code(404).send(failure(404, 'OpenAPI v2 is not served; use /openapi/v3')),
  );
}
