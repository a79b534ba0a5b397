// Wire shapes of `POST …/setup` and `POST …/grade`: the steps and graders are crds/'s own schemas
// (one source for tasks, these routes and the importers); the results likewise.
import Type from 'typebox';
import { MAX_STEP_TIMEOUT_S, SetupSteps, TaskGrader } from '../../crds/index.ts';

const taskId = Type.String({
  minLength: 1,
  maxLength: 253,
  description: 'A task of the account (account key): its setup (script, then steps) or its grader.',
});

const timeout = (what: string) =>
  Type.Number({
    exclusiveMinimum: 0,
    maximum: MAX_STEP_TIMEOUT_S,
    description: `The deadline of the whole ${what}, in seconds (default 600, at most ${MAX_STEP_TIMEOUT_S}).`,
  });

export const SetupRequestSchema = Type.Object(
  {
    steps: Type.Optional(SetupSteps),
    task_id: Type.Optional(taskId),
    timeout_s: Type.Optional(timeout('setup')),
  },
  { additionalProperties: false, description: 'Exactly one of `steps` and `task_id`.' },
);

export const GradeRequestSchema = Type.Object(
  {
    grader: Type.Optional(TaskGrader),
    task_id: Type.Optional(taskId),
    timeout_s: Type.Optional(timeout('grading')),
  },
  { additionalProperties: false, description: 'Exactly one of `grader` and `task_id`.' },
);
