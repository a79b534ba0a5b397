import Type, { type Static } from 'typebox';
import { StatusBase, resourceSchema, type KindDefinition } from './meta.ts';
import { Artifact } from './snapshot.ts';

/** One recorded action: the tool call and the screenshot observed after it. */
export const TrajectoryStep = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  at: Type.String(),
  function: Type.String(),
  args: Type.Record(Type.String(), Type.Unknown()),
  screenshot: Type.Optional(Artifact),
});

/** Namespace: the account. A recorded demonstration (trajectory) and what is needed to replay it. */
export const TaskSpec = Type.Object(
  {
    /** user: what the demonstrator was asked to do. */
    instruction: Type.String(),
    category: Type.Optional(Type.String()),
    /** user: shell script run before recording (and before replay). */
    setupScript: Type.Optional(Type.String()),
    /** user: shell script whose exit code 0 means success (reward 1). */
    grader: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const TaskStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum(['recording', 'saved', 'finalizing', 'ready', 'failed'])),
  steps: Type.Optional(Type.Array(TrajectoryStep)),
  recording: Type.Optional(Artifact),
  appState: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
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
    /** user: the task to replay. */
    task: Type.String({ minLength: 1 }),
    /** API: the reservation whose Macs run it. */
    reservation: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
);

export const ReplayStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum(['pending', 'running', 'completed', 'failed'])),
  sandbox: Type.Optional(Type.String()),
  stepsDone: Type.Optional(Type.Integer()),
  reward: Type.Optional(Type.Number()),
  message: Type.Optional(Type.String()),
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
