// Schema validation for every store write: the kind schemas of crds/ are compiled once, defaults
// are applied first (as the Kubernetes API server does for CRD defaults), and a failure names each
// offending field so that callers can show it as is (`spec.cpu: must be >= 2`).
import { Compile, type Validator } from 'typebox/compile';
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
 * Kinds whose schema declares a default somewhere. `Value.Default` walks the whole schema against
 * the object (~20 µs for a VM here), so kinds without any default skip it: VMs, written twice per
 * sandbox create, are among them.
 */
const defaulted = new Set(STORE_KINDS.filter((k) => declaresDefault(k.schema)).map((k) => k.kind));

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
  if (defaulted.has(def.kind)) Value.Default(def.schema, obj);
  const validator = validators.get(def.kind) as Validator;
  const errors = validator.Check(obj) ? [] : [...validator.Errors(obj)].flatMap(toFieldErrors);
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
