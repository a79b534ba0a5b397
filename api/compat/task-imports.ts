// `POST /v1/me/tasks/import` (account key): an OSWorld or macOSWorld task file as a sandbay Task,
// through the same service as `POST /v1/me/tasks` (docs/evaluation.md, "Importing benchmark tasks").
// A task that uses what sandbay cannot do exactly is refused whole (422 `task_unsupported`, naming
// the step or check and why); `dry_run` answers the mapping without writing anything.
import Type from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Grader, SetupSteps } from '../../crds/index.ts';
import { checkGrader, checkSetupSteps } from '../../operator/evaluation/validate.ts';
import { principalOf } from '../auth.ts';
import { idempotent } from '../idempotency.ts';
import { errorResponses } from '../schemas/common.ts';
import { Nullable, TaskDetailSchema } from '../schemas/tasks.ts';
import type { RouteOptions } from '../services/context.ts';
import { createTask } from '../services/task-edits.ts';
import { taskDetail } from '../services/tasks.ts';
import { IMPORT_FORMATS, type ImportFormat, type ImportOptions, type ImportedTask } from './imported-task.ts';
import { macosworldTask } from './macosworld/task.ts';
import { osworldTask } from './osworld/task.ts';

const IMPORTERS: Record<ImportFormat, (source: unknown, options: ImportOptions) => ImportedTask> = {
  osworld: osworldTask,
  macosworld: macosworldTask,
};

export const ImportOptionsSchema = Type.Object(
  {
    language: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16,
        description: 'macOSWorld: the task language (default `en`).',
      }),
    ),
    env_language: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16,
        description: 'macOSWorld: the environment language choosing `pre_command` (default: `language`).',
      }),
    ),
    partial_credit: Type.Optional(
      Type.Boolean({
        description:
          'macOSWorld: grade with every `grading_command` and its score, not only the score-100 ones (the harness default).',
      }),
    ),
    screen_width: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: 'OSWorld: `{SCREEN_WIDTH}` (default 1920).',
      }),
    ),
    screen_height: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        description: 'OSWorld: `{SCREEN_HEIGHT}` (default 1080).',
      }),
    ),
    client_password: Type.Optional(
      Type.String({
        maxLength: 1000,
        description:
          "OSWorld: `{CLIENT_PASSWORD}` (the VM user's sudo password), stored in the task's commands.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const TaskImportSchema = Type.Object(
  {
    format: Type.Enum([...IMPORT_FORMATS], { description: 'The benchmark the task file comes from.' }),
    task: Type.Record(Type.String(), Type.Unknown(), { description: 'The task file, as JSON.' }),
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
        description: "The task id; default the file's id (macOSWorld: `-<language>` added but for `en`).",
      }),
    ),
    category: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          "A grouping for people; default OSWorld's `snapshot` (its domain). macOSWorld's is its folder.",
      }),
    ),
    options: Type.Optional(
      Type.Object(ImportOptionsSchema.properties, {
        additionalProperties: false,
        description: 'How the file is read (its language, placeholders, partial credit).',
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({ description: 'Answer the mapping (200) without creating the task.' }),
    ),
  },
  { additionalProperties: false },
);

const ImportPreviewSchema = Type.Object({
  id: Type.String({ description: 'The task id it would get.' }),
  instruction: Type.String({ description: 'What the agent is asked to do.' }),
  category: Nullable(Type.String(), 'A grouping for people; null when none.'),
  setup: SetupSteps,
  grader: Grader,
});

export const taskImportRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx }) => {
  const idem = idempotent(ctx, () => 60_000);
  app.post(
    '/v1/me/tasks/import',
    {
      config: { auth: 'account' },
      schema: {
        operationId: 'importTask',
        tags: ['trajectories'],
        summary: 'Import an OSWorld or macOSWorld task file as a task (setup steps and grader)',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'At most 255 bytes.' })),
        }),
        body: TaskImportSchema,
        response: {
          200: ImportPreviewSchema,
          201: TaskDetailSchema,
          ...errorResponses(400, 401, 403, 409, 422),
        },
      },
      preHandler: idem.preHandler,
      onSend: idem.onSend,
    },
    async (request, reply) => {
      const { format, task, id, category, options, dry_run } = request.body;
      const mapped = IMPORTERS[format](task, options ?? {});
      // What the importer wrote is held to the same checks as a task written by hand.
      checkSetupSteps(mapped.setup);
      checkGrader(mapped.grader);
      const group = category ?? mapped.category;
      const fields = {
        id: id ?? mapped.id,
        instruction: mapped.instruction,
        ...(group !== undefined && { category: group }),
        setup: mapped.setup,
        grader: mapped.grader,
      };
      if (dry_run) return { ...fields, category: group ?? null };
      const created = await createTask(ctx, principalOf(request), fields);
      return reply.code(201).send(taskDetail(created));
    },
  );
};
