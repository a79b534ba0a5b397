// Runs a grader (crds/grader.ts) on a sandbox's guest: each check in order, within the grading's
// deadline, then the checks' rewards combined into one in [0, 1]. Used by `POST …/grade`, the replay
// reconciler and later the evaluation runs. Only Guest methods (exec, getFile, windows).
//
// A check that cannot pass (a command that fails or times out, a missing file, JSON that does not
// parse) fails with a message and earns 0; the other checks still run, so the result shows every
// check. A guest that does not answer at all (DriverError `unreachable`) is thrown: that is no
// grade. The window tree is read once per grading, so window checks see one moment.
import { setTimeout as delay } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { JSONPath } from 'jsonpath-plus';
import type {
  CheckResult,
  CommandCheck,
  FileCheck,
  GradeResult,
  Grader,
  GraderCheck,
  WindowCheck,
} from '../../crds/index.ts';
import { DriverError, type Guest, type WindowNode } from '../../hosts/driver.ts';
import { commandLine } from './guest-commands.ts';
import {
  describeMatch,
  findWindow,
  patternMatches,
  trimTrailingNewlines,
  unmetContent,
  unmetExpectation,
} from './matchers.ts';
import { deadline, tail, type Deadline } from './steps.ts';

/** A file check reads at most this much of the file. */
export const FILE_CHECK_MAX_BYTES = 8 * 1024 * 1024;
export const COMMAND_CHECK_TIMEOUT_S = 120;
const STDOUT_KEPT = 2048;

export interface GradeEnv {
  guest: Guest;
  signal?: AbortSignal;
}

interface Outcome {
  passed: boolean;
  message: string;
  /** Overrides `score` as the reward of a passed check (reward_from_stdout). */
  reward?: number;
  exit_code?: number;
  stdout?: string;
}

async function commandCheck(guest: Guest, check: CommandCheck, d: Deadline): Promise<Outcome> {
  const ms = Math.min((check.timeout_s ?? COMMAND_CHECK_TIMEOUT_S) * 1000, d.left());
  const r = await guest.exec(commandLine(check.command), { timeoutMs: Math.max(1, Math.floor(ms)) });
  const seen = { exit_code: r.return_code, stdout: r.stdout.slice(-STDOUT_KEPT) };
  const unmet = unmetExpectation(r, check.expect);
  if (unmet) {
    const err = tail(r.stderr, 300);
    return { passed: false, message: err ? `${unmet}: ${err}` : unmet, ...seen };
  }
  if (!check.reward_from_stdout) return { passed: true, message: `exited with ${r.return_code}`, ...seen };
  const last = r.stdout.trim().split('\n').at(-1)?.trim() ?? '';
  const n = last === '' ? NaN : Number(last);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    return {
      passed: false,
      message: `the last line of stdout (${JSON.stringify(last)}) is not a number from 0 to 1`,
      ...seen,
    };
  return { passed: true, reward: n, message: `printed reward ${n}`, ...seen };
}

function windowCheck(tree: WindowNode[], check: WindowCheck): Outcome {
  const found = findWindow(tree, check.match);
  const what = describeMatch(check.match);
  if (check.absent)
    return found
      ? { passed: false, message: `${JSON.stringify(found.name)} (${found.role}) matches ${what}` }
      : { passed: true, message: `no node matches ${what}` };
  return found
    ? { passed: true, message: `${JSON.stringify(found.name)} (${found.role}) matches ${what}` }
    : { passed: false, message: `no node matches ${what}` };
}

/** The file's bytes, at most FILE_CHECK_MAX_BYTES; undefined when it does not exist. */
async function readGuestFile(
  guest: Guest,
  file: string,
  d: Deadline,
): Promise<Buffer | 'too large' | undefined> {
  let stream;
  try {
    stream = await guest.getFile(file);
  } catch (err) {
    if (err instanceof DriverError && err.code === 'not_found') return undefined;
    throw err;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const stop = () => stream.destroy(new Error('the grading deadline passed'));
  d.signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > FILE_CHECK_MAX_BYTES) {
        stream.destroy();
        return 'too large';
      }
      chunks.push(chunk as Buffer);
    }
  } finally {
    d.signal.removeEventListener('abort', stop);
  }
  return Buffer.concat(chunks);
}

