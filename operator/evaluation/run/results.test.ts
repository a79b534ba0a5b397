// The results table of a run, from its attempts: N × K rows in task order (those not started as
// queued), pass rates per task and category, and the CSV a spreadsheet opens without running it.
import { describe, expect, it } from 'vitest';
import { API_VERSION, type EvaluationAttempt, type EvaluationRun, type Task } from '../../../crds/index.ts';
import { attemptAt, attemptIndex, countAttempts, resultsCsv, runResults } from './results.ts';

const run: EvaluationRun = {
  apiVersion: API_VERSION,
  kind: 'EvaluationRun',
  metadata: { name: 'ev-1', namespace: 'acme', uid: 'u1' },
  spec: { tasks: ['a', 'b'], attempts: 2, mode: 'replay', reservation: 'r1' },
};

function attempt(index: number, status: EvaluationAttempt['status']): EvaluationAttempt {
  const { task, attempt: k } = attemptAt(run, index);
  return {
    apiVersion: API_VERSION,
    kind: 'EvaluationAttempt',
    metadata: { name: `ev-1-${index}`, namespace: 'acme' },
    spec: { run: 'ev-1', task, attempt: k, index },
    ...(status && { status }),
  };
}

const task = (name: string, category?: string): Task => ({
  apiVersion: API_VERSION,
  kind: 'Task',
  metadata: { name, namespace: 'acme' },
  spec: { instruction: 'x', ...(category && { category }) },
});
const tasks = new Map([
  ['a', task('a', 'files')],
  ['b', task('b')],
]);

describe('the results of a run', () => {
  it('starts every task’s first attempt before any second (attempt-major order)', () => {
    expect([0, 1, 2, 3].map((i) => attemptAt(run, i))).toEqual([
      { task: 'a', attempt: 1 },
      { task: 'b', attempt: 1 },
      { task: 'a', attempt: 2 },
      { task: 'b', attempt: 2 },
    ]);
    expect(attemptIndex(run, 1, 2)).toBe(3);
  });

  it('has a row per task and attempt, the ones not started queued, with pass rates', () => {
    const attempts = [
      attempt(0, { phase: 'completed', reward: 1, passed: true, message: 'passed: ok' }),
      attempt(1, { phase: 'errored', message: 'setup step 0 (command) failed' }),
      attempt(2, { phase: 'completed', reward: 0.5, passed: false, message: 'failed: half' }),
    ];
    expect(countAttempts(run, attempts)).toEqual({
      total: 4,
      queued: 1,
      running: 0,
      passed: 1,
      failed: 1,
      errored: 1,
      cancelled: 0,
    });
    const r = runResults(run, attempts, (n) => tasks.get(n));
    expect(r.rows.map((row) => [row.task, row.attempt, row.outcome, row.category])).toEqual([
      ['a', 1, 'passed', 'files'],
      ['a', 2, 'failed', 'files'],
      ['b', 1, 'errored', null],
      ['b', 2, 'queued', null],
    ]);
    expect(r.by_task.a).toEqual({
      attempts: 2,
      graded: 2,
      passed: 1,
      errored: 0,
      pass_rate: 0.5,
      mean_reward: 0.75,
    });
    expect(r.by_category['(none)']).toMatchObject({
      attempts: 2,
      errored: 1,
      pass_rate: 0,
      mean_reward: null,
    });
    expect(r.overall).toMatchObject({ attempts: 4, passed: 1, pass_rate: 1 / 3 });
  });

  it('writes CSV with quoted fields and no formula a spreadsheet would run', () => {
    const attempts = [
      attempt(0, { phase: 'completed', reward: 0, passed: false, message: 'failed: "x", then\nmore' }),
      attempt(1, { phase: 'errored', message: '=HYPERLINK("http://evil")' }),
    ];
    const lines = resultsCsv(runResults(run, attempts, (n) => tasks.get(n))).split('\r\n');
    expect(lines[0]).toBe(
      'task,category,attempt,outcome,reward,duration_s,message,attempt_id,sandbox_id,trajectory_id,started_at,finished_at',
    );
    expect(lines[1]).toBe('a,files,1,failed,0,,"failed: ""x"", then\nmore",ev-1-0,,,,');
    expect(lines[2]).toBe('a,files,2,queued,,,,,,,,');
    expect(lines[3]).toBe('b,,1,errored,,,"\'=HYPERLINK(""http://evil"")",ev-1-1,,,,');
    expect(lines).toHaveLength(6); // header, 4 rows, the empty string after the last CRLF
  });
});
