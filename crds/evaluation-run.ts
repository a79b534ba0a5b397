// Evaluation runs (docs/evaluation.md, "Evaluation runs"): N tasks × an agent (or a replay of each
// task's recorded actions) × K attempts, on the Macs of one reservation. The run is a resource the
// user writes; the run reconciler (operator/evaluation/run/) creates one EvaluationAttempt per
// (task, attempt) as the reservation's capacity allows, as a Kubernetes Job creates its Pods; each
// attempt's reconciler boots its own sandbox, sets the task up, lets the agent act (or replays),
// grades, keeps the trajectory and recording in a Task of its own, and deletes the sandbox.
import Type, { type Static } from 'typebox';
import { GradeResult } from './grader.ts';
import { SetupResult } from './setup-step.ts';
import { DateTime, doc, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

/** At most this many tasks in one run, and attempts of each. */
export const MAX_RUN_TASKS = 1000;
export const MAX_RUN_ATTEMPTS = 100;
/** How long an agent may act on one attempt unless the run says otherwise, and at most. */
export const DEFAULT_AGENT_TIMEOUT_S = 1800;
export const MAX_AGENT_TIMEOUT_S = 24 * 3600;

export const EVALUATION_MODES = ['agent', 'replay'] as const;
export type EvaluationMode = (typeof EVALUATION_MODES)[number];

/** Label on a run's attempts, their sandboxes and their trajectories: the run's name. */
export const EVALUATION_RUN_LABEL = 'sandbay.io/evaluation-run';

export const AgentEndpoint = Type.Object(
  {
    url: doc(
      'user: the HTTP(S) endpoint sandbay POSTs each attempt to (docs/evaluation.md, "The agent endpoint").',
      Type.String({ minLength: 1, maxLength: 2048 }),
    ),
    apiUrl: doc(
      'API: the sandbay API address the agent is told to call (default: the address the run was created through).',
      Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    ),
    timeoutS: doc(
      `user: how long the agent may act on one attempt before it is graded as it stands (default ${DEFAULT_AGENT_TIMEOUT_S}).`,
      Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: MAX_AGENT_TIMEOUT_S })),
    ),
  },
  { additionalProperties: false },
);
export type AgentEndpoint = Static<typeof AgentEndpoint>;

/** Namespace: the account. */
export const EvaluationRunSpec = Type.Object(
  {
    tasks: doc(
      "user: the account's tasks to run, by id; each is attempted `attempts` times.",
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: MAX_RUN_TASKS }),
    ),
    attempts: doc(
      'user: attempts of each task (K), each on a fresh sandbox.',
      Type.Integer({ minimum: 1, maximum: MAX_RUN_ATTEMPTS }),
    ),
    mode: doc(
      '`agent`: an agent endpoint acts; `replay`: each task’s recorded actions are replayed.',
      Type.Enum([...EVALUATION_MODES]),
    ),
    agent: doc('user: the agent endpoint (mode `agent`).', Type.Optional(AgentEndpoint)),
    reservation: doc('API: the reservation whose Macs run the attempts.', Type.String({ minLength: 1 })),
    concurrency: doc(
      "user: at most this many attempts at once; the reservation's capacity bounds it in any case.",
      Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    ),
    passThreshold: doc(
      'user: a reward at or above this passes (default 1).',
      Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    ),
    record: doc(
      'user: keep a screen recording (MP4) of each attempt (default true).',
      Type.Optional(Type.Boolean()),
    ),
    cancel: doc(
      'user: stop the run: no attempt starts any more, the running ones stop (cancelled), results stay.',
      Type.Optional(Type.Boolean()),
    ),
  },
  { additionalProperties: false },
);
export type EvaluationRunSpec = Static<typeof EvaluationRunSpec>;

export const EVALUATION_RUN_PHASES = ['pending', 'running', 'completed', 'cancelled'] as const;
export type EvaluationRunPhase = (typeof EVALUATION_RUN_PHASES)[number];

export const AttemptCounts = Type.Object({
  total: doc('N × K.', Type.Integer()),
  queued: doc('Not started yet (no capacity yet, or waiting their turn).', Type.Integer()),
  running: doc('Started, not finished.', Type.Integer()),
  passed: doc('Graded with a reward at or above the pass threshold.', Type.Integer()),
  failed: doc('Graded below it.', Type.Integer()),
  errored: doc('Could not be graded (setup failed, the agent could not be reached, …).', Type.Integer()),
  cancelled: doc('Stopped by a cancel, or never started because the run was cancelled.', Type.Integer()),
});
export type AttemptCounts = Static<typeof AttemptCounts>;

export const EvaluationRunStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `pending`, `running`, `completed` (every attempt finished) or `cancelled`.',
    Type.Optional(Type.Enum([...EVALUATION_RUN_PHASES])),
  ),
  counts: doc('reconciler: the attempts by state.', Type.Optional(AttemptCounts)),
  startedAt: doc('reconciler: when the first attempt was created.', Type.Optional(DateTime)),
  completedAt: doc('reconciler: when the run completed or was cancelled.', Type.Optional(DateTime)),
  message: doc(
    'reconciler: what the run is waiting for, or how it ended, for people.',
    Type.Optional(Type.String()),
  ),
});

export const EvaluationRunSchema = resourceSchema('EvaluationRun', EvaluationRunSpec, EvaluationRunStatus);
export type EvaluationRun = Static<typeof EvaluationRunSchema>;

