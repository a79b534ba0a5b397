// Wire shapes of snapshots: created with a name from a sandbox, identified by their version.
import Type from 'typebox';
import { NAME_PATTERN } from '../../crds/meta.ts';
import { SNAPSHOT_PHASES, SnapshotSpec } from '../../crds/snapshot.ts';
import { DateTimeString, Nullable, SandboxIdSchema, limitOf } from './common.ts';

export const SnapshotVersionSchema = Type.String({ pattern: NAME_PATTERN, maxLength: 253 });
export const SnapshotParams = Type.Object({
  version: { ...SnapshotVersionSchema, description: 'The snapshot version.' },
});

export const SnapshotCreateSchema = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: limitOf(SnapshotSpec.properties.name, 'maxLength'),
      description: 'A name of your choice; each capture gets its own version.',
    }),
  },
  { additionalProperties: false },
);

export const SnapshotSchema = Type.Object({
  version: Type.String({ description: 'The snapshot version: its id (restore with `snapshot`).' }),
  name: Type.String({ description: 'The name given at capture.' }),
  sandbox_id: { ...SandboxIdSchema, description: 'The sandbox it was captured from.' },
  status: Type.Enum([...SNAPSHOT_PHASES], { description: 'pending, capturing, ready (restorable), failed.' }),
  created_at: { ...DateTimeString, description: 'When the capture was asked.' },
  base_image: Nullable(Type.String(), {
    description: 'The image the disk delta applies to; null until captured.',
  }),
  disk_gib: Nullable(Type.Integer(), {
    description: "The base image's disk size, GiB; null until captured.",
  }),
  size_bytes: Nullable(Type.Integer(), { description: 'Size of the stored delta; null until captured.' }),
  sha256: Nullable(Type.String(), { description: 'SHA-256 of the stored delta; null until captured.' }),
});

export const SnapshotListQuery = Type.Object(
  { sandbox_id: Type.Optional({ ...SandboxIdSchema, description: 'Only the snapshots of this sandbox.' }) },
  { additionalProperties: false },
);
