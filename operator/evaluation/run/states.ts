// The evaluation run's and its attempts' lifecycles as transition tables (docs/evaluation.md,
// "Evaluation runs"). The reconcilers move an object only through `transition()`; a test walks
// every cell (test/operator-states.test.ts).
import type { AttemptPhase, EvaluationRunPhase } from '../../../crds/index.ts';
import { stateMachine } from '../../runtime/fsm.ts';

export const RUN_EVENTS = [
  /** The run reconciler created its first attempt. */
  'start',
  /** Every attempt of N × K finished (completed, errored or cancelled). */
  'finish',
  /** `spec.cancel`, once no attempt is running any more. */
  'cancel',
] as const;
export type RunEvent = (typeof RUN_EVENTS)[number];

export const runMachine = stateMachine<EvaluationRunPhase, RunEvent>(
  'EvaluationRun',
  ['pending', 'running', 'completed', 'cancelled'],
  RUN_EVENTS,
  {
    pending: { start: 'running', cancel: 'cancelled' },
    running: { finish: 'completed', cancel: 'cancelled' },
    completed: {},
    cancelled: {},
  },
);

export const ATTEMPT_EVENTS = [
  /** A VM is free for it: its sandbox is named and written. */
  'claim',
  /** Its sandbox was refused for want of room (another create took the VM first): wait again. */
  'refused',
  /** Its sandbox is running. */
  'running',
  /** The task's setup succeeded. */
  'setUp',
  /** The agent said it finished, its time ran out, or the replay carried out every action. */
  'acted',
  /** The grader ran. */
  'graded',
  /**
   * It cannot be graded: the setup failed, the agent endpoint refused the call, a recorded action
   * cannot be carried out, its sandbox failed or went away, its task or reservation is gone.
   */
  'error',
  /** The run was cancelled. */
  'cancel',
] as const;
export type AttemptEvent = (typeof ATTEMPT_EVENTS)[number];

const ACTIVE = { error: 'errored', cancel: 'cancelled' } as const;

export const attemptMachine = stateMachine<AttemptPhase, AttemptEvent>(
  'EvaluationAttempt',
  ['waiting', 'starting', 'setup', 'acting', 'grading', 'completed', 'errored', 'cancelled'],
  ATTEMPT_EVENTS,
  {
    waiting: { claim: 'starting', ...ACTIVE },
    starting: { refused: 'waiting', running: 'setup', ...ACTIVE },
    setup: { setUp: 'acting', ...ACTIVE },
    acting: { acted: 'grading', ...ACTIVE },
    grading: { graded: 'completed', ...ACTIVE },
    completed: {},
    errored: {},
    cancelled: {},
  },
);

/** Phases an attempt ends in. */
export const FINISHED_PHASES: ReadonlySet<AttemptPhase> = new Set(['completed', 'errored', 'cancelled']);
