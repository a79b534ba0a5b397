// A run's attempts counted and laid out as its results: one row per (task, attempt) of N × K in
// task order, those not started yet as `queued`, with pass rates per task and per category. Pure:
// the run reconciler counts with it, the API answers the results table (JSON and CSV) from it.
import type { AttemptCounts, EvaluationAttempt, EvaluationRun, Task } from '../../../crds/index.ts';
import { FINISHED_PHASES } from './states.ts';

/** What one (task, attempt) came to: `queued` (not started), `running`, or how it ended. */
export type AttemptOutcome = 'queued' | 'running' | 'passed' | 'failed' | 'errored' | 'cancelled';

export function outcomeOf(a: EvaluationAttempt | undefined): AttemptOutcome {
  if (!a) return 'queued';
  const phase = a.status?.phase ?? 'waiting';
  if (phase === 'completed') return a.status?.passed ? 'passed' : 'failed';
  if (phase === 'errored' || phase === 'cancelled') return phase;
  return 'running';
}

export function isFinished(a: EvaluationAttempt): boolean {
  return FINISHED_PHASES.has(a.status?.phase ?? 'waiting');
}

/** Index of the attempt `k` (1-based) of task `t` in the order attempts start: attempt-major. */
export function attemptIndex(run: EvaluationRun, taskIndex: number, k: number): number {
  return (k - 1) * run.spec.tasks.length + taskIndex;
}

/** The (task, attempt) at an index of the start order. */
export function attemptAt(run: EvaluationRun, index: number): { task: string; attempt: number } {
  const n = run.spec.tasks.length;
  return { task: run.spec.tasks[index % n]!, attempt: Math.floor(index / n) + 1 };
}

export function totalAttempts(run: EvaluationRun): number {
  return run.spec.tasks.length * run.spec.attempts;
}

export function countAttempts(run: EvaluationRun, attempts: readonly EvaluationAttempt[]): AttemptCounts {
  const counts: AttemptCounts = {
    total: totalAttempts(run),
    queued: 0,
    running: 0,
    passed: 0,
    failed: 0,
    errored: 0,
    cancelled: 0,
  };
  for (const a of attempts) counts[outcomeOf(a) as Exclude<AttemptOutcome, 'queued'>]++;
  counts.queued = counts.total - attempts.length;
  return counts;
}

export interface ResultRow {
  task: string;
  category: string | null;
  attempt: number;
  attempt_id: string | null;
  outcome: AttemptOutcome;
  phase: string | null;
  reward: number | null;
  message: string | null;
  sandbox_id: string | null;
  trajectory_id: string | null;
  /** From the sandbox running to the attempt's end (s); null until it ends. */
  duration_s: number | null;
  started_at: string | null;
  finished_at: string | null;
}

export interface PassRate {
  attempts: number;
  /** Graded (passed + failed). */
  graded: number;
  passed: number;
  errored: number;
  /** Passed of the attempts that ended (passed, failed, errored); null before any. */
  pass_rate: number | null;
  mean_reward: number | null;
}

export interface RunResults {
  rows: ResultRow[];
  by_task: Record<string, PassRate>;
  by_category: Record<string, PassRate>;
  overall: PassRate;
}

function seconds(from: string | undefined, to: string | undefined): number | null {
  const ms = Date.parse(to ?? '') - Date.parse(from ?? '');
  return Number.isFinite(ms) ? Math.round(ms) / 1000 : null;
}

function rowOf(
  run: EvaluationRun,
  task: string,
  k: number,
  a: EvaluationAttempt | undefined,
  category: string | null,
): ResultRow {
  const s = a?.status;
  return {
    task,
    category,
    attempt: k,
    attempt_id: a?.metadata.name ?? null,
    outcome: outcomeOf(a),
    phase: s?.phase ?? (a ? 'waiting' : null),
    reward: s?.reward ?? null,
    message: s?.message ?? (a ? (s?.waitingFor ? `waiting for ${s.waitingFor}` : null) : null),
    sandbox_id: s?.sandbox ?? null,
    trajectory_id: s?.actingAt ? (a?.metadata.name ?? null) : null,
    duration_s: seconds(s?.runningAt, s?.finishedAt),
    started_at: s?.claimedAt ?? null,
    finished_at: s?.finishedAt ?? null,
  };
}

function rate(rows: readonly ResultRow[]): PassRate {
  const passed = rows.filter((r) => r.outcome === 'passed').length;
  const failed = rows.filter((r) => r.outcome === 'failed').length;
  const errored = rows.filter((r) => r.outcome === 'errored').length;
  const ended = passed + failed + errored;
  const rewards = rows.flatMap((r) => (r.reward === null ? [] : [r.reward]));
  return {
    attempts: rows.length,
    graded: passed + failed,
    passed,
    errored,
    pass_rate: ended === 0 ? null : passed / ended,
    mean_reward: rewards.length === 0 ? null : rewards.reduce((s, r) => s + r, 0) / rewards.length,
  };
}

function groupBy(rows: readonly ResultRow[], key: (r: ResultRow) => string): Record<string, PassRate> {
  const groups = new Map<string, ResultRow[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return Object.fromEntries([...groups].map(([k, v]) => [k, rate(v)]));
}

/**
 * The results table. `tasks` gives each task's category (a task deleted since the run began has
 * none); `attempts` are the run's.
 */
export function runResults(
  run: EvaluationRun,
  attempts: readonly EvaluationAttempt[],
  tasks: (name: string) => Task | undefined,
): RunResults {
  const byIndex = new Map(attempts.map((a) => [a.spec.index, a]));
  const rows: ResultRow[] = [];
  run.spec.tasks.forEach((task, t) => {
    const category = tasks(task)?.spec.category ?? null;
    for (let k = 1; k <= run.spec.attempts; k++)
      rows.push(rowOf(run, task, k, byIndex.get(attemptIndex(run, t, k)), category));
  });
  return {
    rows,
    by_task: groupBy(rows, (r) => r.task),
    by_category: groupBy(rows, (r) => r.category ?? '(none)'),
    overall: rate(rows),
  };
}

const CSV_COLUMNS: (keyof ResultRow)[] = [
  'task',
  'category',
  'attempt',
  'outcome',
  'reward',
  'duration_s',
  'message',
  'attempt_id',
  'sandbox_id',
  'trajectory_id',
  'started_at',
  'finished_at',
];

/**
 * RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. Text that a
 * spreadsheet would take for a formula (`=`, `+`, `-`, `@` first) gets a leading `'` (OWASP's CSV
 * injection advice): messages quote what tasks and agents wrote.
 */
function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** The rows as CSV (a header line, then one line per attempt, CRLF as RFC 4180 has it). */
export function resultsCsv(results: RunResults): string {
  const lines = [
    CSV_COLUMNS.join(','),
    ...results.rows.map((r) => CSV_COLUMNS.map((c) => csvField(r[c])).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}
