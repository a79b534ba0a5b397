// An attempt from `waiting` to `acting`: a VM for it (capacity.ts), its sandbox written and followed
// to `running` (a sandbox refused for want of room sends it back to waiting, never dropped), then
// the task's setup (its script, then its steps; operator/evaluation/steps.ts), and the trajectory
// begun (trajectory.ts).
import type { EvaluationAttempt, EvaluationRun, Reservation, Task } from '../../../crds/index.ts';
import type { OperatorContext } from '../../context.ts';
import type { ReconcileResult } from '../../runtime/index.ts';
import { openAccountBlob } from '../blob-source.ts';
import { runSetup, type EvaluationEnv } from '../steps.ts';
import { TASK_SETUP_TIMEOUT_S, setupFailureText, taskSetupSteps } from '../task-evaluation.ts';
import { EvaluationInputError, checkSetupSteps, checkTaskGrader } from '../validate.ts';
import {
  createSandbox,
  deleteSandbox,
  end,
  guestOf,
  isLasting,
  newSandboxName,
  nowIso,
  ownedBy,
  sandboxOf,
  sandboxProblem,
  transition,
  writeStatus,
} from './attempt-status.ts';
import { WAIT_CODES, vmFor } from './capacity.ts';
import { createTrajectory, startCollection, startScreenRecording } from './trajectory.ts';

/** A waiting attempt looks again this often besides when VMs and sandboxes change. */
export const WAIT_RECHECK_MS = 5_000;

/** `waiting`: takes a VM when one is free for it, else says what it waits for. */
export async function claim(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
): Promise<ReconcileResult | void> {
  const reservation = ctx.informers.reservations.get(`${a.metadata.namespace}/${run.spec.reservation}`);
  const ended = reservationEnded(ctx, reservation);
  if (ended) return void (await end(ctx, a, 'error', ended));
  let waitingFor: string;
  if (reservation?.status?.phase !== 'active') {
    waitingFor = `reservation ${run.spec.reservation} to become active`;
  } else {
    const vm = vmFor(ctx, reservation);
    if (vm.free) {
      await transition(ctx, a, 'claim', {
        sandbox: a.status?.sandbox ?? newSandboxName(),
        claimedAt: nowIso(ctx),
        waitingFor: null,
      });
      // The sandbox itself is written by the `starting` reconcile that this write brings.
      return;
    }
    if (!vm.wait)
      return void (await end(ctx, a, 'error', `no sandbox can run it: ${vm.code}: ${vm.message}`));
    waitingFor = `a VM: ${vm.message}`;
  }
  if (a.status?.waitingFor !== waitingFor) await writeStatus(ctx, a, { waitingFor });
  return { requeueAfterMs: WAIT_RECHECK_MS };
}

/** Why the reservation will never run the attempt, if it will not. */
export function reservationEnded(ctx: OperatorContext, r: Reservation | undefined): string | undefined {
  if (!r) return 'its reservation does not exist';
  const phase = r.status?.phase ?? 'pending';
  if (
    phase === 'completing' ||
    phase === 'completed' ||
    phase === 'cancelled' ||
    r.metadata.deletionTimestamp
  )
    return `reservation ${r.metadata.name} ended before the attempt ran`;
  const endAt = Date.parse(r.status?.endAt ?? '');
  if (phase === 'active' && !(endAt > ctx.clock.now()))
    return `reservation ${r.metadata.name} ended before the attempt ran`;
  return undefined;
}

/** `starting`: writes the named sandbox, and follows it until it runs. */
export async function follow(ctx: OperatorContext, a: EvaluationAttempt, run: EvaluationRun): Promise<void> {
  const name = a.status?.sandbox;
  if (!name) return void (await transition(ctx, a, 'refused', { waitingFor: 'a VM' }));
  const sandbox = sandboxOf(ctx, a);
  // Named first, written second: a restart between the two writes the one named.
  if (!sandbox) return createSandbox(ctx, a, run, name);
  if (!ownedBy(sandbox, a))
    return void (await end(ctx, a, 'error', `sandbox ${name} does not belong to this attempt`));
  const phase = sandbox.status?.phase ?? 'pending';
  if (phase === 'failed' && WAIT_CODES.has(sandbox.status?.reason ?? '')) {
    // Another create took the VM first: this sandbox goes, and the attempt waits for the next VM.
    await deleteSandbox(ctx, a);
    await transition(ctx, a, 'refused', { sandbox: null, waitingFor: `a VM: ${sandbox.status?.message}` });
    return;
  }
  const problem = sandboxProblem(a, sandbox);
  if (problem) return void (await end(ctx, a, 'error', problem));
  if (phase === 'running') await transition(ctx, a, 'running', { runningAt: nowIso(ctx) });
  // Booting: the sandbox's next change brings this back.
}

export function evaluationEnv(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  sandboxGuest: EvaluationEnv['guest'],
): EvaluationEnv {
  return {
    guest: sandboxGuest,
    openBlob: (id) => openAccountBlob(ctx.store, ctx.blobs, a.metadata.namespace!, id),
    fetch: ctx.settings.setupFetch,
  };
}

/** `setup`: the task's setup, then the trajectory (and its recording) begins. */
export async function setUp(
  ctx: OperatorContext,
  a: EvaluationAttempt,
  run: EvaluationRun,
  task: Task,
): Promise<void> {
  const sandbox = sandboxOf(ctx, a);
  const problem = sandboxProblem(a, sandbox);
  if (problem) return void (await end(ctx, a, 'error', problem));
  try {
    // A task written past the API (kubectl, apply) is checked here, before anything runs.
    checkSetupSteps(task.spec.setup ?? []);
    if (task.spec.grader === undefined)
      return void (await end(ctx, a, 'error', `task ${task.metadata.name} has no grader`));
    checkTaskGrader(task.spec.grader);
  } catch (err) {
    if (err instanceof EvaluationInputError) return void (await end(ctx, a, 'error', err.message));
    throw err;
  }
  const guest = guestOf(ctx, sandbox!);
  try {
    const setup = await runSetup(evaluationEnv(ctx, a, guest), taskSetupSteps(task), TASK_SETUP_TIMEOUT_S);
    if (setup.status === 'failed') {
      await writeStatus(ctx, a, { setup });
      return void (await end(ctx, a, 'error', setupFailureText(task, setup)));
    }
    await createTrajectory(ctx, a, task);
    // Written as soon as started: a reconcile cut short after this does not start a second one.
    if (run.spec.record !== false && a.status?.recordingId === undefined) {
      const recordingId = await startScreenRecording(ctx, a, guest);
      if (recordingId !== undefined) a = await writeStatus(ctx, a, { recordingId });
    }
    if (run.spec.mode === 'agent') await startCollection(ctx, a, sandbox!.metadata.name);
    await transition(ctx, a, 'setUp', {
      setup,
      actingAt: nowIso(ctx),
      ...(run.spec.mode === 'replay' && { stepsDone: 0 }),
    });
  } catch (err) {
    if (isLasting(err)) return void (await end(ctx, a, 'error', `${err.code}: ${err.message}`));
    throw err;
  }
}
