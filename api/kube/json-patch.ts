// JSON Patch (RFC 6902), for `kubectl patch --type json`, through `fast-json-patch`. Applied to a
// copy; the input is untouched. Two checks the library leaves to its caller are made first:
// pointers through `__proto__`, `constructor` or `prototype` are refused (no prototype reached
// by a client's patch, whatever the library's own guard covers), and so is a `move` into its own
// child (RFC 6902 4.4: `from` must not be a proper prefix of `path`).
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { StoreError } from '../../store/store.ts';

const { applyPatch, JsonPatchError } = fastJsonPatch;

const FORBIDDEN_TOKENS = new Set(['__proto__', 'constructor', 'prototype']);

export function applyJsonPatch(doc: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw bad('a JSON patch must be an array of operations');
  for (const op of patch as unknown[]) checkOperation(op);
  try {
    // validate: every operation is checked against the document before it is applied;
    // mutate false: the result is a copy; banPrototypeModifications: the library's own guard too.
    return applyPatch(structuredClone(doc), patch as Operation[], true, false, true).newDocument;
  } catch (err) {
    if (err instanceof JsonPatchError) throw bad(describe(err));
    throw err;
  }
}

function checkOperation(raw: unknown): void {
  const op = raw as { op?: unknown; path?: unknown; from?: unknown };
  if (typeof op !== 'object' || op === null || typeof op.path !== 'string') {
    throw bad(`invalid JSON patch operation: ${JSON.stringify(raw)}`);
  }
  for (const pointer of [op.path, op.from]) {
    if (typeof pointer !== 'string') continue;
    const token = pointer
      .split('/')
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'))
      .find((t) => FORBIDDEN_TOKENS.has(t));
    if (token !== undefined) throw bad(`JSON patch path ${pointer} names "${token}", which is refused`);
  }
  if (op.op === 'move' && typeof op.from === 'string' && op.path.startsWith(`${op.from}/`)) {
    throw bad(`cannot move ${op.from} into its own child ${op.path}`);
  }
}

/** The library's error as a sentence a client can act on. */
function describe(err: InstanceType<typeof JsonPatchError>): string {
  const op = err.operation as Partial<Operation> | undefined;
  const where = op?.path === undefined ? '' : ` at "${op.path}"`;
  switch (err.name) {
    case 'TEST_OPERATION_FAILED':
      return `test failed${where}`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
    case 'OPERATION_FROM_UNRESOLVABLE':
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
      return `no such path${where}${op && 'from' in op ? ` (from "${op.from}")` : ''}`;
    case 'OPERATION_OP_INVALID':
      return `invalid JSON patch operation: ${JSON.stringify(op)}`;
    default:
      return `invalid JSON patch${where}: ${err.message.split('\n')[0]}`;
  }
}

function bad(message: string): StoreError {
  return new StoreError('BadRequest', message);
}