export const EvaluationRunKind: KindDefinition = {
  kind: 'EvaluationRun',
  plural: 'evaluationruns',
  singular: 'evaluationrun',
  shortNames: ['evr'],
  scope: 'Namespaced',
  schema: EvaluationRunSchema,
  description: 'N tasks × an agent (or a replay) × K attempts on fresh sandboxes, with their rewards.',
  printerColumns: [
    { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Total', type: 'integer', jsonPath: '.status.counts.total' },
    { name: 'Passed', type: 'integer', jsonPath: '.status.counts.passed' },
  ],
};

/** Namespace: the account. Name: `<run>-<index>`. Owned by its run. */
export const EvaluationAttemptSpec = Type.Object(
  {
    run: doc('run reconciler: the run it belongs to.', Type.String({ minLength: 1 })),
    task: doc('run reconciler: the task attempted.', Type.String({ minLength: 1 })),
    attempt: doc('run reconciler: which attempt of the task (1 to K).', Type.Integer({ minimum: 1 })),
    index: doc(
      'run reconciler: its place in the run, in the order attempts start (attempt-major).',
      Type.Integer({ minimum: 0 }),
    ),
    cancel: doc('run reconciler: the run was cancelled: stop.', Type.Optional(Type.Boolean())),
    finish: doc(
      'API: the agent said it finished (`POST /v1/sandboxes/{id}/done`).',
      Type.Optional(
        Type.Object(
          {
            outcome: doc(
              '`done`, or `gave_up` (the agent stopped without finishing).',
              Type.Enum(['done', 'gave_up']),
            ),
            message: doc('What the agent said, for people.', Type.Optional(Type.String({ maxLength: 2000 }))),
            at: doc('When it said so.', DateTime),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

export const ATTEMPT_PHASES = [
  'waiting',
  'starting',
  'setup',
  'acting',
  'grading',
  'completed',
  'errored',
  'cancelled',
] as const;
export type AttemptPhase = (typeof ATTEMPT_PHASES)[number];

export const EvaluationAttemptStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `waiting` (for a VM), `starting` (its sandbox boots), `setup`, `acting`, `grading`, then `completed` (graded), `errored` or `cancelled`.',
    Type.Optional(Type.Enum([...ATTEMPT_PHASES])),
  ),
  sandbox: doc(
    'reconciler: the sandbox it runs in (named before it is written).',
    Type.Optional(Type.String()),
  ),
  trajectory: doc('reconciler: the Task holding its trajectory and recording.', Type.Optional(Type.String())),
  agentKey: doc('reconciler: the ApiKey (a `sandbox` key) given to the agent.', Type.Optional(Type.String())),
  agentCalledAt: doc(
    'reconciler: when the agent endpoint was called (at most once).',
    Type.Optional(DateTime),
  ),
  agentDeadline: doc('reconciler: when the agent’s time is up.', Type.Optional(DateTime)),
  agentAnswer: doc(
    'reconciler: how the agent endpoint answered the call.',
    Type.Optional(
      Type.Object({
        status: Type.Integer({ description: "The HTTP status of the agent endpoint's answer." }),
        done: Type.Boolean({ description: 'Whether the agent said it finished (`{"done": true}`).' }),
      }),
    ),
  ),
  stepsDone: doc('reconciler: replay: recorded actions carried out.', Type.Optional(Type.Integer())),
  recordingId: doc(
    "reconciler: the sandbox's screen recording of the attempt.",
    Type.Optional(Type.String()),
  ),
  setup: doc('reconciler: how the setup went.', Type.Optional(SetupResult)),
  reward: doc('reconciler: the grader’s reward (0 to 1), once graded.', Type.Optional(Type.Number())),
  passed: doc(
    'reconciler: the reward is at or above the run’s pass threshold.',
    Type.Optional(Type.Boolean()),
  ),
  grade: doc('reconciler: each check of the grader and how it went.', Type.Optional(GradeResult)),
  message: doc(
    'reconciler: what happened, for people: why it passed, failed or errored.',
    Type.Optional(Type.String()),
  ),
  waitingFor: doc(
    'reconciler: what a waiting attempt waits for (the scheduler’s answer).',
    Type.Optional(Type.String()),
  ),
  claimedAt: doc('reconciler: when its sandbox was written (a VM was free).', Type.Optional(DateTime)),
  runningAt: doc('reconciler: when its sandbox was running.', Type.Optional(DateTime)),
  actingAt: doc('reconciler: when setup ended and the agent (or replay) began.', Type.Optional(DateTime)),
  gradingAt: doc('reconciler: when grading began.', Type.Optional(DateTime)),
  finishedAt: doc('reconciler: when it completed, errored or was cancelled.', Type.Optional(DateTime)),
});

export const EvaluationAttemptSchema = resourceSchema(
  'EvaluationAttempt',
  EvaluationAttemptSpec,
  EvaluationAttemptStatus,
);
export type EvaluationAttempt = Static<typeof EvaluationAttemptSchema>;

export const EvaluationAttemptKind: KindDefinition = {
  kind: 'EvaluationAttempt',
  plural: 'evaluationattempts',
  singular: 'evaluationattempt',
  shortNames: ['eva'],
  scope: 'Namespaced',
  schema: EvaluationAttemptSchema,
  description: 'One attempt of one task of an evaluation run: its sandbox, trajectory and reward.',
  printerColumns: [
    { name: 'Task', type: 'string', jsonPath: '.spec.task' },
    { name: 'Attempt', type: 'integer', jsonPath: '.spec.attempt' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Reward', type: 'number', jsonPath: '.status.reward' },
  ],
};
