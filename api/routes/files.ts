// File upload and download (raw bytes), and whole directories as tar archives (the SDK's
// upload_dir / download_dir). Bodies stream straight to the VM: nothing is buffered in memory.
import { Transform, type Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { FilePathQuery } from '../schemas/control.ts';
import { NoContent, SandboxParams, binaryResponse, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { guestFor } from '../services/request.ts';

/** Largest upload (a file or an archive): 2 GiB. */
export const DEFAULT_UPLOAD_LIMIT_BYTES = 2 * 1024 ** 3;

const tags = ['files'];

export interface FileRouteOptions extends RouteOptions {
  uploadLimitBytes?: number;
}

/**
 * Streams the request body to `put`, failing with 413 past `limit` bytes. The driver sees the
 * overflow as a failed stream and answers its own error (a 502); the 413 is what the caller gets.
 * A body left unread closes the connection after the answer: kept alive, the rest of the body
 * would sit before the next request on it, and the server's close would wait on it forever.
 */
export async function withLimitedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  limit: number,
  put: (body: Readable) => Promise<void>,
): Promise<void> {
  const tooLarge = () => new ApiError('payload_too_large', `Uploads are limited to ${limit} bytes.`);
  const body = request.body as Readable;
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (declared > limit) {
    reply.header('connection', 'close');
    throw tooLarge();
  }
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > limit) done(tooLarge());
      else done(null, chunk);
    },
  });
  body.on('error', (err) => counter.destroy(err));
  try {
    await put(body.pipe(counter));
  } catch (err) {
    if (!body.readableEnded) reply.header('connection', 'close');
    if (seen > limit) throw tooLarge();
    throw err;
  }
}

export const fileRoutes: FastifyPluginAsyncTypebox<FileRouteOptions> = async (
  app,
  { ctx, uploadLimitBytes },
) => {
  const limit = uploadLimitBytes ?? DEFAULT_UPLOAD_LIMIT_BYTES;
  // Any content type is bytes here (curl's --data-binary sends form-urlencoded; a .json file is
  // still a file): the body reaches the handler as the raw request stream.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put(
    '/v1/sandboxes/:sandboxID/files',
    {
      schema: {
        operationId: 'uploadFile',
        tags,
        summary: 'Upload a file (raw bytes; parent directories are created)',
        params: SandboxParams,
        querystring: FilePathQuery,
        response: { 204: NoContent, ...errorResponses(400, 401, 404, 409, 413, 502) },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      if (request.body === undefined) await guest.putFile(request.query.path, Buffer.alloc(0));
      else await withLimitedBody(request, reply, limit, (body) => guest.putFile(request.query.path, body));
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/files',
    {
      schema: {
        operationId: 'downloadFile',
        tags,
        summary: 'Download a file',
        params: SandboxParams,
        querystring: FilePathQuery,
        response: {
          200: binaryResponse(['application/octet-stream'], 'The file bytes.'),
          ...errorResponses(400, 401, 404, 409, 502),
        },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      const stream = await guest.getFile(request.query.path);
      return reply.type('application/octet-stream').send(stream);
    },
  );

  app.put(
    '/v1/sandboxes/:sandboxID/files/archive',
    {
      schema: {
        operationId: 'uploadArchive',
        tags,
        summary: 'Upload a directory: the body is a tar archive, unpacked into `path`',
        params: SandboxParams,
        querystring: FilePathQuery,
        response: { 204: NoContent, ...errorResponses(400, 401, 404, 409, 413, 502) },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      if (request.body === undefined)
        throw new ApiError('invalid_request', 'The body must be a tar archive.');
      await withLimitedBody(request, reply, limit, (body) => guest.putDir(request.query.path, body));
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/files/archive',
    {
      schema: {
        operationId: 'downloadArchive',
        tags,
        summary: 'Download a directory as a tar archive',
        params: SandboxParams,
        querystring: FilePathQuery,
        response: {
          200: binaryResponse(['application/x-tar'], 'A tar archive of the directory.'),
          ...errorResponses(400, 401, 404, 409, 502),
        },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      return reply.type('application/x-tar').send(await guest.getDir(request.query.path));
    },
  );
};
