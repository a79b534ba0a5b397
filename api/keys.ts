// API keys: sandbay hands out a random plaintext once and stores only its SHA-256 hash.
// The ApiKey resource's name is derived from the hash so that a key is found by one indexed get,
// and the full hash in its spec is then compared in constant time.
import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import type { ApiKey, ApiKeyKind } from '../crds/index.ts';
import { API_VERSION } from '../crds/index.ts';

export const KEY_PREFIX = 'sbk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 32;
/** How many leading characters of the plaintext the ApiKey keeps so people can tell keys apart. */
const SHOWN_PREFIX_CHARS = 12;

/** Whether two secrets (keys, signatures, tokens) are equal, in a time that does not depend on where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Label every ApiKey carries, so keys of one kind are listed with a label selector. */
export const KEY_KIND_LABEL = 'sandbay.io/key-kind';

export interface GeneratedKey {
  /** Shown once to whoever asked for the key; never stored, never logged. */
  plaintext: string;
  sha256: string;
  /** The ApiKey resource name: `k-` + the first 40 hex digits of the hash. */
  name: string;
  prefix: string;
}

/** A fresh key: `sbk_` + 32 base62 characters (about 190 bits), drawn without modulo bias. */
export function generateKey(): GeneratedKey {
  let plaintext = KEY_PREFIX;
  for (let i = 0; i < RANDOM_CHARS; i++) plaintext += BASE62[randomInt(BASE62.length)];
  return keyFromPlaintext(plaintext);
}

/** The shape of every key sandbay generates. */
export const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS}}$`);

/** The hash, resource name and shown prefix of a plaintext key. */
export function keyFromPlaintext(plaintext: string): GeneratedKey {
  const sha256 = sha256Hex(plaintext);
  return { plaintext, sha256, name: apiKeyName(sha256), prefix: plaintext.slice(0, SHOWN_PREFIX_CHARS) };
}

/** One-shot `crypto.hash`: no Hash object per call (every authenticated request hashes its key). */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

export function apiKeyName(sha256: string): string {
  return `k-${sha256.slice(0, 40)}`;
}

/** The ApiKey resource recording a generated key's hash (never its plaintext). */
export function apiKeyResource(
  key: GeneratedKey,
  spec: { kind: ApiKeyKind; account?: string; reservation?: string; expiresAt?: string },
): ApiKey {
  return {
    apiVersion: API_VERSION,
    kind: 'ApiKey',
    metadata: { name: key.name, labels: { [KEY_KIND_LABEL]: spec.kind } },
    // Only defined fields: the schema rejects an optional field that is present but undefined.
    spec: {
      kind: spec.kind,
      ...(spec.account !== undefined && { account: spec.account }),
      ...(spec.reservation !== undefined && { reservation: spec.reservation }),
      ...(spec.expiresAt !== undefined && { expiresAt: spec.expiresAt }),
      sha256: key.sha256,
      prefix: key.prefix,
      revoked: false,
    },
  };
}
