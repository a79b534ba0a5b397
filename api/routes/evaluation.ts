// Setup and grading in the guest, on any running sandbox (docs/evaluation.md): `POST …/setup` runs
// setup steps (or a task's setup), `POST …/grade` a grader (or a task's) and answers the reward.
// A failed step or check is a result (200), not an error; a step or check of an unknown kind is a
// 400 naming it, before anything runs. Both take an Idempotency-Key: a retried setup does not
// download and launch twice.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DEFAULT_EVALUATION_TIMEOUT_S, GradeResult, SetupResult } from '../../crds/index.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { idempotent } from '../idempotency.ts';
import { SandboxParams, errorResponses } from '../schemas/common.ts';
import { GradeRequestSchema, SetupRequestSchema } from '../schemas/evaluation.ts';
import type { RouteOptions } from '../services/context.ts';
import { checkEvaluationBody, gradeSandbox, setupSandbox } from '../services/evaluation.ts';

export interface EvaluationRouteOptions extends RouteOptions {
  /** The operator's blob store, where uploaded blobs are (`download` with `blob`). */
  blobs?: BlobStore;
}

const tags = ['evaluation'];
const headers = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'At most 255 bytes.' })),
});
/** An attempt may run until the request's deadline, plus a minute to answer. */
const deadlineOf = (request: { body: unknown }) =>
  (((request.body as { timeout_s?: number } | undefined)?.timeout_s ?? DEFAULT_EVALUATION_TIMEOUT_S) + 60) *
  1000;

export const evaluationRoutes: FastifyPluginAsyncTypebox<EvaluationRouteOptions> = async (
  app,
  { ctx, blobs },
) => {
  const idem = idempotent(ctx, deadlineOf);
  const preValidation = async (request: { body: unknown }) => checkEvaluationBody(request.body);

  app.post(
    '/v1/sandboxes/:sandboxID/setup',
    {
      schema: {
        operationId: 'setupSandbox',
        tags,
        summary: 'Run setup steps (download, launch, open, command, sleep) in the sandbox, or a task’s setup',
        params: SandboxParams,
        headers,
        body: SetupRequestSchema,
        response: { 200: SetupResult, ...errorResponses(400, 401, 403, 404, 409, 422, 502, 503, 504) },
      },
      preValidation,
      preHandler: idem.preHandler,
      onSend: idem.onSend,
    },
    async (request) => setupSandbox(ctx, blobs, request, request.body),
  );

  app.post(
    '/v1/sandboxes/:sandboxID/grade',
    {
      schema: {
        operationId: 'gradeSandbox',
        tags,
        summary: 'Grade the sandbox with a grader (or a task’s): a reward in [0, 1] with each check',
        params: SandboxParams,
        headers,
        body: GradeRequestSchema,
        response: { 200: GradeResult, ...errorResponses(400, 401, 403, 404, 409, 422, 502, 503, 504) },
      },
      preValidation,
      preHandler: idem.preHandler,
      onSend: idem.onSend,
    },
    async (request) => gradeSandbox(ctx, request, request.body),
  );
};
