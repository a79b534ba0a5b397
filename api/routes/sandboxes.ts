// Sandbox lifecycle: create (idempotent; a `type` other than macos is the use.computer client's 501),
// list, info, delete, keepalive.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Sandbox } from '../../crds/index.ts';
import { principalOf } from '../auth.ts';
import { PlatformNotSupportedSchema, refuseOtherPlatforms } from '../compat/use-computer/platform.ts';
import { idempotent } from '../idempotency.ts';
import { SandboxParams, errorResponses, NoContent } from '../schemas/common.ts';
import { ReservationIdSchema } from '../schemas/reservations.ts';
import {
  KeepaliveSchema,
  SandboxCreateSchema,
  SandboxCreatedSchema,
  SandboxInfoSchema,
} from '../schemas/sandboxes.ts';
import type { RouteOptions } from '../services/context.ts';
import { knownInfoJson, rememberInfoJson } from '../services/info-json.ts';
import { refusePaused } from '../services/guests.ts';
import { cachedSandboxOf, sandboxOf } from '../services/request.ts';
import {
  CREATE_DEADLINE_MS,
  cachedVncUrl,
  RESTORE_DEADLINE_MS,
  createSandbox,
  deleteSandbox,
  findSandbox,
  listSandboxes,
  newSandboxId,
  sandboxInfo,
  vncUrlOf,
} from '../services/sandboxes.ts';

const tags = ['sandboxes'];

/** The content type of a sandbox's info (api/hot-read.ts answers with the same). */
export const SANDBOX_INFO_CONTENT_TYPE = 'application/json; charset=utf-8';

export const sandboxRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const idem = idempotent(
    ctx,
    (request) =>
      (request.body as { snapshot?: string } | undefined)?.snapshot !== undefined
        ? RESTORE_DEADLINE_MS
        : CREATE_DEADLINE_MS,
    newSandboxId,
  );

  app.post(
    '/v1/sandboxes',
    {
      schema: {
        operationId: 'createSandbox',
        tags,
        summary: 'Create a sandbox (claims a warm VM, or boots one cold for another size or a snapshot)',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'At most 255 bytes.' })),
        }),
        body: SandboxCreateSchema,
        response: {
          201: SandboxCreatedSchema,
          ...errorResponses(400, 401, 402, 403, 404, 409, 422, 502, 503, 504),
          501: PlatformNotSupportedSchema,
        },
      },
      preValidation: refuseOtherPlatforms,
      preHandler: idem.preHandler,
      onSend: idem.onSend,
    },
    async (request, reply) => {
      // Under an Idempotency-Key the name is the key's: a retry after a crash finds the same sandbox.
      const name = request.idempotencyClaim?.resource;
      const created = await createSandbox(ctx, principalOf(request), request.body, name);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/sandboxes',
    {
      schema: {
        operationId: 'listSandboxes',
        tags,
        summary: "List the caller's sandboxes",
        querystring: Type.Object(
          {
            reservation_id: Type.Optional({
              ...ReservationIdSchema,
              description: 'Only the sandboxes of this reservation.',
            }),
            pool: Type.Optional(
              Type.Boolean({ description: 'true: only pool sandboxes; false: only reserved ones.' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(SandboxInfoSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { reservation_id: reservationId, pool } = request.query;
      const sandboxes = await listSandboxes(ctx, principalOf(request), reservationId, pool);
      return Promise.all(sandboxes.map(async (s) => sandboxInfo(s, await vncUrlOf(ctx, s))));
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID',
    {
      schema: {
        operationId: 'getSandbox',
        tags,
        summary: 'Sandbox info',
        params: SandboxParams,
        response: { 200: SandboxInfoSchema, ...errorResponses(400, 401, 404) },
      },
    },
    // Answered from cache hits without a promise when it can (the most frequent call of a client
    // polling its sandbox; bench/api.ts measures it), else the async reads decide.
    (request, reply) => {
      const sandbox = cachedSandboxOf(ctx, request);
      if (!sandbox) return sandboxOf(ctx, request).then(async (s) => sandboxInfo(s, await vncUrlOf(ctx, s)));
      const url = cachedVncUrl(ctx, sandbox);
      if (url === undefined) return vncUrlOf(ctx, sandbox).then((u) => sandboxInfo(sandbox, u));
      sendSandboxInfo(reply, sandbox, url);
    },
  );

  app.delete(
    '/v1/sandboxes/:sandboxID',
    {
      schema: {
        operationId: 'deleteSandbox',
        tags,
        summary: 'Destroy a sandbox (its VM is discarded and a fresh one cloned)',
        params: SandboxParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteSandbox(ctx, await sandboxOf(ctx, request));
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/keepalive',
    {
      schema: {
        operationId: 'keepaliveSandbox',
        tags,
        summary: 'Heartbeat: keeps an ephemeral sandbox from the idle reaper',
        params: SandboxParams,
        response: { 200: KeepaliveSchema, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const sandbox = await findSandbox(ctx, principalOf(request), request.params.sandboxID);
      refusePaused(sandbox); // a paused sandbox is never idle: nothing to keep alive
      const at = (await ctx.activity.touch(sandbox.metadata.namespace!, sandbox.metadata.name, true))!;
      return { sandbox_id: sandbox.metadata.name, last_active: at.toISOString() };
    },
  );
};

/**
 * Answers a sandbox's info serialized by its route's response schema, once per cached sandbox
 * object and viewer link (services/info-json.ts).
 */
function sendSandboxInfo(reply: FastifyReply, sandbox: Sandbox, url: string): void {
  let json = knownInfoJson(sandbox, url)?.json;
  if (json === undefined) {
    // The route's fast-json-stringify serializer, which makes strings.
    json = reply.serialize(sandboxInfo(sandbox, url)) as string;
    rememberInfoJson(sandbox, url, json);
  }
  // A string with a JSON content type is sent as it is (not serialized again).
  reply.type(SANDBOX_INFO_CONTENT_TYPE).send(json);
}
