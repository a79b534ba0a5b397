// An evaluation run's results as the CLI prints them: one line per attempt, then the pass rate.
import type { Static } from 'typebox';
import type { EvaluationRunSchema, ResultRowSchema } from '../../../api/schemas/evaluation-runs.ts';

export type RunAnswer = Static<typeof EvaluationRunSchema>;
export interface ResultsAnswer {
  rows: Static<typeof ResultRowSchema>[];
  overall: { attempts: number; passed: number; errored: number; pass_rate: number | null };
}

/** Aligned columns (TASK, ATTEMPT, OUTCOME, REWARD, MESSAGE) and a closing summary line. */
export function resultsText(run: RunAnswer, results: ResultsAnswer): string {
  const rows = [
    ['TASK', 'ATTEMPT', 'OUTCOME', 'REWARD', 'MESSAGE'],
    ...results.rows.map((r) => [
      r.task,
      String(r.attempt),
      r.outcome,
      r.reward === null ? '-' : String(r.reward),
      r.message ?? '',
    ]),
  ];
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  const lines = rows.map((r) =>
    r.map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col]!))).join('   '),
  );
  const o = results.overall;
  const rate = o.pass_rate === null ? '-' : `${Math.round(o.pass_rate * 1000) / 10}%`;
  lines.push(`${run.id} ${run.status}: ${o.passed} of ${o.attempts} passed (${rate}), ${o.errored} errored`);
  return `${lines.join('\n')}\n`;
}
