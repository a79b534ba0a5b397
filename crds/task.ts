import Type, { type Static } from 'typebox';
import { doc, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';
import { Artifact } from './snapshot.ts';
import { GradeResult, TaskGrader } from './grader.ts';
import { SetupSteps } from './setup-step.ts';

/** One recorded action: the tool call and the screenshot observed after it. */
export const TrajectoryStep = Type.Object({
  index: doc('Position of the step in the trajectory, from 0.', Type.Integer({ minimum: 0 })),
  at: doc('When the action ran (RFC 3339).', Type.String()),
  function: doc('The tool called: the API operation (e.g. `click`, `type_text`).', Type.String()),
  args: doc("The call's arguments as the API received them.", Type.Record(Type.String(), Type.Unknown())),
  screenshot: doc(
    'The screenshot observed after the step (a PNG in the blob store).',
    Type.Optional(Artifact),
  ),
});

/** Namespace: the account. A recorded demonstration (trajectory) and what is needed to replay it. */
export const TaskSpec = Type.Object(
  {
    instruction: doc('user: what the demonstrator was asked to do.', Type.String()),
    category: doc('user: a grouping for people (e.g. `browser`, `office`).', Type.Optional(Type.String())),
    setupScript: doc(
      'user: shell script run before recording (and before replay), before `setup`.',
      Type.Optional(Type.String()),
    ),
    setup: doc(
      'user: setup steps (crds/setup-step.ts) run after the setup script, before recording and replay.',
      Type.Optional(SetupSteps),
    ),
    grader: doc(
      'user: a shell script whose exit code 0 means success (reward 1), or a grader of checks (crds/grader.ts).',
      Type.Optional(TaskGrader),
    ),
  },
  { additionalProperties: false },
);

/**
 * A collection of the task in progress, kept in the store so that every API replica records the
 * input and calls it serves into it (docs/trajectories.md, "The collector").
 */
export const TaskCollection = Type.Object({
  sandbox: doc('API: the sandbox the task is being collected on.', Type.String({ minLength: 1 })),
  phase: doc(
    'API: `setup` (the setup script runs; nothing is recorded) or `recording`.',
    Type.Enum(['setup', 'recording']),
  ),
  startedAt: doc('API: when the collection started (RFC 3339).', Type.String()),
  recordingStartedAt: doc('API: when recording started (RFC 3339).', Type.Optional(Type.String())),
  recordingId: doc("API: the sandbox's MP4 recording of the collection.", Type.Optional(Type.String())),
  nextIndex: doc(
    'API: step indexes handed out so far; a replica takes the next one by a write conditional on the resourceVersion.',
    Type.Integer({ minimum: 0 }),
  ),
  recorders: doc(
    'API: the API replicas recording into the collection (input not written yet); a stop waits for them.',
    Type.Optional(Type.Array(Type.String())),
  ),
  stopping: doc(
    'API: a stop was asked: replicas write what they hold and leave.',
    Type.Optional(Type.Boolean()),
  ),
});

export const TaskStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'API/reconciler: `recording`, `saved`, `finalizing` (recording being closed), `ready`, `failed`.',
    Type.Optional(Type.Enum(['recording', 'saved', 'finalizing', 'ready', 'failed'])),
  ),
  steps: doc(
    'API: the recorded actions with their screenshots, in order.',
    Type.Optional(Type.Array(TrajectoryStep)),
  ),
  recording: doc(
    'reconciler: the screen recording (MP4) of the session, once finalized.',
    Type.Optional(Artifact),
  ),
  collection: doc('API: the collection in progress, if any.', Type.Optional(TaskCollection)),
  appState: doc(
    'API: application state captured at save, for graders.',
    Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  ),
});

export const TaskSchema = resourceSchema('Task', TaskSpec, TaskStatus);
export type Task = Static<typeof TaskSchema>;

export const TaskKind: KindDefinition = {
  kind: 'Task',
  plural: 'tasks',
  singular: 'task',
  shortNames: ['tk'],
  scope: 'Namespaced',
  schema: TaskSchema,
  description: 'A recorded demonstration (trajectory) with its instruction, setup script and grader.',
  printerColumns: [
    { name: 'Category', type: 'string', jsonPath: '.spec.category' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  ],
};

/** Namespace: the account. A replay of a task on a fresh sandbox. */
export const ReplaySpec = Type.Object(
  {
    task: doc('user: the task to replay.', Type.String({ minLength: 1 })),
    reservation: doc('API: the reservation whose Macs run it.', Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export const ReplayStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `pending`, `running`, `completed`, `failed`.',
    Type.Optional(Type.Enum(['pending', 'running', 'completed', 'failed'])),
  ),
  sandbox: doc('reconciler: the sandbox the replay runs in.', Type.Optional(Type.String())),
  stepsDone: doc('reconciler: recorded actions replayed so far.', Type.Optional(Type.Integer())),
  reward: doc("reconciler: the grader's result (0 to 1), once completed.", Type.Optional(Type.Number())),
  grade: doc("reconciler: the grader's checks and how each went.", Type.Optional(GradeResult)),
  message: doc('reconciler: why the replay failed, for people.', Type.Optional(Type.String())),
});

export const ReplaySchema = resourceSchema('Replay', ReplaySpec, ReplayStatus);
export type Replay = Static<typeof ReplaySchema>;

export const ReplayKind: KindDefinition = {
  kind: 'Replay',
  plural: 'replays',
  singular: 'replay',
  shortNames: ['rp'],
  scope: 'Namespaced',
  schema: ReplaySchema,
  description: 'A replay of a recorded task on a fresh sandbox, with its reward.',
  printerColumns: [
    { name: 'Task', type: 'string', jsonPath: '.spec.task' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Reward', type: 'number', jsonPath: '.status.reward' },
  ],
};
