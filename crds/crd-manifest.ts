// Turns a kind's TypeBox schema into a CustomResourceDefinition (apiextensions.k8s.io/v1) with a
// structural OpenAPI v3 schema, so the CRDs in crds/*.yaml come from the same schemas that validate
// the API and the store.
import { GROUP, VERSION, type KindDefinition } from './meta.ts';

type JsonSchema = Record<string, unknown>;

/**
 * Rewrites a JSON Schema fragment into Kubernetes' structural subset: every node typed, no
 * `additionalProperties: false` (structural schemas prune unknown fields instead), `const` and
 * unions of constants as `enum`, records as `additionalProperties`, free-form values preserved.
 */
export function toStructural(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of [
    'description',
    'format',
    'pattern',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'default',
    // Rules across fields (CEL) that a real API server enforces; the store runs the kind's `rules`.
    'x-kubernetes-validations',
  ]) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (schema.const !== undefined) return { type: typeof schema.const, enum: [schema.const], ...out };
  if (Array.isArray(schema.enum)) return { type: typeof schema.enum[0], enum: schema.enum, ...out };
  if (Array.isArray(schema.anyOf)) {
    const consts = (schema.anyOf as JsonSchema[]).map((s) => s.const);
    if (consts.every((c) => c !== undefined)) return { type: typeof consts[0], enum: consts, ...out };
    return { 'x-kubernetes-preserve-unknown-fields': true, ...out };
  }
  switch (schema.type) {
    case 'object': {
      const props = schema.properties as Record<string, JsonSchema> | undefined;
      const patterns = schema.patternProperties as Record<string, JsonSchema> | undefined;
      if (props) {
        out.type = 'object';
        out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, toStructural(v)]));
        if (Array.isArray(schema.required) && schema.required.length > 0) out.required = schema.required;
        return out;
      }
      const values = patterns ? Object.values(patterns)[0] : undefined;
      if (values && Object.keys(values).length > 0) {
        return { type: 'object', additionalProperties: toStructural(values), ...out };
      }
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, ...out };
    }
    case 'array':
      return { type: 'array', items: toStructural((schema.items as JsonSchema) ?? {}), ...out };
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: schema.type, ...out };
    default:
      return { 'x-kubernetes-preserve-unknown-fields': true, ...out };
  }
}

/** The CRD object of one kind. */
export function crdManifest(def: KindDefinition): JsonSchema {
  const props = (def.schema as unknown as { properties: Record<string, JsonSchema> }).properties;
  const openAPIV3Schema = {
    type: 'object',
    description: def.description,
    properties: {
      apiVersion: { type: 'string', description: props.apiVersion?.description },
      kind: { type: 'string', description: props.kind?.description },
      // Kubernetes owns metadata's schema; CRDs may not restate it (a description is allowed).
      metadata: { type: 'object', description: props.metadata?.description },
      spec: toStructural(props.spec as JsonSchema),
      status: toStructural(props.status as JsonSchema),
    },
    required: ['spec'],
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${def.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: def.scope,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural: def.plural,
        singular: def.singular,
        shortNames: def.shortNames,
        categories: ['sandbay'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...def.printerColumns,
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}

/** The file name of a kind's CRD in crds/. */
export function crdFileName(def: KindDefinition): string {
  return `${def.singular}.yaml`;
}
