// Screen recordings: start, stop, list, info, delete, download (MP4).
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth.ts';
import { withRecordingAliases } from '../compat/use-computer/recordings.ts';
import { ApiError } from '../errors.ts';
import { SandboxParams, binaryResponse, errorResponses, NoContent } from '../schemas/common.ts';
import {
  RecordingIdSchema,
  RecordingSchema,
  RecordingStartSchema,
  RecordingStopSchema,
} from '../schemas/recordings.ts';
import type { RouteOptions } from '../services/context.ts';
import { checkRecordingQuota } from '../services/quotas.ts';
import { guestFor } from '../services/request.ts';

const tags = ['recordings'];
const errors = errorResponses(400, 401, 404, 409, 502, 504);
const params = SandboxParams;
const recordingParams = Type.Object({ ...SandboxParams.properties, recordingID: RecordingIdSchema });

export const recordingRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  app.post(
    '/v1/sandboxes/:sandboxID/recording/start',
    {
      schema: {
        operationId: 'startRecording',
        tags,
        summary: 'Start recording the screen',
        params,
        body: RecordingStartSchema,
        response: { 200: RecordingSchema, ...errors },
      },
      // The body is optional: no body means no name.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const guest = await guestFor(ctx, request);
      await checkRecordingQuota(ctx, principalOf(request).account);
      return withRecordingAliases(await guest.startRecording(request.body.name));
    },
  );

  app.post(
    '/v1/sandboxes/:sandboxID/recording/stop',
    {
      schema: {
        operationId: 'stopRecording',
        tags,
        summary: 'Stop a recording',
        params,
        body: RecordingStopSchema,
        response: { 200: RecordingSchema, ...errors },
      },
    },
    async (request) => {
      const guest = await guestFor(ctx, request);
      if (!(await guest.getRecording(request.body.id))) throw new ApiError('recording_not_found');
      return withRecordingAliases(await guest.stopRecording(request.body.id));
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/recordings',
    {
      schema: {
        operationId: 'listRecordings',
        tags,
        summary: "The sandbox's recordings",
        params,
        response: { 200: Type.Array(RecordingSchema), ...errors },
      },
    },
    async (request) => (await (await guestFor(ctx, request)).listRecordings()).map(withRecordingAliases),
  );

  app.get(
    '/v1/sandboxes/:sandboxID/recordings/:recordingID',
    {
      schema: {
        operationId: 'getRecording',
        tags,
        summary: 'One recording',
        params: recordingParams,
        response: { 200: RecordingSchema, ...errors },
      },
    },
    async (request) => {
      const recording = await (await guestFor(ctx, request)).getRecording(request.params.recordingID);
      if (!recording) throw new ApiError('recording_not_found');
      return withRecordingAliases(recording);
    },
  );

  app.delete(
    '/v1/sandboxes/:sandboxID/recordings/:recordingID',
    {
      schema: {
        operationId: 'deleteRecording',
        tags,
        summary: 'Delete a recording',
        params: recordingParams,
        response: { 204: NoContent, ...errors },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      if (!(await guest.getRecording(request.params.recordingID))) throw new ApiError('recording_not_found');
      await guest.deleteRecording(request.params.recordingID);
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/sandboxes/:sandboxID/recordings/:recordingID/download',
    {
      schema: {
        operationId: 'downloadRecording',
        tags,
        summary: 'The MP4 of a stopped recording',
        params: recordingParams,
        response: { 200: binaryResponse(['video/mp4'], 'MP4 video.'), ...errors },
      },
    },
    async (request, reply) => {
      const guest = await guestFor(ctx, request);
      const recording = await guest.getRecording(request.params.recordingID);
      if (!recording) throw new ApiError('recording_not_found');
      if (recording.state === 'recording') throw new ApiError('recording_in_progress');
      return reply.type('video/mp4').send(await guest.downloadRecording(recording.id));
    },
  );
};
