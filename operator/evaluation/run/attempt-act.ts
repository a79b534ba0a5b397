// `acting`: the agent endpoint acts on the sandbox (agent.ts), or the task's recorded actions are
// replayed with the act vocabulary (operator/replay/actions.ts), each written to the trajectory with
// the screenshot after it. The phase ends when the agent says it is done (its answer, or `POST
// /v1/sandboxes/{id}/done`), when its time is up, or when every action ran.
import type { EvaluationAttempt, EvaluationRun, Task } from '../../../crds/index.ts';
import { DEFAULT_AGENT_TIMEOUT_S } from '../../../crds/index.ts';
import { DriverError } from '../../../hosts/driver.ts';
import type { OperatorContext } from '../../context.ts';
import type { ReconcileResult } from '../../runtime/index.ts';
import { StepError, performStep } from '../../replay/actions.ts';
import { agentKey, callAgent, type AgentRequest } from './agent.ts';
import {
  attemptKey,
  end,
  guestOf,
  isLasting,
  nowIso,
  sandboxOf,
  sandboxProblem,
  transition,
  writeStatus,
} from './attempt-status.ts';
import { recordStep } from './trajectory.ts';

export async function act(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
  task: Task,
): Promise<ReconcileResult | void> {
  const problem = sandboxProblem(a, sandboxOf(ctx, a));
  if (problem) return void (await end(ctx, a, 'error', problem));
  return run.spec.mode === 'agent' ? agentActs(ctx, a, run, task) : replay(ctx, a, task);
}

/** Why the agent's part is over, for the result; undefined while it is not. */
function agentFinished(ctx: OperatorContext, a: EvaluationAttempt, timeoutS: number): string | undefined {
  const finish = a.spec.finish;
  if (finish?.outcome === 'done')
    return `the agent said it was done${finish.message ? ` (${finish.message})` : ''}`;
  if (finish?.outcome === 'gave_up')
    return `the agent gave up${finish.message ? ` (${finish.message})` : ''}`;
  if (a.status?.agentAnswer?.done) return 'the agent answered that it was done';
  const deadline = Date.parse(a.status?.agentDeadline ?? '');
  if (ctx.clock.now() >= deadline) return `the agent's ${timeoutS} s ran out; graded as the sandbox stood`;
  return undefined;
}

async function agentActs(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
  task: Task,
): Promise<ReconcileResult | void> {
  const timeoutS = run.spec.agent?.timeoutS ?? DEFAULT_AGENT_TIMEOUT_S;
  if (a.status?.agentCalledAt === undefined) {
    const called = await call(ctx, a, run, task, timeoutS);
    if (!called) return;
    a = called;
  }
  const finished = agentFinished(ctx, a, timeoutS);
  if (finished)
    return void (await transition(ctx, a, 'acted', { message: finished, gradingAt: nowIso(ctx) }));
  return { requeueAtMs: Date.parse(a.status!.agentDeadline!) };
}

/**
 * Calls the agent endpoint, at most once: the call's time, deadline and key are written before the
 * call is made. Answers the attempt as written after the answer; undefined once it ended.
 */
async function call(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
  task: Task,
  timeoutS: number,
): Promise<EvaluationAttempt | undefined> {
  const agent = run.spec.agent;
  const apiUrl = agent?.apiUrl ?? ctx.settings.apiUrl;
  if (!agent || !apiUrl) {
    await end(
      ctx,
      a,
      'error',
      agent
        ? 'the run does not say where agents reach sandbay (spec.agent.apiUrl)'
        : 'the run has no agent endpoint',
    );
    return undefined;
  }
  const ns = a.metadata.namespace!;
  const sandbox = a.status!.sandbox!;
  const deadlineMs = ctx.clock.now() + timeoutS * 1000;
  const deadline = new Date(deadlineMs).toISOString();
  const key = agentKey(ns, sandbox, deadline);
  a = await writeStatus(ctx, a, {
    agentCalledAt: nowIso(ctx),
    agentDeadline: deadline,
    agentKey: key.resource.metadata.name,
  });
  await ctx.client.create(key.resource);
  const base = apiUrl.replace(/\/+$/, '');
  const request: AgentRequest = {
    run_id: run.metadata.name,
    attempt_id: a.metadata.name,
    task_id: task.metadata.name,
    attempt: a.spec.attempt,
    instruction: task.spec.instruction,
    category: task.spec.category ?? null,
    sandbox_id: sandbox,
    api_url: base,
    api_key: key.plaintext,
    deadline,
    done_url: `${base}/v1/sandboxes/${sandbox}/done`,
  };
  ctx.logger.info({ attempt: attemptKey(a), url: agent.url }, 'calling the agent endpoint');
  // The wait is in real time (the agent's clock is the world's); the deadline checks use ctx.clock.
  const answer = await callAgent(ctx, agent.url, request, a.metadata.uid!, Date.now() + timeoutS * 1000);
  if (!answer.ok) {
    await end(ctx, a, 'error', answer.message);
    return undefined;
  }
  return writeStatus(ctx, a, { agentAnswer: { status: answer.status, done: answer.done } });
}

/** Replays the task's recorded actions from `stepsDone`, each written to the trajectory. */
async function replay(ctx: OperatorContext, a: EvaluationAttempt, task: Task): Promise<void> {
  const steps = [...(task.status?.steps ?? [])].sort((x, y) => x.index - y.index);
  const guest = guestOf(ctx, sandboxOf(ctx, a)!);
  try {
    for (let i = a.status?.stepsDone ?? 0; i < steps.length; i++) {
      // Cancelled or deleted meanwhile: stop driving a sandbox that is going away.
      const live = ctx.informers.evaluationAttempts.get(attemptKey(a));
      if (!live || live.metadata.deletionTimestamp || live.spec.cancel) return;
      const step = steps[i]!;
      try {
        await performStep(guest, step.function, step.args);
      } catch (err) {
        if (err instanceof StepError || (err instanceof DriverError && err.code === 'invalid_argument'))
          return void (await end(ctx, a, 'error', `step ${step.index} (${step.function}): ${err.message}`));
        throw err;
      }
      const doneAt = performance.now();
      await recordStep(
        ctx,
        a,
        guest,
        { index: i, at: nowIso(ctx), function: step.function, args: step.args },
        doneAt,
      );
      a = await writeStatus(ctx, a, { stepsDone: i + 1 });
    }
  } catch (err) {
    if (isLasting(err)) return void (await end(ctx, a, 'error', `${err.code}: ${err.message}`));
    throw err;
  }
  const n = steps.length;
  await transition(ctx, a, 'acted', {
    message: `replayed ${n} step${n === 1 ? '' : 's'}`,
    gradingAt: nowIso(ctx),
  });
}
