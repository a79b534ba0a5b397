// The evaluation attempt reconciler: one task, one attempt, one fresh sandbox. Its phases
// (states.ts) are each a small step: waiting → starting (attempt-start.ts) → setup → acting
// (attempt-act.ts) → grading (attempt-grade.ts) → completed, or errored / cancelled with why.
//
// Progress lives in the status, so a restart resumes: the sandbox is named before it is written
// (never two for one attempt), the agent is called at most once (its call time is written first),
// a replayed action is counted after it ran (a crash repeats at most that one), and a setup or a
// grading cut short runs again. A finished attempt has no sandbox and no agent key left; reconciling
// it again writes nothing.
import type { EvaluationAttempt } from '../../../crds/index.ts';
import type { OperatorContext } from '../../context.ts';
import type { ReconcileFn } from '../../runtime/index.ts';
import { act } from './attempt-act.ts';
import { grade } from './attempt-grade.ts';
import { claim, follow, setUp } from './attempt-start.ts';
import { cleanUp, end } from './attempt-status.ts';
import { FINISHED_PHASES } from './states.ts';

export function attemptReconciler(ctx: OperatorContext): ReconcileFn {
  return async (key) => {
    const a = ctx.informers.evaluationAttempts.get(key);
    // A deleted attempt takes its sandbox and trajectory with it (owner references).
    if (!a || a.metadata.deletionTimestamp) return;
    const phase = a.status?.phase ?? 'waiting';
    if (FINISHED_PHASES.has(phase)) return cleanUp(ctx, a);
    const ns = a.metadata.namespace!;
    const run = ctx.informers.evaluationRuns.get(`${ns}/${a.spec.run}`);
    if (!run || run.metadata.deletionTimestamp) return;
    if (a.spec.cancel) return void (await end(ctx, a, 'cancel', 'the run was cancelled'));
    if (phase === 'waiting') return claim(ctx, a, run);
    if (phase === 'starting') return follow(ctx, a, run);
    const task = ctx.informers.tasks.get(`${ns}/${a.spec.task}`);
    if (!task || task.metadata.deletionTimestamp)
      return void (await end(ctx, a, 'error', `task ${a.spec.task} not found`));
    if (phase === 'setup') return setUp(ctx, a, run, task);
    if (phase === 'acting') return act(ctx, a, run, task);
    return grade(ctx, a, run, task);
  };
}

/** The attempts a sandbox's change concerns: the one owning it. */
export function attemptsOwning(o: { metadata: EvaluationAttempt['metadata'] }): string[] {
  return (o.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === 'EvaluationAttempt')
    .map((r) => `${o.metadata.namespace ?? ''}/${r.name}`);
}
