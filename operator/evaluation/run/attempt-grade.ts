// `grading`: the agent's time is over (its key is dropped, its collection closed with what was
// recorded), the task's grader runs on the sandbox as it stands, the screen recording is stored with
// the trajectory, and the attempt completes with its reward; a reward at or above the run's pass
// threshold passes. The sandbox is deleted (transition → cleanUp).
import type { EvaluationAttempt, EvaluationRun, GradeResult, Task } from '../../../crds/index.ts';
import type { OperatorContext } from '../../context.ts';
import { dropAgentKey } from './agent.ts';
import { end, guestOf, isLasting, sandboxOf, sandboxProblem, transition } from './attempt-status.ts';
import { runGrader } from '../graders.ts';
import { TASK_GRADER_TIMEOUT_S, gradeText, taskGrader } from '../task-evaluation.ts';
import { stopCollection, storeScreenRecording } from './trajectory.ts';

/** The checks that did not pass, named, with why (a script grader's exit code says it already). */
function failedChecks(task: Task, result: GradeResult): string {
  if (typeof task.spec.grader === 'string') return '';
  const failed = result.checks.filter((c) => !c.passed);
  const shown = failed
    .slice(0, 3)
    .map((c) => `check ${c.index} (${c.name ?? c.type}): ${c.message}`)
    .join('; ');
  return failed.length === 0 ? '' : `; ${shown}${failed.length > 3 ? `; and ${failed.length - 3} more` : ''}`;
}

export async function grade(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
  task: Task,
): Promise<void> {
  const sandbox = sandboxOf(ctx, a);
  const problem = sandboxProblem(a, sandbox);
  if (problem) return void (await end(ctx, a, 'error', problem));
  if (run.spec.mode === 'agent') {
    // Nothing the agent does from here on counts: its key goes, its recorded calls are saved.
    await dropAgentKey(ctx, a.status?.agentKey);
    await stopCollection(ctx, a);
  }
  const grader = taskGrader(task);
  if (!grader) return void (await end(ctx, a, 'error', `task ${task.metadata.name} has no grader`));
  const guest = guestOf(ctx, sandbox!);
  try {
    const result = await runGrader({ guest }, grader, TASK_GRADER_TIMEOUT_S);
    if (a.status?.recordingId) await storeScreenRecording(ctx, a, guest, a.status.recordingId);
    const passed = result.reward >= (run.spec.passThreshold ?? 1);
    const acted = a.status?.message;
    await transition(ctx, a, 'graded', {
      reward: result.reward,
      passed,
      grade: result,
      message: `${passed ? 'passed' : 'failed'}: ${acted ? `${acted}; ` : ''}${gradeText(task, result)}${failedChecks(task, result)}`,
    });
  } catch (err) {
    if (isLasting(err)) return void (await end(ctx, a, 'error', `grading: ${err.code}: ${err.message}`));
    throw err;
  }
}
