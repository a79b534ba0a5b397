// The evaluation run reconciler: admits the run's N × K attempts as its reservation's capacity
// allows (like a Job its Pods), counts them, and ends the run once each has ended. The attempts do
// the work (attempt-reconciler.ts); this writes only EvaluationAttempts and the run's status.
//
// Admission: at most `concurrency` attempts at once, and never more than the reservation's sandbox
// places (capacity.ts), in the start order (attempt-major: every task's first attempt before any
// second). An attempt that is admitted but finds no free VM waits (attempt-start.ts), so an account
// that keeps its own sandboxes on the reservation slows the run down but loses nothing.
//
// Nothing is ever dropped: when the run is cancelled, or its reservation ends, the attempts not yet
// started are created at once and end themselves saying why (cancelled; "reservation … ended"), so
// every (task, attempt) has a row with a reason.
import { isDeepStrictEqual } from 'node:util';
import {
  API_VERSION,
  EVALUATION_RUN_LABEL,
  type EvaluationAttempt,
  type EvaluationRun,
} from '../../../crds/index.ts';
import { isStoreError } from '../../../store/store.ts';
import { Indexes, type OperatorContext } from '../../context.ts';
import { controllerRef } from '../../sandbox/owned.ts';
import type { ReconcileFn } from '../../runtime/index.ts';
import { reservationEnded } from './attempt-start.ts';
import { reservationPlaces } from './capacity.ts';
import { attemptAt, countAttempts, isFinished, totalAttempts } from './results.ts';
import { runMachine, type RunEvent } from './states.ts';

type RunStatus = NonNullable<EvaluationRun['status']>;

export function runReconciler(ctx: OperatorContext): ReconcileFn {
  return async (key) => {
    const run = ctx.informers.evaluationRuns.get(key);
    if (!run || run.metadata.deletionTimestamp) return;
    const attempts = attemptsOf(ctx, run);
    const phase = run.status?.phase ?? 'pending';
    // Ended: its attempts have too, and nothing changes any more.
    if (phase === 'completed' || phase === 'cancelled') return;
    const created = await admit(ctx, run, attempts);
    const all = created.length > 0 ? [...attempts, ...created] : attempts;
    if (run.spec.cancel) await cancelRunning(ctx, all);
    const allEnded = all.length === totalAttempts(run) && all.every(isFinished);
    const event: RunEvent | undefined = allEnded
      ? run.spec.cancel
        ? 'cancel'
        : 'finish'
      : phase === 'pending' && all.length > 0
        ? 'start'
        : undefined;
    await settle(ctx, run, all, event, allEnded ? finalMessage(run, all) : message(run, all));
  };
}

/** The run's attempts (by its uid: a run made again under the same name does not adopt them). */
function attemptsOf(ctx: OperatorContext, run: EvaluationRun): EvaluationAttempt[] {
  return ctx.informers.evaluationAttempts
    .byIndex(Indexes.attemptByRun, `${run.metadata.namespace}/${run.metadata.name}`)
    .filter((a) => (a.metadata.ownerReferences ?? []).some((r) => r.uid === run.metadata.uid));
}

/** How many more attempts may start now. */
function room(ctx: OperatorContext, run: EvaluationRun, attempts: EvaluationAttempt[]): number {
  const left = totalAttempts(run) - attempts.length;
  if (left === 0) return 0;
  const reservation = ctx.informers.reservations.get(`${run.metadata.namespace}/${run.spec.reservation}`);
  // A cancelled run, or a reservation that will never run them: the rest are created to end at once.
  if (run.spec.cancel || reservationEnded(ctx, reservation)) return left;
  if (reservation?.status?.phase !== 'active') return 0;
  const places = reservationPlaces(ctx, reservation);
  const limit = Math.min(run.spec.concurrency ?? places, places);
  const running = attempts.filter((a) => !isFinished(a)).length;
  return Math.max(0, Math.min(left, limit - running));
}

