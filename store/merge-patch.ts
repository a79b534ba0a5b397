// JSON merge patch, RFC 7386: objects merge key by key, `null` removes a key, anything else
// (arrays included) replaces the target value wholesale.

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Returns the patched document, sharing nothing with either argument; neither is modified. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  return mergeInto(structuredClone(target), patch);
}

function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      // defineProperty, not assignment: a `__proto__` key from parsed JSON must stay a plain key
      // (and then fail schema validation) instead of replacing the result's prototype.
      Object.defineProperty(result, key, {
        value: mergeInto(Object.hasOwn(result, key) ? result[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}
