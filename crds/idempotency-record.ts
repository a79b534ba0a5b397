import Type, { type Static } from 'typebox';
import { DateTime, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

/**
 * Namespace: the account. Name: `idem-` + SHA-256 of (environment, key), so the key itself never
 * appears in a name. One record per Idempotency-Key, as the spec's rules 1–6 describe.
 */
export const IdempotencyRecordSpec = Type.Object(
  {
    /** API: the key, at most 255 bytes. */
    key: Type.String({ maxLength: 255 }),
    method: Type.String(),
    path: Type.String(),
    /** API: SHA-256 of the exact request body. */
    bodySha256: Type.String(),
    /** API: reservation of the reservation key used, if any. */
    reservation: Type.Optional(Type.String()),
    /** API: server boot id; a restart releases in-flight records of earlier boots. */
    bootId: Type.String(),
    /** API: attempt deadline (10 min create, 25 min snapshot capture or restore). */
    deadline: DateTime,
    /** API: replay window end (24 h after the first request). */
    expiresAt: DateTime,
  },
  { additionalProperties: false },
);

export const IdempotencyRecordStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum(['in-flight', 'completed'])),
  statusCode: Type.Optional(Type.Integer()),
  /** API: the original response body (JSON text) and content type. */
  body: Type.Optional(Type.String()),
  contentType: Type.Optional(Type.String()),
});

export const IdempotencyRecordSchema = resourceSchema(
  'IdempotencyRecord',
  IdempotencyRecordSpec,
  IdempotencyRecordStatus,
);
export type IdempotencyRecord = Static<typeof IdempotencyRecordSchema>;

export const IdempotencyRecordKind: KindDefinition = {
  kind: 'IdempotencyRecord',
  plural: 'idempotencyrecords',
  singular: 'idempotencyrecord',
  shortNames: ['idem'],
  scope: 'Namespaced',
  schema: IdempotencyRecordSchema,
  description: 'The first response to an Idempotency-Key, replayed to retries.',
  printerColumns: [
    { name: 'Path', type: 'string', jsonPath: '.spec.path' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Status', type: 'integer', jsonPath: '.status.statusCode' },
  ],
};
