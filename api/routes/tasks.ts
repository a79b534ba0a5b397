// Trajectories (account key): list, detail, ATIF JSON, ZIP download, screen recording, one step's
// screenshot, and replays. A reservation key gets 403 `account_key_required` (tasks belong to the
// account, not to one reservation); another account's task or replay is 404, like one that does not
// exist. See docs/trajectories.md.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { GradeResult } from '../../crds/index.ts';
import { NAME_PATTERN } from '../../crds/meta.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { toAtif } from '../atif.ts';
import { AtifSchema } from '../schemas/atif.ts';
import { principalOf } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { binaryResponse, errorResponses } from '../schemas/common.ts';
import { Nullable, TaskDetailSchema, TaskSummarySchema } from '../schemas/tasks.ts';
import type { RouteOptions } from '../services/context.ts';
import {
  REPLAY_ID_PATTERN,
  checkedArtifact,
  checkedImages,
  findReplay,
  findTask,
  listTasks,
  replayWire,
  startReplay,
  stepScreenshot,
  taskDetail,
  taskSummary,
} from '../services/tasks.ts';
import { taskArchive } from '../task-archive.ts';

export interface TaskRouteOptions extends RouteOptions {
  /** Where task screenshots and recordings are kept (the operator's blob store). */
  blobs?: BlobStore;
}

const tags = ['trajectories'];
const config = { auth: 'account' as const };
// The pattern is not in the params schema: a malformed id is a task that does not exist (404).
const params = Type.Object({ id: Type.String({ description: `A task name (${NAME_PATTERN}).` }) });
const stepParams = Type.Object({
  ...params.properties,
  index: Type.Integer({ minimum: 0, description: 'The step index, from 0 (`steps[].index` of the task).' }),
});
const replayParams = Type.Object({
  replayID: Type.String({
    description: `The replay id, as the replay start answered it (${REPLAY_ID_PATTERN}).`,
  }),
});

const ReplayStartSchema = Type.Object(
  {
    reservation_id: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The reservation whose Macs run the replay; inferred as for a sandbox create when omitted.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ReplaySchema = Type.Object({
  id: Type.String({ description: 'The replay id (`rp-` and 32 hex digits).' }),
  task_id: Type.String({ description: 'The task replayed.' }),
  reservation_id: Type.String({ description: 'The reservation whose Macs run it.' }),
  status: Type.String({ description: '`pending`, `running`, `completed` or `failed`.' }),
  sandbox_id: Nullable(Type.String(), 'The sandbox the replay runs in; null until the reconciler names it.'),
  steps_done: Type.Integer({ description: 'Recorded actions replayed so far.' }),
  steps_total: Nullable(Type.Integer(), 'Recorded actions to replay.'),
  reward: Nullable(Type.Number(), "The grader's result (0 to 1) once completed; null without a grader."),
  grade: Nullable(
    GradeResult,
    'Each check of the grader and how it went, once completed; null without a grader.',
  ),
  message: Nullable(Type.String(), 'Why the replay failed, for people.'),
  created_at: Nullable(Type.String({ format: 'date-time' }), 'When the replay was started.'),
});

export const taskRoutes: FastifyPluginAsyncTypebox<TaskRouteOptions> = async (app, { ctx, blobs }) => {
  app.get(
    '/v1/me/tasks',
    {
      config,
      schema: {
        operationId: 'listTasks',
        tags,
        summary: "The account's recorded tasks (trajectories)",
        response: { 200: Type.Array(TaskSummarySchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => (await listTasks(ctx, principalOf(request))).map(taskSummary),
  );

  app.get(
    '/v1/me/tasks/:id',
    {
      config,
      schema: {
        operationId: 'getTask',
        tags,
        summary: 'One task: steps, app state, setup script, grader',
        params,
        response: { 200: TaskDetailSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => taskDetail(await findTask(ctx, principalOf(request), request.params.id)),
  );

  app.get(
    '/v1/me/tasks/:id/trajectory',
    {
      config,
      schema: {
        operationId: 'getTaskTrajectory',
        tags,
        summary: 'The task as an ATIF-v1.6 trajectory (Agent Trajectory Interchange Format)',
        params,
        response: { 200: AtifSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toAtif(await findTask(ctx, principalOf(request), request.params.id)),
  );

  app.get(
    '/v1/me/tasks/:id/steps/:index/screenshot',
    {
      config,
      schema: {
        operationId: 'getTaskStepScreenshot',
        tags,
        summary: "One step's screenshot (`extra.screenshot.url` of its ATIF step)",
        params: stepParams,
        response: { 200: binaryResponse(['image/png'], 'PNG.'), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      const task = await findTask(ctx, principalOf(request), request.params.id);
      const open = await checkedArtifact(blobs, task, stepScreenshot(task, request.params.index));
      return reply.type('image/png').send(open());
    },
  );

  app.get(
    '/v1/me/tasks/:id/download',
    {
      config,
      schema: {
        operationId: 'downloadTask',
        tags,
        summary: 'ZIP: trajectory.json, task.json, setup.sh (grader.sh), images/step-NNNN.png',
        params,
        response: {
          200: binaryResponse(['application/zip'], 'ZIP archive.'),
          ...errorResponses(401, 403, 404, 500),
        },
      },
    },
    async (request, reply) => {
      const task = await findTask(ctx, principalOf(request), request.params.id);
      const images = await checkedImages(blobs, task);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${task.metadata.name}.zip"`)
        .send(taskArchive(task, images));
    },
  );

  app.get(
    '/v1/me/tasks/:id/recording',
    {
      config,
      schema: {
        operationId: 'downloadTaskRecording',
        tags,
        summary: "The task's screen recording (MP4); 404 while none is finalized",
        params,
        response: { 200: binaryResponse(['video/mp4'], 'MP4 video.'), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      const task = await findTask(ctx, principalOf(request), request.params.id);
      const recording = task.status?.recording;
      if (!recording)
        throw new ApiError('recording_not_found', 'The task has no finalized screen recording.');
      const open = await checkedArtifact(blobs, task, recording);
      return reply.type('video/mp4').header('content-length', recording.bytes).send(open());
    },
  );

  app.post(
    '/v1/me/tasks/:id/replay',
    {
      config,
      schema: {
        operationId: 'replayTask',
        tags,
        summary: 'Replay the task on a fresh sandbox (setup script, recorded actions, grader)',
        params,
        body: ReplayStartSchema,
        response: { 201: ReplaySchema, ...errorResponses(400, 401, 403, 404, 409, 503) },
      },
      // The body is optional: none means the reservation is inferred as for a sandbox create.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const replay = await startReplay(ctx, principal, request.params.id, request.body.reservation_id);
      return reply.code(201).send(await replayWire(ctx, replay));
    },
  );

  app.get(
    '/v1/me/tasks/replays/:replayID',
    {
      config,
      schema: {
        operationId: 'getReplay',
        tags,
        summary: 'A replay: poll until `completed` or `failed`',
        params: replayParams,
        response: { 200: ReplaySchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => replayWire(ctx, await findReplay(ctx, principalOf(request), request.params.replayID)),
  );
};
