// Schema validation for every store write: the kind schemas of crds/ are compiled once, defaults
// are applied first (as the Kubernetes API server does for CRD defaults), and a failure names each
// offending field so that callers can show it as is (`spec.cpu: must be >= 2`).
import { Compile, type Validator } from 'typebox/compile';
import Type, { type TSchema } from 'typebox';
import Value from 'typebox/value';
import { STORE_KINDS, findKind, type AnyResource, type KindDefinition } from '../crds/index.ts';
import { isLabelKey, isLabelValue } from './label-selector.ts';
import { StoreError } from './store.ts';

export interface FieldError {
  path: string;
  message: string;
}

const validators = new Map<string, Validator>(STORE_KINDS.map((k) => [k.kind, Compile(k.schema)]));

/**
 * Each kind's schema defaults, applied as `Value.Default` applies them. `Value.Default` walks the
 * whole schema against the object on every write (~12 µs for a Sandbox here; 4% of the main
 * thread's time in a burst of creates, measured with perf), so where every default of a kind sits
 * under plain object properties (all of sandbay's: booleans in `spec`) the defaults are found once
 * and set straight; any other kind of schema keeps `Value.Default` (a test checks both agree).
 */
const defaulters = new Map(STORE_KINDS.map((k) => [k.kind, defaulterOf(k.schema)]));

type Defaulter = (obj: unknown) => void;

/** Undefined when the schema declares no default at all (VMs, written twice per create). */
export function defaulterOf(schema: TSchema): Defaulter | undefined {
  if (!declaresDefault(schema)) return undefined;
  const defaults = defaultsUnderProperties(schema, [], []);
  if (!defaults) return (obj) => Value.Default(schema, obj);
  return (obj) => {
    for (const { path, value } of defaults) {
      let parent: unknown = obj;
      for (let i = 0; i < path.length - 1 && isObject(parent); i++) parent = parent[path[i]!];
      if (!isObject(parent)) continue;
      const leaf = path[path.length - 1]!;
      if (parent[leaf] === undefined)
        parent[leaf] = typeof value === 'function' ? value() : structuredClone(value);
    }
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

interface DefaultAt {
  path: string[];
  value: unknown;
}

/** The defaults and their paths when each is reached through object properties alone; else undefined. */
function defaultsUnderProperties(schema: TSchema, path: string[], out: DefaultAt[]): DefaultAt[] | undefined {
  if (!declaresDefault(schema)) return out;
  const node = schema as Record<string, unknown>;
  if (Type.IsObject(schema) && !('default' in node)) {
    if (declaresDefault(node.additionalProperties)) return undefined;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!defaultsUnderProperties(property, [...path, key], out)) return undefined;
    }
    return out;
  }
  // A default of its own, with none below it: set when the value is missing.
  const below = Object.entries(node).some(([key, v]) => key !== 'default' && declaresDefault(v));
  if (!('default' in node) || below || path.length === 0) return undefined;
  out.push({ path, value: node.default });
  return out;
}

function declaresDefault(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  return 'default' in schema || Object.values(schema).some(declaresDefault);
}

/** DNS-1123 label, what Kubernetes requires of a namespace. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The kind by any of its names (kind, plural, singular, short name); BadRequest when unknown. */
export function resolveKind(name: string): KindDefinition {
  const def = typeof name === 'string' ? findKind(name) : undefined;
  if (!def) throw new StoreError('BadRequest', `unknown kind "${String(name)}"`);
  return def;
}

/**
 * Applies the schema defaults to `obj` in place, then checks it against the kind schema and the
 * scope rules. Throws StoreError `Invalid` listing every offending field.
 */
export function validateResource(def: KindDefinition, obj: AnyResource): void {
  defaulters.get(def.kind)?.(obj);
  const validator = validators.get(def.kind) as Validator;
  const errors = validator.Check(obj)
    ? (def.rules?.(obj) ?? [])
    : [...validator.Errors(obj)].flatMap(toFieldErrors);
  errors.push(...scopeErrors(def, obj), ...labelErrors(obj));
  if (errors.length === 0) return;
  const unique = dedupe(errors);
  const name = describe(obj);
  throw new StoreError(
    'Invalid',
    `${def.kind}${name} is invalid: ${unique.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')}`,
    unique,
  );
}

function describe(obj: AnyResource): string {
  const meta = (obj as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
  if (typeof meta?.name !== 'string') return '';
  return typeof meta.namespace === 'string' ? ` "${meta.namespace}/${meta.name}"` : ` "${meta.name}"`;
}

function scopeErrors(def: KindDefinition, obj: AnyResource): FieldError[] {
  const ns = (obj as { metadata?: { namespace?: unknown } }).metadata?.namespace;
  if (def.scope === 'Cluster') return [];
  if (ns === undefined || ns === '') {
    return [{ path: 'metadata.namespace', message: `required: ${def.kind} is namespaced` }];
  }
  if (typeof ns === 'string' && !NAMESPACE.test(ns)) {
    return [{ path: 'metadata.namespace', message: `must be a DNS-1123 label (${NAMESPACE.source})` }];
  }
  return [];
}

function labelErrors(obj: AnyResource): FieldError[] {
  const labels = (obj as { metadata?: { labels?: unknown } }).metadata?.labels;
  if (typeof labels !== 'object' || labels === null) return [];
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels)) {
    if (!isLabelKey(key)) errors.push({ path: `metadata.labels.${key}`, message: 'invalid label key' });
    else if (typeof value === 'string' && !isLabelValue(value)) {
      errors.push({ path: `metadata.labels.${key}`, message: 'invalid label value' });
    }
  }
  return errors;
}

/** `/spec/items/0/name` → `spec.items[0].name`. */
function fieldPath(pointer: string, child?: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (child !== undefined) segments.push(child);
  let path = '';
  for (const s of segments) path += /^\d+$/.test(s) ? `[${s}]` : path ? `.${s}` : s;
  return path;
}

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function toFieldErrors(e: SchemaError): FieldError[] {
  const list = (key: string): string[] => (Array.isArray(e.params[key]) ? (e.params[key] as string[]) : []);
  switch (e.keyword) {
    case 'required':
      return list('requiredProperties').map((p) => ({
        path: fieldPath(e.instancePath, p),
        message: 'required',
      }));
    case 'additionalProperties':
      return list('additionalProperties').map((p) => ({
        path: fieldPath(e.instancePath, p),
        message: 'unknown field',
      }));
    case 'boolean':
      // `additionalProperties: false` also reports each extra key as "schema is false".
      return [{ path: fieldPath(e.instancePath), message: 'unknown field' }];
    case 'const':
      return [
        { path: fieldPath(e.instancePath), message: `must be ${JSON.stringify(e.params.allowedValue)}` },
      ];
    case 'enum':
      return [
        { path: fieldPath(e.instancePath), message: `must be one of: ${list('allowedValues').join(', ')}` },
      ];
    default:
      return [{ path: fieldPath(e.instancePath), message: e.message }];
  }
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const id = `${e.path}\0${e.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
