import Type, { type Static } from 'typebox';
import { StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

export const SNAPSHOT_PHASES = ['pending', 'capturing', 'ready', 'failed'] as const;

/** Where a large byte payload lives in the blob store; the resource holds only this. */
export const Artifact = Type.Object({
  location: Type.String(),
  bytes: Type.Integer({ minimum: 0 }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});
export type Artifact = Static<typeof Artifact>;

/** Namespace: the account. Name: the snapshot version. */
export const SnapshotSpec = Type.Object(
  {
    /** user: the sandbox id whose disk delta is captured. */
    sourceSandbox: Type.String({ minLength: 1 }),
    /** user: a label for people. */
    name: Type.String({ minLength: 1, maxLength: 253 }),
  },
  { additionalProperties: false },
);
export type SnapshotSpec = Static<typeof SnapshotSpec>;

export const SnapshotStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum([...SNAPSHOT_PHASES])),
  version: Type.Optional(Type.String()),
  /** reconciler: the base image the delta applies on, and its disk size (kept across restores). */
  baseImage: Type.Optional(Type.String()),
  diskGiB: Type.Optional(Type.Integer()),
  /** reconciler: model and reservation the source ran in. */
  macModel: Type.Optional(Type.String()),
  artifact: Type.Optional(Artifact),
  message: Type.Optional(Type.String()),
});
export type SnapshotStatus = Static<typeof SnapshotStatus>;

export const SnapshotSchema = resourceSchema('Snapshot', SnapshotSpec, SnapshotStatus);
export type Snapshot = Static<typeof SnapshotSchema>;

export const SnapshotKind: KindDefinition = {
  kind: 'Snapshot',
  plural: 'snapshots',
  singular: 'snapshot',
  shortNames: ['snap'],
  scope: 'Namespaced',
  schema: SnapshotSchema,
  description: 'A portable disk delta of a sandbox, recorded against its base image.',
  printerColumns: [
    { name: 'Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Source', type: 'string', jsonPath: '.spec.sourceSandbox' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Base', type: 'string', jsonPath: '.status.baseImage' },
    { name: 'Bytes', type: 'integer', jsonPath: '.status.artifact.bytes', priority: 1 },
  ],
};
