// A recorded task as a Harbor task directory (account key): `GET /v1/me/tasks/{id}/harbor` answers
// the directory as a .tar.gz (api/compat/harbor/; docs/trajectories.md, "Harbor"). A task whose
// grader, recorded steps or setup cannot be written as one is 422 `task_not_exportable`, naming the
// check or step; nothing is sent before the whole directory is known to be writable.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NAME_PATTERN } from '../../crds/meta.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { openAccountBlob } from '../../operator/evaluation/blob-source.ts';
import { harborArchive } from '../compat/harbor/archive.ts';
import { TaskNotExportable } from '../compat/harbor/errors.ts';
import { harborTaskDir } from '../compat/harbor/task-dir.ts';
import { principalOf } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { binaryResponse, errorResponses } from '../schemas/common.ts';
import type { RouteOptions } from '../services/context.ts';
import { findTask } from '../services/tasks.ts';

export interface TaskHarborRouteOptions extends RouteOptions {
  /** Where the account's uploaded blobs are (for `download` setup steps). */
  blobs?: BlobStore;
}

const params = Type.Object({ id: Type.String({ description: `A task name (${NAME_PATTERN}).` }) });

export const taskHarborRoutes: FastifyPluginAsyncTypebox<TaskHarborRouteOptions> = async (
  app,
  { ctx, blobs },
) => {
  app.get(
    '/v1/me/tasks/:id/harbor',
    {
      config: { auth: 'account' as const },
      schema: {
        operationId: 'exportTaskHarbor',
        tags: ['trajectories'],
        summary:
          'The task as a Harbor task directory (.tar.gz): task.toml, instruction.md, environment/, tests/test.sh, solution/',
        params,
        response: {
          200: binaryResponse(
            ['application/gzip'],
            'A gzipped tar of the task directory, entries at its root.',
          ),
          ...errorResponses(401, 403, 404, 422, 500),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const task = await findTask(ctx, principal, request.params.id);
      let entries;
      try {
        entries = await harborTaskDir(task, (id) => openAccountBlob(ctx.store, blobs, principal.account, id));
      } catch (err) {
        if (err instanceof TaskNotExportable) throw new ApiError('task_not_exportable', err.message);
        throw err;
      }
      return reply
        .type('application/gzip')
        .header('content-disposition', `attachment; filename="${task.metadata.name}.harbor.tar.gz"`)
        .send(harborArchive(entries));
    },
  );
};
