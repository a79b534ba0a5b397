// Evaluation runs as the API serves them (docs/evaluation.md, "Evaluation runs"). The API writes an
// EvaluationRun and answers; the run reconciler (operator/evaluation/run/) admits its attempts as
// the reservation's capacity allows and each attempt's reconciler carries it out. The results table
// is laid out from the attempts by the same pure function the reconciler counts with.
import { randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import {
  API_VERSION,
  EVALUATION_RUN_LABEL,
  type EvaluationAttempt,
  type EvaluationRun,
  type Sandbox,
  type Task,
} from '../../crds/index.ts';
import { countAttempts, runResults, type RunResults } from '../../operator/evaluation/run/results.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { EvaluationRunCreateSchema } from '../schemas/evaluation-runs.ts';
import { RUN_ID_PATTERN } from '../schemas/evaluation-runs.ts';
import type { ApiContext } from './context.ts';
import { RESERVATION_LABEL, reservationForCreate } from './reservations.ts';
import { findSandbox } from './sandboxes.ts';
import { findTask } from './tasks.ts';

const RUN_ID = new RegExp(RUN_ID_PATTERN);

export type RunCreate = Static<typeof EvaluationRunCreateSchema>;

/**
 * Writes the run. Every task must exist and have a grader, and in replay mode a saved trajectory;
 * the first that does not is named in the error and nothing is written. `apiUrl`: where the agent
 * reaches sandbay (the address the run was created through).
 */
export async function createRun(
  ctx: ApiContext,
  principal: Principal,
  body: RunCreate,
  apiUrl: string,
): Promise<EvaluationRun> {
  if (body.mode === 'agent' && !body.agent)
    throw new ApiError('invalid_evaluation_run', 'mode `agent` needs `agent.url`.');
  if (body.mode === 'replay' && body.agent)
    throw new ApiError('invalid_evaluation_run', 'mode `replay` takes no `agent`.');
  for (const id of new Set(body.tasks)) {
    const task = await findTask(ctx, principal, id).catch((err: unknown) => {
      if (err instanceof ApiError) throw new ApiError('task_not_found', `Task ${id} not found.`);
      throw err;
    });
    if (task.spec.grader === undefined)
      throw new ApiError(
        'invalid_evaluation_run',
        `Task ${id} has no grader: an attempt could not be graded.`,
      );
    const phase = task.status?.phase;
    if (body.mode === 'replay' && (phase === 'recording' || phase === 'failed'))
      throw new ApiError(
        'task_not_ready',
        `Task ${id} is ${phase}: only a saved trajectory can be replayed.`,
      );
  }
  const reservation = await reservationForCreate(ctx, principal, body.reservation_id);
  const run = await ctx.store.create<EvaluationRun>({
    apiVersion: API_VERSION,
    kind: 'EvaluationRun',
    metadata: {
      name: `ev-${randomBytes(8).toString('hex')}`,
      namespace: principal.account,
      labels: { [RESERVATION_LABEL]: reservation.metadata.name },
    },
    spec: {
      tasks: body.tasks,
      attempts: body.attempts ?? 1,
      mode: body.mode,
      reservation: reservation.metadata.name,
      ...(body.agent && {
        agent: {
          url: body.agent.url,
          apiUrl,
          ...(body.agent.timeout_s !== undefined && { timeoutS: body.agent.timeout_s }),
        },
      }),
      ...(body.concurrency !== undefined && { concurrency: body.concurrency }),
      ...(body.pass_threshold !== undefined && { passThreshold: body.pass_threshold }),
      ...(body.record !== undefined && { record: body.record }),
    },
  });
  ctx.operatorHooks?.written?.('EvaluationRun', `${principal.account}/${run.metadata.name}`);
  return run;
}

export async function findRun(ctx: ApiContext, principal: Principal, id: string): Promise<EvaluationRun> {
  if (!RUN_ID.test(id)) throw new ApiError('evaluation_run_not_found');
  const run = await ctx.store.get<EvaluationRun>({
    kind: 'EvaluationRun',
    namespace: principal.account,
    name: id,
  });
  // A reservation key sees the runs of its reservation only.
  if (!run || (principal.reservation !== undefined && run.spec.reservation !== principal.reservation))
    throw new ApiError('evaluation_run_not_found');
  return run;
}

export async function listRuns(ctx: ApiContext, principal: Principal): Promise<EvaluationRun[]> {
  const { items } = await ctx.store.list<EvaluationRun>('EvaluationRun', { namespace: principal.account });
  return items
    .filter((r) => principal.reservation === undefined || r.spec.reservation === principal.reservation)
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
}

async function attemptsOf(ctx: ApiContext, run: EvaluationRun): Promise<EvaluationAttempt[]> {
  const { items } = await ctx.store.list<EvaluationAttempt>('EvaluationAttempt', {
    namespace: run.metadata.namespace!,
    labelSelector: `${EVALUATION_RUN_LABEL}=${run.metadata.name}`,
  });
  return items.filter((a) => (a.metadata.ownerReferences ?? []).some((r) => r.uid === run.metadata.uid));
}

/** A run as the API shows it; `attempts` (when read) give live counts before the reconciler writes them. */
export function runWire(run: EvaluationRun, attempts?: readonly EvaluationAttempt[]) {
  const s = run.status;
  return {
    id: run.metadata.name,
    status: s?.phase ?? 'pending',
    mode: run.spec.mode,
    tasks: run.spec.tasks,
    attempts: run.spec.attempts,
    reservation_id: run.spec.reservation,
    agent_url: run.spec.agent?.url ?? null,
    concurrency: run.spec.concurrency ?? null,
    pass_threshold: run.spec.passThreshold ?? 1,
    cancelled: run.spec.cancel === true,
    counts: attempts ? countAttempts(run, attempts) : (s?.counts ?? countAttempts(run, [])),
    message: s?.message ?? null,
    created_at: run.metadata.creationTimestamp ?? null,
    started_at: s?.startedAt ?? null,
    completed_at: s?.completedAt ?? null,
  };
}

/** The results table: one row per (task, attempt), with pass rates per task and per category. */
export async function resultsOf(
  ctx: ApiContext,
  run: EvaluationRun,
): Promise<RunResults & { run: ReturnType<typeof runWire> }> {
  const attempts = await attemptsOf(ctx, run);
  const { items: tasks } = await ctx.store.list<Task>('Task', { namespace: run.metadata.namespace! });
  const byName = new Map(tasks.map((t) => [t.metadata.name, t]));
  return { run: runWire(run, attempts), ...runResults(run, attempts, (n) => byName.get(n)) };
}

/** Asks the run to stop: no attempt starts any more, the running ones stop; the results stay. */
export async function cancelRun(ctx: ApiContext, principal: Principal, id: string): Promise<EvaluationRun> {
  const run = await findRun(ctx, principal, id);
  if (run.spec.cancel) return run;
  const patched = await ctx.store.patch<EvaluationRun>(
    { kind: 'EvaluationRun', namespace: principal.account, name: id },
    { spec: { cancel: true } },
  );
  ctx.operatorHooks?.written?.('EvaluationRun', `${principal.account}/${id}`);
  return patched;
}

/** Deletes the run with its attempts, their sandboxes and their trajectories (owner references). */
export async function deleteRun(ctx: ApiContext, principal: Principal, id: string): Promise<void> {
  await findRun(ctx, principal, id);
  await ctx.store.delete({ kind: 'EvaluationRun', namespace: principal.account, name: id });
}

/**
 * `POST /v1/sandboxes/{id}/done`: the agent acting on an attempt's sandbox says it finished (or
 * gave up); the attempt is graded next. Only the first word counts.
 */
export async function finishAttempt(
  ctx: ApiContext,
  principal: Principal,
  sandboxId: string,
  body: { outcome?: 'done' | 'gave_up'; message?: string },
): Promise<{ ok: true; attempt_id: string }> {
  const sandbox: Sandbox = await findSandbox(ctx, principal, sandboxId);
  const owner = (sandbox.metadata.ownerReferences ?? []).find((r) => r.kind === 'EvaluationAttempt');
  if (!owner) throw new ApiError('not_an_evaluation_sandbox');
  const ref = { kind: 'EvaluationAttempt', namespace: principal.account, name: owner.name };
  const attempt = await ctx.store.get<EvaluationAttempt>(ref);
  if (!attempt) throw new ApiError('not_an_evaluation_sandbox');
  if (!attempt.spec.finish)
    await ctx.store.patch<EvaluationAttempt>(ref, {
      spec: {
        finish: {
          outcome: body.outcome ?? 'done',
          ...(body.message !== undefined && { message: body.message }),
          at: new Date(ctx.clock.now()).toISOString(),
        },
      },
    });
  ctx.operatorHooks?.written?.('EvaluationAttempt', `${principal.account}/${owner.name}`);
  return { ok: true, attempt_id: owner.name };
}
