// Kinds by any of their names, and manifests read from files, directories or stdin.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { API_VERSION, findKind, type AnyResource, type KindDefinition } from '../../../crds/index.ts';

/** The kind named `mini`, `minis`, `Mini` or a short name; an error naming it otherwise. */
export function kindNamed(name: string): KindDefinition {
  const def = findKind(name.replace(/\.sandbay\.io$/, ''));
  if (!def) throw new Error(`the server doesn't have a resource type "${name}"`);
  return def;
}

/** `mini/foo`: how the CLI names an object in its messages. */
export function objectRef(def: KindDefinition, obj: { metadata: { name: string } }): string {
  return `${def.singular}/${obj.metadata.name}`;
}

export interface Manifest {
  def: KindDefinition;
  obj: AnyResource;
  source: string;
}

/** Every object in the YAML/JSON documents of a file, of a directory's files, or of stdin (`-`). */
export function readManifests(path: string, defaultNamespace?: string): Manifest[] {
  const files =
    path === '-'
      ? [{ source: 'stdin', text: readFileSync(0, 'utf8') }]
      : filesOf(path).map((f) => ({ source: f, text: readFileSync(f, 'utf8') }));
  const manifests = files.flatMap(({ source, text }) => parseDocuments(source, text, defaultNamespace));
  if (manifests.length === 0) throw new Error(`no objects in ${path === '-' ? 'stdin' : path}`);
  return manifests;
}

function filesOf(path: string): string[] {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new Error(`the path "${path}" does not exist`);
  }
  if (!isDir) return [path];
  return readdirSync(path)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => join(path, f));
}

function parseDocuments(source: string, text: string, defaultNamespace?: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    const [error] = doc.errors;
    if (error) throw new Error(`${source}: ${error.message.split('\n')[0]}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue; // an empty document between `---`
    const items = isList(value) ? value.items : [value];
    for (const item of items) manifests.push(toManifest(source, item, defaultNamespace));
  }
  return manifests;
}

function isList(value: unknown): value is { items: unknown[] } {
  const v = value as { kind?: unknown; items?: unknown };
  return typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items);
}

function toManifest(source: string, value: unknown, defaultNamespace?: string): Manifest {
  const obj = value as AnyResource;
  if (typeof obj !== 'object' || obj === null || typeof obj.kind !== 'string') {
    throw new Error(`${source}: an object needs "kind"`);
  }
  if (obj.apiVersion !== API_VERSION) {
    throw new Error(
      `${source}: ${obj.kind} has apiVersion "${String(obj.apiVersion)}", expected ${API_VERSION}`,
    );
  }
  const def = kindNamed(obj.kind);
  const name = obj.metadata?.name;
  if (typeof name !== 'string' || name === '')
    throw new Error(`${source}: a ${obj.kind} needs metadata.name`);
  if (def.scope === 'Namespaced') {
    const namespace = obj.metadata.namespace ?? defaultNamespace;
    if (!namespace)
      throw new Error(`${source}: ${def.singular}/${name} needs a namespace (metadata.namespace or -n)`);
    obj.metadata.namespace = namespace;
  }
  return { def, obj, source };
}
