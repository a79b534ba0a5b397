// Evaluation runs (docs/evaluation.md, "Evaluation runs"): N tasks × an agent endpoint (or a replay
// of each task's recorded actions) × K attempts on the reservation's Macs, with a results table in
// JSON and CSV. Account key: the tasks are the account's. `POST /v1/sandboxes/{id}/done` is the
// agent's word that it finished, with the sandbox key it was given (or the account's).
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { resultsCsv } from '../../operator/evaluation/run/results.ts';
import { principalOf } from '../auth.ts';
import { NoContent, SandboxParams, binaryResponse, errorResponses } from '../schemas/common.ts';
import {
  EvaluationRunCreateSchema,
  EvaluationRunSchema,
  FinishSchema,
  RunParams,
  RunResultsSchema,
} from '../schemas/evaluation-runs.ts';
import type { RouteOptions } from '../services/context.ts';
import {
  cancelRun,
  createRun,
  deleteRun,
  finishAttempt,
  findRun,
  listRuns,
  resultsOf,
  runWire,
} from '../services/evaluation-runs.ts';

const tags = ['evaluation'];
const config = { auth: 'account' as const };

export const evaluationRunRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/me/evaluation-runs',
    {
      config,
      schema: {
        operationId: 'createEvaluationRun',
        tags,
        summary: 'Start an evaluation run: N tasks × an agent endpoint (or replay) × K attempts',
        body: EvaluationRunCreateSchema,
        response: { 201: EvaluationRunSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const apiUrl = `${request.protocol}://${request.host}`;
      const run = await createRun(ctx, principalOf(request), request.body, apiUrl);
      return reply.code(201).send(runWire(run));
    },
  );

  app.get(
    '/v1/me/evaluation-runs',
    {
      config,
      schema: {
        operationId: 'listEvaluationRuns',
        tags,
        summary: "The account's evaluation runs, oldest first",
        response: { 200: Type.Array(EvaluationRunSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => (await listRuns(ctx, principalOf(request))).map((r) => runWire(r)),
  );

  app.get(
    '/v1/me/evaluation-runs/:runID',
    {
      config,
      schema: {
        operationId: 'getEvaluationRun',
        tags,
        summary: 'One evaluation run: its state and counts',
        params: RunParams,
        response: { 200: EvaluationRunSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => runWire(await findRun(ctx, principalOf(request), request.params.runID)),
  );

  app.get(
    '/v1/me/evaluation-runs/:runID/results',
    {
      config,
      schema: {
        operationId: 'getEvaluationRunResults',
        tags,
        summary:
          'The results table: each attempt’s outcome, reward and why, pass rates per task and category',
        params: RunParams,
        response: { 200: RunResultsSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => resultsOf(ctx, await findRun(ctx, principalOf(request), request.params.runID)),
  );

  app.get(
    '/v1/me/evaluation-runs/:runID/results.csv',
    {
      config,
      schema: {
        operationId: 'getEvaluationRunResultsCsv',
        tags,
        summary: 'The results table as CSV (RFC 4180), one line per attempt',
        params: RunParams,
        response: { 200: binaryResponse(['text/csv'], 'CSV.'), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const run = await findRun(ctx, principalOf(request), request.params.runID);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${run.metadata.name}.csv"`)
        .send(Buffer.from(resultsCsv(await resultsOf(ctx, run))));
    },
  );

  app.post(
    '/v1/me/evaluation-runs/:runID/cancel',
    {
      config,
      schema: {
        operationId: 'cancelEvaluationRun',
        tags,
        summary: 'Stop the run: no attempt starts any more, the running ones stop; the results stay',
        params: RunParams,
        response: { 200: EvaluationRunSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => runWire(await cancelRun(ctx, principalOf(request), request.params.runID)),
  );

  app.delete(
    '/v1/me/evaluation-runs/:runID',
    {
      config,
      schema: {
        operationId: 'deleteEvaluationRun',
        tags,
        summary: 'Delete the run with its attempts, their sandboxes and trajectories',
        params: RunParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteRun(ctx, principalOf(request), request.params.runID);
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/done',
    {
      schema: {
        operationId: 'finishEvaluationAttempt',
        tags,
        summary: "An evaluation attempt's agent says it finished (or gave up): the attempt is graded",
        params: SandboxParams,
        body: Type.Optional(FinishSchema),
        response: {
          200: Type.Object({
            ok: Type.Boolean({ description: 'Always true.' }),
            attempt_id: Type.String({ description: 'The attempt that will be graded.' }),
          }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => finishAttempt(ctx, principalOf(request), request.params.sandboxID, request.body ?? {}),
  );
};
