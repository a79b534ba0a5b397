import Type, { type Static } from 'typebox';
import { doc, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';
import { Artifact } from './snapshot.ts';

/** A blob's id and resource name: its content's SHA-256, so an upload of the same bytes is the same blob. */
export const BLOB_ID_PATTERN = '^sha256-[0-9a-f]{64}$';

/**
 * Namespace: the account. Name: `sha256-<hex>` of the content. Bytes an account uploaded for setup
 * steps to put into sandboxes (`download` with `blob`), kept in the blob store under
 * `uploads/<account>/<hex>`.
 */
export const BlobSpec = Type.Object(
  {
    artifact: doc('API: where the bytes are, their size and SHA-256.', Artifact),
    filename: doc(
      'user: a name for people (the upload’s `filename` query parameter).',
      Type.Optional(Type.String({ maxLength: 255 })),
    ),
  },
  { additionalProperties: false },
);
export type BlobSpec = Static<typeof BlobSpec>;

export const BlobStatus = Type.Object({ ...StatusBase });

export const BlobSchema = resourceSchema('Blob', BlobSpec, BlobStatus);
export type Blob = Static<typeof BlobSchema>;

export const BlobKind: KindDefinition = {
  kind: 'Blob',
  plural: 'blobs',
  singular: 'blob',
  shortNames: ['bl'],
  scope: 'Namespaced',
  schema: BlobSchema,
  description: 'Bytes an account uploaded for setup steps (content-addressed by SHA-256).',
  printerColumns: [
    { name: 'Bytes', type: 'integer', jsonPath: '.spec.artifact.bytes' },
    { name: 'Filename', type: 'string', jsonPath: '.spec.filename' },
  ],
};
