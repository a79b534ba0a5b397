import Type, { type Static } from 'typebox';
import { doc, DateTime, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

export const API_KEY_KINDS = ['account', 'reservation', 'admin', 'sandbox'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/**
 * Cluster-scoped. Name: `k-` + the first 40 hex digits of the key's SHA-256 (a lookup index);
 * the full hash in spec is what is compared, in constant time. The plaintext is never stored in
 * clear: an account key may keep a sealed copy (see api/dashboard/key-seal.ts).
 */
export const ApiKeySpec = Type.Object(
  {
    kind: doc(
      'API: `account` (acts for an account), `reservation` (for one reservation), `admin` (admin listener only), `sandbox` (one sandbox of an evaluation attempt, for its agent).',
      Type.Enum([...API_KEY_KINDS]),
    ),
    account: doc('API: the account it acts for (absent for admin keys).', Type.Optional(Type.String())),
    reservation: doc(
      'reconciler: `namespace/name` of the reservation (reservation keys).',
      Type.Optional(Type.String()),
    ),
    sandbox: doc(
      "reconciler: `sandbox` keys (an evaluation run's agent key): the only sandbox it acts on, `namespace/name`.",
      Type.Optional(Type.String()),
    ),
    sha256: doc(
      'API: SHA-256 of the plaintext key, hex; compared in constant time.',
      Type.String({ pattern: '^[0-9a-f]{64}$' }),
    ),
    prefix: doc(
      'first characters of the plaintext, so people can tell keys apart.',
      Type.String({ maxLength: 16 }),
    ),
    revoked: doc(
      'reconciler: revoked keys answer 401 (reservation keys at expiry).',
      Type.Boolean({ default: false }),
    ),
    expiresAt: doc('API: when the key stops working; absent: never.', Type.Optional(DateTime)),
    sealed: doc(
      'API: account keys only: the plaintext sealed (AES-256-GCM) with the server-held dashboard secret, so account settings can show it again; authentication never reads it.',
      Type.Optional(Type.String({ maxLength: 256 })),
    ),
  },
  { additionalProperties: false },
);
export type ApiKeySpec = Static<typeof ApiKeySpec>;

export const ApiKeyStatus = Type.Object({
  ...StatusBase,
  lastUsed: doc('API: last time the key authenticated a request.', Type.Optional(DateTime)),
});

export const ApiKeySchema = resourceSchema('ApiKey', ApiKeySpec, ApiKeyStatus);
export type ApiKey = Static<typeof ApiKeySchema>;

export const ApiKeyKind: KindDefinition = {
  kind: 'ApiKey',
  plural: 'apikeys',
  singular: 'apikey',
  shortNames: ['key'],
  scope: 'Cluster',
  schema: ApiKeySchema,
  description: 'An API key, stored only as its SHA-256 hash.',
  printerColumns: [
    { name: 'Kind', type: 'string', jsonPath: '.spec.kind' },
    { name: 'Account', type: 'string', jsonPath: '.spec.account' },
    { name: 'Prefix', type: 'string', jsonPath: '.spec.prefix' },
    { name: 'Revoked', type: 'boolean', jsonPath: '.spec.revoked' },
  ],
};
