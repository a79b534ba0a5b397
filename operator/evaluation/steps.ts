// Runs setup steps (crds/setup-step.ts) on a sandbox's guest, in order, each within its own
// deadline and all within the setup's: the API's `POST …/setup`, the collector and the replay
// reconciler call this, and later the evaluation runs. Only Guest methods are used (exec, putFile,
// windows), so every driver runs them.
//
// A step that fails stops the setup; the result says which and why, and marks the rest skipped.
// Nothing waits without a deadline: the step's and the setup's, measured in real time (they bound
// waits on a VM, whatever clock the caller keeps). A guest that does not answer at all
// (DriverError `unreachable`) is not a step's failure but the caller's: it is thrown.
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type {
  CommandStep,
  DownloadStep,
  LaunchStep,
  OpenStep,
  SetupResult,
  SetupStep,
  StepResult,
  WindowMatch,
} from '../../crds/index.ts';
import { DriverError, type Guest, type WindowNode } from '../../hosts/driver.ts';
import { digestTap } from '../blob-store.ts';
import { FetchRefusedError, fetchUrl, type UrlFetchPolicy } from './fetch-url.ts';
import { chmodLine, commandLine, launchLine, openLine, openedName, removeLine } from './guest-commands.ts';
import { describeMatch, findWindow, unmetExpectation } from './matchers.ts';

export interface OpenedBlob {
  stream: Readable;
  bytes: number;
  sha256: string;
}

/** What setup and grading need besides the steps: the guest and where bytes come from. */
export interface EvaluationEnv {
  guest: Guest;
  /** An uploaded blob of the account by id (`sha256-…`); undefined when it has none such. */
  openBlob(id: string): Promise<OpenedBlob | undefined>;
  /** What URLs the control plane fetches for `download` (fetch-url.ts). */
  fetch: UrlFetchPolicy;
  /** Aborts the run (the server is closing, the caller went away). */
  signal?: AbortSignal;
}

/** A step's failure: reported in the result, never thrown out of runSetup. */
export class StepFailure extends Error {
  override name = 'StepFailure';
}

export const STEP_TIMEOUT_S: Record<SetupStep['type'], number> = {
  download: 600,
  launch: 60,
  open: 60,
  command: 120,
  sleep: 0,
};
/** How often the window tree is read while waiting for a window. */
const WINDOW_POLL_MS = 200;
const COMMAND_INTERVAL_MS = 500;

/** The time left until a deadline, and a signal that fires then (or when the run is aborted). */
export interface Deadline {
  end: number;
  left(): number;
  signal: AbortSignal;
}

export function deadline(ms: number, outer?: AbortSignal): Deadline {
  const end = performance.now() + ms;
  const timer = AbortSignal.timeout(Math.max(1, Math.ceil(ms)));
  return {
    end,
    left: () => Math.max(0, end - performance.now()),
    signal: outer ? AbortSignal.any([outer, timer]) : timer,
  };
}