async function fileCheck(guest: Guest, check: FileCheck, d: Deadline): Promise<Outcome> {
  const data = await readGuestFile(guest, check.path, d);
  const wantsFile = check.exists ?? true;
  if (data === undefined)
    return wantsFile
      ? { passed: false, message: `${check.path} does not exist` }
      : { passed: true, message: `${check.path} does not exist` };
  if (!wantsFile) return { passed: false, message: `${check.path} exists` };
  if (data === 'too large')
    return { passed: false, message: `${check.path} is larger than ${FILE_CHECK_MAX_BYTES} bytes` };
  const text = data.toString('utf8');
  const ic = check.ignore_case;
  const fold = (s: string) => (ic ? s.toLowerCase() : s);
  if (
    check.equals !== undefined &&
    trimTrailingNewlines(fold(text)) !== trimTrailingNewlines(fold(check.equals))
  )
    return { passed: false, message: `${check.path} is not ${JSON.stringify(check.equals.slice(0, 200))}` };
  const unmet = unmetContent(check.path, text, check.contains, check.excludes, ic);
  if (unmet) return { passed: false, message: unmet };
  if (check.matches !== undefined && !patternMatches(check.matches, text, ic))
    return { passed: false, message: `${check.path} does not match /${check.matches}/` };
  if (check.json_path !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return { passed: false, message: `${check.path} is not JSON: ${(err as Error).message}` };
    }
    const found = JSONPath({
      path: check.json_path,
      json: json as object,
      wrap: true,
      eval: false,
    }) as unknown[];
    if (found.length === 0)
      return { passed: false, message: `${check.json_path} selects nothing in ${check.path}` };
    if (check.json_equals !== undefined && !isDeepStrictEqual(found[0], check.json_equals))
      return {
        passed: false,
        message: `${check.json_path} is ${JSON.stringify(found[0])?.slice(0, 200)}, expected ${JSON.stringify(check.json_equals).slice(0, 200)}`,
      };
  }
  return { passed: true, message: `${check.path} is as expected` };
}

/** Combines the checks' rewards as the grader says (crds/grader.ts). */
export function combine(how: NonNullable<Grader['combine']>, checks: readonly CheckResult[]): number {
  if (checks.length === 0) return 0;
  const rewards = checks.map((c) => c.reward);
  if (how === 'all') return Math.min(...rewards);
  if (how === 'any') return Math.max(...rewards);
  const total = checks.reduce((s, c) => s + c.weight, 0);
  return total === 0 ? 0 : checks.reduce((s, c) => s + c.weight * c.reward, 0) / total;
}

/** Grades the sandbox; `timeoutS` bounds the whole grading. */
export async function runGrader(env: GradeEnv, grader: Grader, timeoutS: number): Promise<GradeResult> {
  const started = performance.now();
  const d = deadline(timeoutS * 1000, env.signal);
  let tree: WindowNode[] | undefined;
  const results: CheckResult[] = [];
  // The wait some benchmarks leave for the app to write its state (macOSWorld's 30 s), within the deadline.
  if (grader.delay_s)
    await delay(Math.min(grader.delay_s * 1000, d.left()), undefined, { signal: d.signal }).catch(
      () => undefined,
    );
  for (const [index, check] of grader.checks.entries()) {
    let outcome: Outcome;
    try {
      if (d.left() <= 0)
        outcome = { passed: false, message: `the grading deadline (${timeoutS} s) passed before it ran` };
      else outcome = await runCheck(env.guest, check, d, async () => (tree ??= await env.guest.windows()));
    } catch (err) {
      if (env.signal?.aborted) throw env.signal.reason ?? err;
      if (!(err instanceof DriverError) || err.code === 'unreachable') throw err;
      outcome = { passed: false, message: `${err.code}: ${err.message}` };
    }
    const { passed, message, reward, ...seen } = outcome;
    results.push({
      index,
      type: check.type,
      ...(check.name !== undefined && { name: check.name }),
      passed,
      reward: passed ? (reward ?? check.score ?? 1) : 0,
      weight: check.weight ?? 1,
      message,
      ...seen,
    });
  }
  const how = grader.combine ?? 'all';
  return {
    reward: combine(how, results),
    combine: how,
    duration_ms: Math.round(performance.now() - started),
    checks: results,
  };
}

function runCheck(
  guest: Guest,
  check: GraderCheck,
  d: Deadline,
  windows: () => Promise<WindowNode[]>,
): Promise<Outcome> {
  switch (check.type) {
    case 'command':
      return commandCheck(guest, check, d);
    case 'window':
      return windows().then((tree) => windowCheck(tree, check));
    case 'file':
      return fileCheck(guest, check, d);
  }
}
