// Values for the fuzzer, from a route's own JSON Schema (the OpenAPI document's, generated from the
// TypeBox schemas in crds/ and api/schemas/): values the schema accepts, so that a request gets
// past validation into the handler, and the same values with one part broken, so that the
// validator and whatever reads past it see what no client should send. A route added with a schema
// is fuzzed this way with no table entry of its own.
import fc from 'fast-check';

/** The subset of JSON Schema (2020-12, as OpenAPI 3.1 carries it) the routes use. */
export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
}

/** Values no client should send, whatever the field: the fuzzer puts them anywhere. */
export const NASTY_VALUES: readonly unknown[] = [
  '',
  ' ',
  '\u0000',
  '\ud800', // a lone surrogate: valid in a JS string, not in UTF-8
  '../../../../etc/passwd',
  '/etc/shadow',
  '%2e%2e%2f',
  '$(id)',
  "'; rm -rf / #",
  '\r\nX-Injected: 1',
  'x'.repeat(70_000),
  '𝕏'.repeat(300),
  '__proto__',
  'constructor',
  -1,
  0,
  -0,
  0.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 63),
  1e308,
  true,
  false,
  null,
  [],
  {},
  [[[[[[[[[[[[]]]]]]]]]]]],
  { a: { b: { c: { d: {} } } } },
];

/** Anything at all: the nasty values, and arbitrary JSON. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...NASTY_VALUES),
  fc.jsonValue({ maxDepth: 3 }),
);

/** The boundaries of a number field, and one step past each. */
function numberEdges(s: JsonSchema): number[] {
  const edges: number[] = [];
  for (const b of [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum])
    if (b !== undefined) edges.push(b, b - 1, b + 1, b + 0.5);
  return edges;
}

/** Values the schema accepts (as far as the generator can tell; a miss is only a 400 more). */
export function validValue(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 1 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.length) return fc.oneof(...branches.map((b) => validValue(b, depth + 1)));
  if (schema.allOf?.length) return validValue(schema.allOf[0], depth + 1);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type }, depth + 1)));
  switch (types[0] ?? (schema.properties ? 'object' : undefined)) {
    case 'string':
      return stringValue(schema);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum ?? -1001) + 1;
      const max = schema.maximum ?? (schema.exclusiveMaximum ?? 100_001) - 1;
      const whole = fc.integer({ min: Math.ceil(min), max: Math.max(Math.ceil(min), Math.floor(max)) });
      if (types[0] === 'integer') return whole;
      return fc.oneof(whole, fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validValue(schema.items, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)),
      });
    case 'object': {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(props)) model[name] = validValue(prop, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringValue(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = Math.min(s.maxLength ?? 40, Math.max(minLength, 40));
  if (s.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (s.format === 'uuid') return fc.uuid();
  if (s.pattern) {
    const re = new RegExp(s.pattern, 'u');
    return fc
      .stringMatching(re)
      .filter((v) => v.length >= minLength && v.length <= (s.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme' });
}

/** Every path into a JSON value (objects and arrays), the value itself first. */
function pathsOf(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(at);
  if (at.length > 5) return out;
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  return out;
}

function setAt(value: unknown, path: (string | number)[], replace: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[head as number] = setAt(copy[head as number], rest, replace);
    return copy;
  }
  const obj = { ...(value as Record<string, unknown>) };
  const next = setAt(obj[head!], rest, replace);
  if (next === DROP) delete obj[head!];
  else obj[head!] = next;
  return obj;
}

const DROP = Symbol('drop');

/**
 * A value of `schema` with one part broken: a field replaced by anything (a wrong type, a number
 * just past its bounds, a nasty string), a field dropped, a field added.
 */
export function brokenValue(schema: JsonSchema | undefined, valid: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid);
  const edges = collectEdges(schema);
  const replacement = edges.length ? fc.oneof(anyValue, fc.constantFrom(...edges)) : anyValue;
  const droppable = paths.filter((p) => p.length > 0 && typeof p[p.length - 1] === 'string');
  return fc.oneof(
    fc
      .record({ path: fc.constantFrom(...paths), value: replacement })
      .map(({ path, value }) => setAt(valid, path, () => value)),
    ...(droppable.length
      ? [fc.constantFrom(...droppable).map((path) => setAt(valid, path, () => DROP))]
      : []),
    fc
      .record({ path: fc.constantFrom(...paths), name: fc.string({ maxLength: 12 }), value: anyValue })
      .map(({ path, name, value }) =>
        setAt(valid, path, (old) =>
          old && typeof old === 'object' && !Array.isArray(old) ? { ...old, [name]: value } : old,
        ),
      ),
  );
}

/** The number edges of every number field in the schema. */
function collectEdges(schema: JsonSchema | undefined, out: number[] = [], depth = 0): number[] {
  if (!schema || depth > 6) return out;
  out.push(...numberEdges(schema));
  for (const s of [
    ...Object.values(schema.properties ?? {}),
    ...(schema.items ? [schema.items] : []),
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
  ])
    collectEdges(s, out, depth + 1);
  return out;
}