async function admit(
  ctx: OperatorContext,
  run: EvaluationRun,
  attempts: EvaluationAttempt[],
): Promise<EvaluationAttempt[]> {
  const n = room(ctx, run, attempts);
  const taken = new Set(attempts.map((a) => a.spec.index));
  const created: EvaluationAttempt[] = [];
  for (let index = 0; created.length < n && index < totalAttempts(run); index++) {
    if (taken.has(index)) continue;
    created.push(await createAttempt(ctx, run, index));
  }
  return created;
}

async function createAttempt(
  ctx: OperatorContext,
  run: EvaluationRun,
  index: number,
): Promise<EvaluationAttempt> {
  const { task, attempt } = attemptAt(run, index);
  const ns = run.metadata.namespace!;
  const attemptObj: EvaluationAttempt = {
    apiVersion: API_VERSION,
    kind: 'EvaluationAttempt',
    metadata: {
      name: `${run.metadata.name}-${String(index).padStart(5, '0')}`,
      namespace: ns,
      labels: { [EVALUATION_RUN_LABEL]: run.metadata.name },
      ownerReferences: [controllerRef(run)],
    },
    spec: { run: run.metadata.name, task, attempt, index, ...(run.spec.cancel && { cancel: true }) },
  };
  try {
    const created = await ctx.client.create<EvaluationAttempt>(attemptObj);
    ctx.enqueue.evaluationAttempt(`${ns}/${created.metadata.name}`);
    return created;
  } catch (err) {
    // Created by a reconcile whose write the cache had not seen yet: it is the same attempt.
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    return (await ctx.store.get<EvaluationAttempt>({
      kind: 'EvaluationAttempt',
      namespace: ns,
      name: attemptObj.metadata.name,
    }))!;
  }
}

/** Tells the attempts still going that the run is cancelled (spec: the run's wish, theirs to carry out). */
async function cancelRunning(ctx: OperatorContext, attempts: EvaluationAttempt[]): Promise<void> {
  for (const a of attempts) {
    if (isFinished(a) || a.spec.cancel) continue;
    await ctx.client.patch<EvaluationAttempt>(
      { kind: 'EvaluationAttempt', namespace: a.metadata.namespace!, name: a.metadata.name },
      { spec: { cancel: true } },
    );
  }
}

function message(run: EvaluationRun, attempts: EvaluationAttempt[]): string {
  const c = countAttempts(run, attempts);
  const waiting = attempts.filter((a) => a.status?.waitingFor && !isFinished(a)).length;
  const parts = [`${c.running} running`, `${c.queued} queued`];
  if (waiting > 0) parts.push(`${waiting} waiting for a VM`);
  return `${parts.join(', ')}; ${c.passed} passed, ${c.failed} failed, ${c.errored} errored of ${c.total}`;
}

function finalMessage(run: EvaluationRun, attempts: EvaluationAttempt[]): string {
  const c = countAttempts(run, attempts);
  return `${c.passed} of ${c.total} passed (${c.failed} failed, ${c.errored} errored, ${c.cancelled} cancelled)`;
}

/** Writes the run's status when it differs from what it says (reconciling again writes nothing). */
async function settle(
  ctx: OperatorContext,
  run: EvaluationRun,
  attempts: EvaluationAttempt[],
  event: RunEvent | undefined,
  text: string,
): Promise<void> {
  const phase = run.status?.phase ?? 'pending';
  const next = event ? runMachine.transition(phase, event) : phase;
  const now = new Date(ctx.clock.now()).toISOString();
  const status: RunStatus = {
    ...run.status,
    phase: next,
    counts: countAttempts(run, attempts),
    message: text,
    ...(event === 'start' && { startedAt: now }),
    ...((event === 'finish' || event === 'cancel') && { completedAt: now }),
  };
  if (isDeepStrictEqual(status, { ...run.status, phase })) return;
  await ctx.client.patch<EvaluationRun>(
    { kind: 'EvaluationRun', namespace: run.metadata.namespace!, name: run.metadata.name },
    { status },
    { subresource: 'status' },
  );
}
