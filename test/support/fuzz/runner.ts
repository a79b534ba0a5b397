// Runs fuzz targets with fast-check, one after the other, each with its own seed derived from the
// run's seed and the target's name (so adding a target does not change what the others draw), and
// counts per target: runs, failures, answers, answer time. The suite runs a few cases per target and
// stops a target at its first failure; the bench (bench/fuzz.ts) runs many and keeps going.
import { createHash } from 'node:crypto';
import fc from 'fast-check';

/** One case of a target, made by fast-check; `run` performs it against the world as it is now. */
export interface FuzzCase {
  run(): Promise<CaseOutcome>;
  /** What fast-check prints for a failing case. */
  [fc.toStringMethod](): string;
}

export interface CaseOutcome {
  /** Answer time (ms), or the time until the case gave up. */
  ms: number;
  /** `200`, `closed`, `hang`, `1009` …: what the case met, for the per-target counts. */
  outcome: string;
  /** Empty when the case held every property. */
  problems: string[];
  /** The request as sent, for a failure's report. */
  sent: string;
}

export interface FuzzTarget {
  name: string;
  cases: fc.Arbitrary<FuzzCase>;
}

export interface TargetReport {
  name: string;
  runs: number;
  failures: string[];
  outcomes: Map<string, number>;
  times: number[];
}

export interface RunOptions {
  runsPerTarget: number;
  seed: number;
  /** Stop a target at its first failure (the suite); the bench counts every failure. */
  stopAtFirstFailure: boolean;
  /** Called after each target (the bench prints progress). */
  onTarget?: (report: TargetReport) => void;
}

/** A target's own seed: the run's seed mixed with its name. */
export function seedOf(seed: number, name: string): number {
  return createHash('sha256').update(`${seed}\n${name}`).digest().readInt32BE(0);
}

export async function runTargets(targets: FuzzTarget[], opts: RunOptions): Promise<TargetReport[]> {
  const reports: TargetReport[] = [];
  for (const target of targets) {
    const report: TargetReport = { name: target.name, runs: 0, failures: [], outcomes: new Map(), times: [] };
    await fc.check(
      fc.asyncProperty(target.cases, async (c) => {
        const o = await c.run();
        report.runs++;
        report.times.push(o.ms);
        report.outcomes.set(o.outcome, (report.outcomes.get(o.outcome) ?? 0) + 1);
        if (o.problems.length === 0) return true;
        report.failures.push(`${target.name}: ${o.problems.join('; ')}\n    sent: ${o.sent}`);
        return !opts.stopAtFirstFailure;
      }),
      { numRuns: opts.runsPerTarget, seed: seedOf(opts.seed, target.name), endOnFailure: true },
    );
    reports.push(report);
    opts.onTarget?.(report);
  }
  return reports;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A markdown table: runs, failures, what was answered, p50 / p99 answer time per target. */
export function reportTable(reports: TargetReport[]): string {
  const rows = ['| target | runs | failures | answers | p50 ms | p99 ms |', '|---|---:|---:|---|---:|---:|'];
  for (const r of reports) {
    const times = [...r.times].sort((a, b) => a - b);
    const answers = [...r.outcomes]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k}×${n}`)
      .join(' ');
    rows.push(
      `| ${r.name} | ${r.runs} | ${r.failures.length} | ${answers} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} |`,
    );
  }
  return rows.join('\n');
}
