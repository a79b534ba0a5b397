// Wire shapes of evaluation runs (docs/evaluation.md, "Evaluation runs"): the create body, a run as
// the API shows it, and its results table.
import Type from 'typebox';
import {
  AttemptCounts,
  DEFAULT_AGENT_TIMEOUT_S,
  EVALUATION_MODES,
  EVALUATION_RUN_PHASES,
  MAX_AGENT_TIMEOUT_S,
  MAX_RUN_ATTEMPTS,
  MAX_RUN_TASKS,
} from '../../crds/index.ts';
import { Nullable } from './common.ts';

export const RUN_ID_PATTERN = '^ev-[0-9a-f]{16}$';

export const EvaluationRunCreateSchema = Type.Object(
  {
    tasks: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
      minItems: 1,
      maxItems: MAX_RUN_TASKS,
      description: "The account's tasks to run (ids); each needs a grader.",
    }),
    attempts: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RUN_ATTEMPTS,
        description: 'Attempts of each task (K), each on a fresh sandbox. Default 1.',
      }),
    ),
    mode: Type.Enum([...EVALUATION_MODES], {
      description: '`agent`: the agent endpoint acts; `replay`: each task’s recorded actions are replayed.',
    }),
    agent: Type.Optional(
      Type.Object(
        {
          url: Type.String({
            minLength: 1,
            maxLength: 2048,
            description: 'The HTTP(S) endpoint sandbay POSTs each attempt to.',
          }),
          timeout_s: Type.Optional(
            Type.Number({
              exclusiveMinimum: 0,
              maximum: MAX_AGENT_TIMEOUT_S,
              description: `How long the agent may act on one attempt (default ${DEFAULT_AGENT_TIMEOUT_S}).`,
            }),
          ),
        },
        { additionalProperties: false, description: 'The agent endpoint (mode `agent`).' },
      ),
    ),
    reservation_id: Type.Optional(
      Type.String({ description: 'The reservation whose Macs run the attempts (default: the only one).' }),
    ),
    concurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        description: "At most this many attempts at once; the reservation's capacity bounds it anyway.",
      }),
    ),
    pass_threshold: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, description: 'A reward at or above this passes (default 1).' }),
    ),
    record: Type.Optional(
      Type.Boolean({ description: 'Keep a screen recording of each attempt (default true).' }),
    ),
  },
  { additionalProperties: false },
);

export const EvaluationRunSchema = Type.Object({
  id: Type.String({ description: 'The run id (`ev-` and 16 hex digits).' }),
  status: Type.Enum([...EVALUATION_RUN_PHASES], {
    description: '`pending`, `running`, `completed` (every attempt ended) or `cancelled`.',
  }),
  mode: Type.Enum([...EVALUATION_MODES], { description: '`agent` or `replay`.' }),
  tasks: Type.Array(Type.String(), { description: 'The tasks run, by id, in order.' }),
  attempts: Type.Integer({ description: 'Attempts of each task (K).' }),
  reservation_id: Type.String({ description: 'The reservation whose Macs run the attempts.' }),
  agent_url: Nullable(Type.String(), { description: 'The agent endpoint; null in replay mode.' }),
  concurrency: Nullable(Type.Integer(), { description: 'The bound asked for; null: the capacity’s.' }),
  pass_threshold: Type.Number({ description: 'A reward at or above this passes.' }),
  cancelled: Type.Boolean({ description: 'A cancel was asked for.' }),
  counts: Type.Object(AttemptCounts.properties, { description: 'The attempts by outcome.' }),
  message: Nullable(Type.String(), {
    description: 'What the run is waiting for, or how it ended, for people.',
  }),
  created_at: Nullable(Type.String({ format: 'date-time' }), { description: 'When it was created.' }),
  started_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'When its first attempt was created.',
  }),
  completed_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'When it completed or was cancelled.',
  }),
});

export const RunParams = Type.Object({
  runID: Type.String({ maxLength: 64, description: 'The run id, as the create answered it.' }),
});

const PassRateSchema = Type.Object(
  {
    attempts: Type.Integer({ description: 'Attempts in the group.' }),
    graded: Type.Integer({ description: 'Passed + failed.' }),
    passed: Type.Integer({ description: 'Graded at or above the pass threshold.' }),
    errored: Type.Integer({ description: 'Ended without a grade.' }),
    pass_rate: Nullable(Type.Number(), {
      description: 'Passed of those that ended (passed, failed, errored); null before any.',
    }),
    mean_reward: Nullable(Type.Number(), { description: 'Mean reward of the graded; null before any.' }),
  },
  { description: 'Pass rate of a group of attempts.' },
);

const dateTime = (description: string) => Nullable(Type.String({ format: 'date-time' }), { description });

export const ResultRowSchema = Type.Object({
  task: Type.String({ description: 'The task attempted.' }),
  category: Nullable(Type.String(), { description: 'Its category; null when none.' }),
  attempt: Type.Integer({ description: 'Which attempt of the task (1 to K).' }),
  attempt_id: Nullable(Type.String(), { description: 'The attempt; null until it is created.' }),
  outcome: Type.Enum(['queued', 'running', 'passed', 'failed', 'errored', 'cancelled'], {
    description: 'What it came to (`queued`: not started yet).',
  }),
  phase: Nullable(Type.String(), {
    description: 'The attempt’s phase (`waiting`, `starting`, `setup`, `acting`, `grading`, …).',
  }),
  reward: Nullable(Type.Number(), { description: 'The grader’s reward; null until graded.' }),
  message: Nullable(Type.String(), {
    description: 'Why it passed, failed or errored, or what it waits for.',
  }),
  sandbox_id: Nullable(Type.String(), { description: 'The sandbox it ran in (deleted once it ended).' }),
  trajectory_id: Nullable(Type.String(), {
    description: 'The task holding its trajectory and recording (`/v1/me/tasks/{id}/…`).',
  }),
  duration_s: Nullable(Type.Number(), { description: 'From its sandbox running to its end, in seconds.' }),
  started_at: dateTime('When its sandbox was written.'),
  finished_at: dateTime('When it ended.'),
});

export const RunResultsSchema = Type.Object({
  run: Type.Object(EvaluationRunSchema.properties, { description: 'The run, with live counts.' }),
  rows: Type.Array(ResultRowSchema, { description: 'One per (task, attempt), in task order.' }),
  by_task: Type.Record(Type.String(), PassRateSchema, { description: 'Pass rates by task id.' }),
  by_category: Type.Record(Type.String(), PassRateSchema, {
    description: 'Pass rates by category (`(none)` for tasks without one).',
  }),
  overall: PassRateSchema,
});

export const FinishSchema = Type.Object(
  {
    outcome: Type.Optional(Type.Enum(['done', 'gave_up'], { description: '`done` (default) or `gave_up`.' })),
    message: Type.Optional(Type.String({ maxLength: 2000, description: 'What the agent says, for people.' })),
  },
  { additionalProperties: false },
);
