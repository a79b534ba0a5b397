// Uploaded blobs: bytes an account keeps for setup steps (`download` with `blob`). Upload (raw
// bytes, any content type, like files), list, get, delete. Account and reservation keys alike (the
// account's, as snapshots are).
import Type from 'typebox';
import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BLOB_ID_PATTERN } from '../../crds/index.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { principalOf } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { Nullable } from '../schemas/tasks.ts';
import { NoContent, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { blobWire, checkBlobQuota, deleteBlob, findBlob, listBlobs, uploadBlob } from '../services/blobs.ts';
import { DEFAULT_UPLOAD_LIMIT_BYTES, withLimitedBody } from './files.ts';

export interface BlobRouteOptions extends RouteOptions {
  blobs?: BlobStore;
  uploadLimitBytes?: number;
}

const tags = ['evaluation'];

const BlobSchema = Type.Object({
  blob_id: Type.String({
    description: 'The id (`sha256-` and the SHA-256 of the bytes) a `download` step names.',
  }),
  bytes: Type.Integer({ description: 'Its size.' }),
  sha256: Type.String({ description: 'The SHA-256 of its bytes.' }),
  filename: Nullable(Type.String(), 'The name it was uploaded with, for people; null when none.'),
  created_at: Nullable(Type.String({ format: 'date-time' }), 'When it was first uploaded.'),
});
// Not a pattern in the schema: a malformed id is a blob that does not exist (404), as for tasks.
const params = Type.Object({
  blobID: Type.String({ description: `The blob id (${BLOB_ID_PATTERN}).` }),
});
const UploadQuery = Type.Object({
  filename: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'A name for people, kept with the blob.' }),
  ),
});

export const blobRoutes: FastifyPluginAsyncTypebox<BlobRouteOptions> = async (
  app,
  { ctx, blobs, uploadLimitBytes },
) => {
  const limit = uploadLimitBytes ?? DEFAULT_UPLOAD_LIMIT_BYTES;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.post(
    '/v1/blobs',
    {
      schema: {
        operationId: 'uploadBlob',
        tags,
        summary: 'Upload bytes for setup steps (`download` with `blob`); the same bytes are the same blob',
        querystring: UploadQuery,
        response: {
          200: BlobSchema,
          201: BlobSchema,
          ...errorResponses(400, 401, 403, 413, 500, 507),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      await checkBlobQuota(ctx, principal);
      if (request.body === undefined) throw new ApiError('invalid_request', 'The body is the blob’s bytes.');
      let result: Awaited<ReturnType<typeof uploadBlob>> | undefined;
      await withLimitedBody(request, reply, limit, async (body: Readable) => {
        result = await uploadBlob(ctx, blobs, principal, body, request.query.filename);
      });
      return reply.code(result!.created ? 201 : 200).send(blobWire(result!.blob));
    },
  );

  app.get(
    '/v1/blobs',
    {
      schema: {
        operationId: 'listBlobs',
        tags,
        summary: "The account's uploaded blobs, oldest first",
        response: { 200: Type.Array(BlobSchema), ...errorResponses(401) },
      },
    },
    async (request) => (await listBlobs(ctx, principalOf(request))).map(blobWire),
  );

  app.get(
    '/v1/blobs/:blobID',
    {
      schema: {
        operationId: 'getBlob',
        tags,
        summary: 'One uploaded blob',
        params,
        response: { 200: BlobSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => blobWire(await findBlob(ctx, principalOf(request), request.params.blobID)),
  );

  app.delete(
    '/v1/blobs/:blobID',
    {
      schema: {
        operationId: 'deleteBlob',
        tags,
        summary: 'Delete an uploaded blob',
        params,
        response: { 204: NoContent, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      await deleteBlob(ctx, blobs, principalOf(request), request.params.blobID);
      return reply.code(204).send();
    },
  );
};
