// JSON Patch (RFC 6902), for `kubectl patch --type json`. Applied to a copy; the input is untouched.
import { isDeepStrictEqual } from 'node:util';
import { StoreError } from '../../store/store.ts';

type Json = unknown;
type Container = Record<string, Json> | Json[];

interface Operation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: Json;
  from?: string;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

export function applyJsonPatch(doc: Json, patch: unknown): Json {
  if (!Array.isArray(patch)) throw bad('a JSON patch must be an array of operations');
  let result = structuredClone(doc);
  for (const raw of patch) {
    const op = raw as Operation;
    if (typeof op !== 'object' || op === null || !OPS.has(op.op) || typeof op.path !== 'string') {
      throw bad(`invalid JSON patch operation: ${JSON.stringify(raw)}`);
    }
    result = applyOne(result, op);
  }
  return result;
}

function applyOne(doc: Json, op: Operation): Json {
  switch (op.op) {
    case 'add':
      return add(doc, op.path, requireValue(op));
    case 'remove':
      return remove(doc, op.path);
    case 'replace':
      return add(remove(doc, op.path), op.path, requireValue(op));
    case 'move': {
      const from = requireFrom(op);
      const value = get(doc, from);
      return add(remove(doc, from), op.path, value);
    }
    case 'copy':
      return add(doc, op.path, structuredClone(get(doc, requireFrom(op))));
    case 'test':
      if (!isDeepStrictEqual(get(doc, op.path), op.value)) throw bad(`test failed at ${op.path}`);
      return doc;
  }
}

function requireValue(op: Operation): Json {
  if (!('value' in op)) throw bad(`"${op.op}" at ${op.path} needs a value`);
  return structuredClone(op.value);
}

function requireFrom(op: Operation): string {
  if (typeof op.from !== 'string') throw bad(`"${op.op}" at ${op.path} needs "from"`);
  return op.from;
}

function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw bad(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** The container holding the pointer's last token, and that token. */
function parentOf(doc: Json, pointer: string): { parent: Container; key: string } {
  const path = tokens(pointer);
  const key = path.pop();
  if (key === undefined) throw bad('the whole document cannot be patched');
  const parent = path.reduce<Json>((node, t) => child(node, t, pointer), doc);
  if (typeof parent !== 'object' || parent === null) throw bad(`no such path: ${pointer}`);
  return { parent: parent as Container, key };
}

function child(node: Json, token: string, pointer: string): Json {
  if (Array.isArray(node)) return node[arrayIndex(node, token, pointer, false)];
  if (typeof node === 'object' && node !== null && Object.hasOwn(node, token)) {
    return (node as Record<string, Json>)[token];
  }
  throw bad(`no such path: ${pointer}`);
}

function arrayIndex(array: Json[], token: string, pointer: string, forInsert: boolean): number {
  if (forInsert && token === '-') return array.length;
  const index = /^(0|[1-9]\d*)$/.test(token) ? Number(token) : NaN;
  if (!(index < array.length + (forInsert ? 1 : 0))) throw bad(`no such path: ${pointer}`);
  return index;
}

function get(doc: Json, pointer: string): Json {
  return tokens(pointer).reduce<Json>((node, t) => child(node, t, pointer), doc);
}

function add(doc: Json, pointer: string, value: Json): Json {
  const { parent, key } = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc: Json, pointer: string): Json {
  const { parent, key } = parentOf(doc, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, pointer, false), 1);
  else if (Object.hasOwn(parent, key)) delete parent[key];
  else throw bad(`no such path: ${pointer}`);
  return doc;
}

function bad(message: string): StoreError {
  return new StoreError('BadRequest', message);
}