/** The end of a command's stderr, for messages (bounded). */
export function tail(text: string, max = 500): string {
  const t = text.trim();
  return t.length > max ? `…${t.slice(-max)}` : t;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** Waits until a node of the window tree matches, reading it every WINDOW_POLL_MS. */
async function waitForWindow(
  guest: Guest,
  matches: (tree: WindowNode[]) => WindowNode | undefined,
  what: string,
  d: Deadline,
): Promise<WindowNode> {
  const start = performance.now();
  for (;;) {
    const found = matches(await guest.windows());
    if (found) return found;
    if (d.left() < WINDOW_POLL_MS || d.signal.aborted)
      throw new StepFailure(`no ${what} after ${seconds(performance.now() - start)}`);
    await delay(WINDOW_POLL_MS, undefined, { signal: d.signal }).catch(() => undefined);
  }
}

/** The wait a step asks for: a match, or (launch's default) any top-level window not there before. */
function windowWaiter(
  waitFor: WindowMatch | undefined,
  before: Set<string>,
): [(tree: WindowNode[]) => WindowNode | undefined, string] {
  if (waitFor) return [(tree) => findWindow(tree, waitFor), `window matching ${describeMatch(waitFor)}`];
  return [(tree) => tree.find((w) => !before.has(windowKey(w))), 'new window'];
}

function windowKey(w: WindowNode): string {
  return w.id ?? `${w.pid ?? ''}/${w.name}`;
}

async function runLine(guest: Guest, line: string, what: string, d: Deadline, agent = false) {
  const result = await guest.exec(line, { timeoutMs: Math.max(1, Math.floor(d.left())), agent });
  if (result.timed_out) throw new StepFailure(`${what} timed out`);
  if (result.return_code !== 0)
    throw new StepFailure(`${what} exited with ${result.return_code}${stderrPart(result.stderr)}`);
  return result;
}

function stderrPart(stderr: string): string {
  const t = tail(stderr);
  return t === '' ? '' : `: ${t}`;
}

async function download(env: EvaluationEnv, step: DownloadStep, d: Deadline): Promise<Partial<StepResult>> {
  let source: Readable;
  let from: string;
  if (step.blob !== undefined) {
    const blob = await env.openBlob(step.blob);
    if (!blob) throw new StepFailure(`blob ${step.blob} not found`);
    source = blob.stream;
    from = `blob ${step.blob}`;
  } else {
    from = step.url!;
    try {
      source = (await fetchUrl(step.url!, env.fetch, d.signal)).body;
    } catch (err) {
      if (err instanceof FetchRefusedError) throw new StepFailure(`refused to fetch ${from}: ${err.message}`);
      throw new StepFailure(
        `fetching ${from} failed: ${d.signal.aborted ? 'deadline passed' : (err as Error).message}`,
      );
    }
  }
  const { tap, digest } = digestTap();
  source.once('error', (err) => tap.destroy(err));
  const abort = () => source.destroy(new Error('deadline passed'));
  d.signal.addEventListener('abort', abort, { once: true });
  try {
    await env.guest.putFile(step.path, source.pipe(tap));
  } catch (err) {
    if (err instanceof DriverError && err.code === 'unreachable') throw err;
    throw new StepFailure(`writing ${step.path} from ${from} failed: ${(err as Error).message}`);
  } finally {
    d.signal.removeEventListener('abort', abort);
  }
  const { bytes, sha256 } = digest();
  if (step.sha256 !== undefined && sha256 !== step.sha256) {
    await env.guest.exec(removeLine(step.path), { timeoutMs: 30_000 }).catch(() => undefined);
    throw new StepFailure(`${from} has SHA-256 ${sha256}, expected ${step.sha256}; ${step.path} was removed`);
  }
  if (step.executable) await runLine(env.guest, chmodLine(step.path), 'chmod', d);
  return { bytes };
}

async function launch(env: EvaluationEnv, step: LaunchStep, d: Deadline): Promise<Partial<StepResult>> {
  const waitFor = step.wait_for === false ? undefined : step.wait_for;
  // Only the default wait (a new window) needs to know what was there before.
  const before = new Set(step.wait_for === undefined ? (await env.guest.windows()).map(windowKey) : []);
  await runLine(env.guest, launchLine(step.command), 'launching it', d, true);
  if (step.wait_for === false) return {};
  const [matches, what] = windowWaiter(waitFor, before);
  const w = await waitForWindow(env.guest, matches, what, d);
  return { window: w.name };
}

async function open(env: EvaluationEnv, step: OpenStep, d: Deadline): Promise<Partial<StepResult>> {
  await runLine(env.guest, openLine(step.path), 'opening it', d, true);
  const name = openedName(step.path);
  const waitFor = step.wait_for ?? (name === undefined ? false : { name_contains: name });
  if (waitFor === false) return {};
  const w = await waitForWindow(
    env.guest,
    (tree) => findWindow(tree, waitFor),
    `window matching ${describeMatch(waitFor)}`,
    d,
  );
  return { window: w.name };
}

async function command(env: EvaluationEnv, step: CommandStep, d: Deadline): Promise<Partial<StepResult>> {
  const line = commandLine(step.command);
  const attempts = step.attempts ?? 1;
  for (let n = 1; ; n++) {
    const result = await env.guest.exec(line, { timeoutMs: Math.max(1, Math.floor(d.left())) });
    const unmet = unmetExpectation(result, step.expect);
    const outcome = { attempts: n, exit_code: result.return_code };
    if (unmet === undefined) return outcome;
    const interval = step.interval_ms ?? COMMAND_INTERVAL_MS;
    if (n >= attempts || d.left() <= interval || result.timed_out) {
      const tries = attempts > 1 ? ` (after ${n} attempt${n === 1 ? '' : 's'})` : '';
      const why = `${unmet}${tries}${stderrPart(result.stderr)}`;
      if (step.continue_on_failure) return { ...outcome, message: `${why}; continued` };
      throw Object.assign(new StepFailure(why), { outcome });
    }
    await delay(interval, undefined, { signal: d.signal }).catch(() => undefined);
  }
}

async function runStep(env: EvaluationEnv, step: SetupStep, d: Deadline): Promise<Partial<StepResult>> {
  switch (step.type) {
    case 'download':
      return download(env, step, d);
    case 'launch':
      return launch(env, step, d);
    case 'open':
      return open(env, step, d);
    case 'command':
      return command(env, step, d);
    case 'sleep': {
      const ms = step.seconds * 1000;
      await delay(Math.min(ms, d.left()), undefined, { signal: d.signal }).catch(() => undefined);
      if (d.left() <= 0 && ms > 0) throw new StepFailure('the setup deadline passed during the sleep');
      return {};
    }
  }
}

/** Runs the steps in order until one fails; `timeoutS` bounds the whole setup. */
export async function runSetup(
  env: EvaluationEnv,
  steps: readonly SetupStep[],
  timeoutS: number,
): Promise<SetupResult> {
  const started = performance.now();
  const whole = deadline(timeoutS * 1000, env.signal);
  const results: StepResult[] = [];
  let failed: { index: number; message: string } | undefined;
  for (const [index, step] of steps.entries()) {
    if (failed) {
      results.push({ index, type: step.type, status: 'skipped', duration_ms: 0 });
      continue;
    }
    const t0 = performance.now();
    const own = step.type === 'sleep' ? timeoutS : (step.timeout_s ?? STEP_TIMEOUT_S[step.type]);
    const d = deadline(Math.min(own * 1000, whole.left()), whole.signal);
    try {
      if (whole.left() <= 0)
        throw new StepFailure(`the setup deadline (${timeoutS} s) passed before it began`);
      const detail = await runStep(env, step, d);
      results.push({
        index,
        type: step.type,
        status: 'ok',
        duration_ms: Math.round(performance.now() - t0),
        ...detail,
      });
    } catch (err) {
      if (env.signal?.aborted) throw env.signal.reason ?? err;
      if (err instanceof DriverError && err.code === 'unreachable') throw err;
      if (!(err instanceof StepFailure) && !(err instanceof DriverError)) throw err;
      let message = err.message;
      if (whole.left() <= 0 && !(err instanceof StepFailure))
        message = `the setup deadline (${timeoutS} s) passed: ${message}`;
      const outcome = (err as { outcome?: Partial<StepResult> }).outcome ?? {};
      failed = { index, message: `step ${index} (${step.type}) failed: ${message}` };
      results.push({
        index,
        type: step.type,
        status: 'failed',
        duration_ms: Math.round(performance.now() - t0),
        message,
        ...outcome,
      });
    }
  }
  const done = results.length;
  return {
    status: failed ? 'failed' : 'completed',
    failed_step: failed?.index ?? null,
    message: failed?.message ?? `${done} step${done === 1 ? '' : 's'} completed`,
    duration_ms: Math.round(performance.now() - started),
    steps: results,
  };
}
