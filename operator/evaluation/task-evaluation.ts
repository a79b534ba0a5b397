// A Task's setup and grader as the runners take them. The original forms become one kind of each:
// the setup script is a `command` step run first (then `spec.setup`), and a grader script is a
// grader of one `command` check (exit 0 → reward 1). The collector, the replay reconciler and
// `POST …/setup` / `…/grade` with a `task_id` all read a task through here, so they agree.
import {
  DEFAULT_EVALUATION_TIMEOUT_S,
  type GradeResult,
  type Grader,
  type SetupResult,
  type SetupStep,
  type Task,
} from '../../crds/index.ts';
import { graderOf } from './validate.ts';

/** A task's setup script, like its whole setup, may take 10 minutes (what it always could). */
export const TASK_SETUP_TIMEOUT_S = DEFAULT_EVALUATION_TIMEOUT_S;
export const TASK_GRADER_TIMEOUT_S = DEFAULT_EVALUATION_TIMEOUT_S;

/** The task's setup as steps: its script (if any) first, then its steps. */
export function taskSetupSteps(task: Task): SetupStep[] {
  const script = task.spec.setupScript;
  const first: SetupStep[] =
    script !== undefined && script.trim() !== ''
      ? [{ type: 'command', command: script, timeout_s: TASK_SETUP_TIMEOUT_S }]
      : [];
  return [...first, ...(task.spec.setup ?? [])];
}

/** Whether the step at `index` of taskSetupSteps(task) is the task's setup script. */
export function isScriptStep(task: Task, index: number): boolean {
  const script = task.spec.setupScript;
  return index === 0 && script !== undefined && script.trim() !== '';
}

/** The task's grader as a Grader; undefined without one. */
export function taskGrader(task: Task): Grader | undefined {
  const g = task.spec.grader;
  return g === undefined ? undefined : graderOf(g, TASK_GRADER_TIMEOUT_S);
}

/**
 * A failed task setup for people: `setup script exited with 3, expected 0: …` for the script (as
 * replays always said), `setup step 2 (launch) failed: …` for a step.
 */
export function setupFailureText(task: Task, result: SetupResult): string {
  const i = result.failed_step;
  if (i === null) return result.message;
  const step = result.steps[i]!;
  if (isScriptStep(task, i)) return `setup script ${step.message ?? 'failed'}`;
  return `setup ${result.message}`;
}

/** A grading for people: `grader exited with 0` for a script, `grader: reward 0.5 (1 of 2 checks passed)` otherwise. */
export function gradeText(task: Task, result: GradeResult): string {
  if (typeof task.spec.grader === 'string') {
    const check = result.checks[0];
    if (check?.exit_code !== undefined && !check.message.startsWith('timed out'))
      return `grader exited with ${check.exit_code}`;
    return `grader ${check?.message ?? 'failed'}`;
  }
  const passed = result.checks.filter((c) => c.passed).length;
  return `grader: reward ${result.reward} (${passed} of ${result.checks.length} checks passed)`;
}
