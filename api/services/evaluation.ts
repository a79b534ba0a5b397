// Setup and grading on a running sandbox (`POST …/setup`, `POST …/grade`): the steps or grader of
// the body, or of a task, run by operator/evaluation/ on the sandbox's guest. The guest is the
// sandbox's own, not the collector's recording one: a setup or grading on a sandbox that collects
// a task is not a step of the demonstration.
import type { FastifyRequest } from 'fastify';
import {
  DEFAULT_EVALUATION_TIMEOUT_S,
  type GradeResult,
  type Grader,
  type SetupResult,
  type SetupStep,
  type TaskGrader,
} from '../../crds/index.ts';
import type { Guest } from '../../hosts/driver.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { openAccountBlob } from '../../operator/evaluation/blob-source.ts';
import { runGrader } from '../../operator/evaluation/graders.ts';
import { runSetup, type EvaluationEnv } from '../../operator/evaluation/steps.ts';
import {
  TASK_GRADER_TIMEOUT_S,
  taskGrader,
  taskSetupSteps,
} from '../../operator/evaluation/task-evaluation.ts';
import { checkSetupSteps, checkTaskGrader, graderOf } from '../../operator/evaluation/validate.ts';
import { principalOf, type Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import { guestOf } from './guests.ts';
import { sandboxOf } from './request.ts';
import { findTask } from './tasks.ts';

export interface SetupRequest {
  steps?: SetupStep[];
  task_id?: string;
  timeout_s?: number;
}

export interface GradeRequest {
  grader?: TaskGrader;
  task_id?: string;
  timeout_s?: number;
}

/** What the runners need on this API: the guest, the account's uploaded blobs, the fetch policy. */
export function evaluationEnv(
  ctx: ApiContext,
  blobs: BlobStore | undefined,
  account: string,
  guest: Guest,
): EvaluationEnv {
  return {
    guest,
    openBlob: (id) => openAccountBlob(ctx.store, blobs, account, id),
    fetch: ctx.setupFetch ?? {},
    signal: ctx.shutdown,
  };
}

/** Checks `steps`/`grader` ahead of schema validation (clear errors naming the bad one). */
export function checkEvaluationBody(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const { steps, grader } = body as { steps?: unknown; grader?: unknown };
  if (steps !== undefined) checkSetupSteps(steps);
  if (grader !== undefined) checkTaskGrader(grader);
}

async function taskOf(ctx: ApiContext, principal: Principal, id: string) {
  // Tasks are the account's, not one reservation's (as on /v1/me/tasks).
  if (principal.kind !== 'account') throw new ApiError('account_key_required');
  return findTask(ctx, principal, id);
}

function oneOf(body: object, a: string, b: string): void {
  const has = (k: string) => (body as Record<string, unknown>)[k] !== undefined;
  if (has(a) === has(b)) throw new ApiError('invalid_request', `Give exactly one of \`${a}\` and \`${b}\`.`);
}

export async function setupSandbox(
  ctx: ApiContext,
  blobs: BlobStore | undefined,
  request: FastifyRequest,
  body: SetupRequest,
): Promise<SetupResult> {
  oneOf(body, 'steps', 'task_id');
  const principal = principalOf(request);
  const sandbox = await sandboxOf(ctx, request);
  const steps =
    body.task_id !== undefined ? taskSetupSteps(await taskOf(ctx, principal, body.task_id)) : body.steps!;
  const guest = await guestOf(ctx, sandbox);
  const env = evaluationEnv(ctx, blobs, principal.account, guest);
  return untilShutdown(ctx, runSetup(env, steps, body.timeout_s ?? DEFAULT_EVALUATION_TIMEOUT_S));
}

/** A run cut short by the server's close answers 503 `server_shutting_down`. */
async function untilShutdown<T>(ctx: ApiContext, run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (ctx.shutdown.aborted) throw new ApiError('server_shutting_down');
    throw err;
  }
}

export async function gradeSandbox(
  ctx: ApiContext,
  request: FastifyRequest,
  body: GradeRequest,
): Promise<GradeResult> {
  oneOf(body, 'grader', 'task_id');
  const principal = principalOf(request);
  const sandbox = await sandboxOf(ctx, request);
  let grader: Grader;
  if (body.task_id !== undefined) {
    const task = await taskOf(ctx, principal, body.task_id);
    const g = taskGrader(task);
    if (!g) throw new ApiError('invalid_grader', `Task ${body.task_id} has no grader.`);
    grader = g;
  } else grader = graderOf(body.grader!, TASK_GRADER_TIMEOUT_S);
  const guest = await guestOf(ctx, sandbox);
  const timeout = body.timeout_s ?? DEFAULT_EVALUATION_TIMEOUT_S;
  return untilShutdown(ctx, runGrader({ guest, signal: ctx.shutdown }, grader, timeout));
}
