// Creating, editing and deleting tasks (account key): the collector's tasks, or a trajectory
// document imported as one. See docs/trajectories.md, "The collector".
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BlobStore } from '../../operator/blob-store.ts';
import { principalOf } from '../auth.ts';
import { NoContent, errorResponses } from '../schemas/common.ts';
import { TaskCreateSchema, TaskDetailSchema, TaskUpdateSchema } from '../schemas/tasks.ts';
import type { RouteOptions } from '../services/context.ts';
import { checkEvaluationFields, createTask, deleteTask, updateTask } from '../services/task-edits.ts';
import { taskDetail } from '../services/tasks.ts';

export interface TaskEditRouteOptions extends RouteOptions {
  blobs?: BlobStore;
}

const tags = ['trajectories'];
const config = { auth: 'account' as const };
const params = Type.Object({ id: Type.String({ description: 'The task id.' }) });

export const taskEditRoutes: FastifyPluginAsyncTypebox<TaskEditRouteOptions> = async (
  app,
  { ctx, blobs },
) => {
  app.post(
    '/v1/me/tasks',
    {
      config,
      schema: {
        operationId: 'createTask',
        tags,
        summary: 'Create a task to collect (or import an ATIF trajectory as one)',
        body: TaskCreateSchema,
        response: { 201: TaskDetailSchema, ...errorResponses(400, 401, 403, 409) },
      },
      preValidation: async (request) => checkEvaluationFields(request.body),
    },
    async (request, reply) =>
      reply.code(201).send(taskDetail(await createTask(ctx, principalOf(request), request.body))),
  );

  app.patch(
    '/v1/me/tasks/:id',
    {
      config,
      schema: {
        operationId: 'updateTask',
        tags,
        summary: "Edit a task's instruction, category, setup script, setup steps or grader",
        params,
        body: TaskUpdateSchema,
        response: { 200: TaskDetailSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
      preValidation: async (request) => checkEvaluationFields(request.body),
    },
    async (request) =>
      taskDetail(await updateTask(ctx, principalOf(request), request.params.id, request.body)),
  );

  app.delete(
    '/v1/me/tasks/:id',
    {
      config,
      schema: {
        operationId: 'deleteTask',
        tags,
        summary: 'Delete a task with its screenshots and recording',
        params,
        response: { 204: NoContent, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteTask(ctx, blobs, principalOf(request), request.params.id);
      return reply.code(204).send();
    },
  );
};
