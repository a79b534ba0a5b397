// Wire shapes of tasks (trajectories) as the API answers them: the list item and the detail, shared
// by the read routes, the task edits and the collector.
import Type from 'typebox';
import { SetupSteps, TaskGrader } from '../../crds/index.ts';

export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description === undefined ? {} : { description });

export const TaskSummarySchema = Type.Object({
  id: Type.String({ description: "The task id (the Task resource's name)." }),
  instruction: Type.String({ description: 'What the demonstrator was asked to do.' }),
  category: Nullable(Type.String(), 'A grouping for people (e.g. `browser`, `office`); null when none.'),
  created_at: Nullable(Type.String({ format: 'date-time' }), 'When the task was created.'),
  step_count: Type.Integer({ description: 'Recorded actions in the trajectory.' }),
  phase: Nullable(
    Type.String(),
    '`recording`, `saved`, `finalizing` (recording being closed), `ready` or `failed`; null before any.',
  ),
  has_grader: Type.Boolean({ description: 'The task has a grader (a replay reports a reward).' }),
  has_recording: Type.Boolean({ description: 'The screen recording (MP4) of the session is finalized.' }),
});

export const TaskDetailSchema = Type.Object({
  ...TaskSummarySchema.properties,
  setup_script: Nullable(Type.String(), 'Shell script run before recording and before a replay.'),
  setup: Nullable(SetupSteps, 'Setup steps run after the setup script (docs/evaluation.md); null when none.'),
  grader: Nullable(
    TaskGrader,
    'A shell script whose exit code 0 means success (reward 1), or a grader of checks (docs/evaluation.md).',
  ),
  app_state: Nullable(
    Type.Record(Type.String(), Type.Unknown()),
    'Application state captured at save, for graders.',
  ),
  recording_url: Nullable(Type.String(), 'Where to download the MP4 recording; null until finalized.'),
  steps: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'Position of the step in the trajectory, from 0.' }),
      at: Type.String({ description: 'When the action ran (RFC 3339).' }),
      function: Type.String({
        description: 'The tool called: the API operation (e.g. `click`, `type_text`).',
      }),
      args: Type.Record(Type.String(), Type.Unknown(), {
        description: "The call's arguments as the API received them.",
      }),
      screenshot_url: Nullable(
        Type.String(),
        'Where to download the PNG observed after the step; null if none.',
      ),
    }),
    { description: 'The recorded actions, in order.' },
  ),
});

/** A task field's description with what `null` does in an update. */
const removable = (t: object) => `${(t as { description?: string }).description ?? ''} \`null\` removes it.`;

const TaskFields = {
  instruction: Type.String({
    minLength: 1,
    maxLength: 20_000,
    description: 'What the demonstrator is asked to do.',
  }),
  category: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'A grouping for people (e.g. `browser`).',
  }),
  setup_script: Type.String({
    maxLength: 1_000_000,
    description: 'Shell script run before recording and before a replay.',
  }),
  setup: SetupSteps,
  grader: TaskGrader,
};

export const TaskCreateSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
        maxLength: 63,
        description: 'The task id; default `tk-<12 hex>`. Not `replays`.',
      }),
    ),
    instruction: Type.Optional(TaskFields.instruction),
    category: Type.Optional(TaskFields.category),
    setup_script: Type.Optional(TaskFields.setup_script),
    setup: Type.Optional(TaskFields.setup),
    grader: Type.Optional(TaskFields.grader),
    trajectory: Type.Optional(
      Type.Unknown({
        description:
          'An ATIF document (or an old `sandbay-atif/1` export) to import: its actions become the steps (without screenshots).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TaskUpdateSchema = Type.Object(
  {
    instruction: Type.Optional(TaskFields.instruction),
    category: Type.Optional(Nullable(TaskFields.category, removable(TaskFields.category))),
    setup_script: Type.Optional(Nullable(TaskFields.setup_script, removable(TaskFields.setup_script))),
    setup: Type.Optional(Nullable(TaskFields.setup, removable(TaskFields.setup))),
    grader: Type.Optional(Nullable(TaskFields.grader, removable(TaskFields.grader))),
  },
  { additionalProperties: false, minProperties: 1, description: '`null` removes an optional field.' },
);

export const CollectionStartSchema = Type.Object(
  {
    task_id: Type.String({ minLength: 1, description: 'The task to record (it must have no steps yet).' }),
    run_setup: Type.Boolean({
      default: true,
      description: "Run the task's setup script first (unrecorded).",
    }),
  },
  { additionalProperties: false },
);

export const CollectionSchema = Type.Object({
  sandbox_id: Type.String({ description: 'The sandbox the task is being collected on.' }),
  task_id: Type.String({ description: 'The task being recorded.' }),
  phase: Type.Enum(['setup', 'recording'], {
    description: '`setup` while the setup script runs (nothing recorded), then `recording`.',
  }),
  started_at: Type.String({ format: 'date-time', description: 'When the collection started.' }),
  recording_started_at: Nullable(
    Type.String({ format: 'date-time' }),
    'When recording started; null during setup.',
  ),
  step_count: Type.Integer({ description: 'Steps recorded so far.' }),
  recording_id: Nullable(Type.String(), "The sandbox's MP4 recording of the collection."),
});
