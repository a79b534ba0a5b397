// An evaluation run of 20 tasks × 2 attempts on this machine (docs/evaluation.md, "Evaluation
// runs"): a live sandbay (linux driver, real desktops, the local Mac's two VM places), 20 tasks of a
// one-command setup and a one-check grader, run in replay mode. From the run's own results table:
// its wall time against the sum of its attempts' times (how well it keeps the warm VMs busy: the
// ideal is the sum divided by the places), and the sandbox-seconds idle per attempt (VM places ×
// wall time, less the attempts' time, per attempt: what recycling a VM between attempts costs).
// The figures are the server's timestamps, so the client (a poll every 200 ms) does not weigh on
// them beyond its share of the CPU.
//
//   node bench/evaluation-run.ts            (20 × 2; several minutes)
//   node bench/evaluation-run.ts --quick    (4 × 2, a smoke run)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { setTimeout as delay } from 'node:timers/promises';
import { startLiveSandbay } from '../test/support/live-sandbay.ts';

const QUICK = process.argv.includes('--quick');
const TASKS = QUICK ? 4 : 20;
const ATTEMPTS = 2;
/** Sandboxes the local Mac runs at once (a split Mac). */
const PLACES = 2;

interface Row {
  outcome: string;
  started_at: string | null;
  finished_at: string | null;
  duration_s: number | null;
}

const live = await startLiveSandbay('bench-evalrun');
const call = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${live.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${live.accountKey}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const json = (await r.json()) as Record<string, unknown>;
  if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
};
try {
  const ids: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const id = `bench-task-${i}`;
    await call('POST', '/v1/me/tasks', {
      id,
      category: i % 2 === 0 ? 'even' : 'odd',
      instruction: `Task ${i}.`,
      setup: [{ type: 'command', command: `echo ${i} > ~/task.txt` }],
      grader: {
        checks: [{ type: 'command', command: 'cat ~/task.txt', expect: { stdout_contains: String(i) } }],
      },
    });
    ids.push(id);
  }
  const started = performance.now();
  const run = await call('POST', '/v1/me/evaluation-runs', {
    tasks: ids,
    attempts: ATTEMPTS,
    mode: 'replay',
    record: false,
  });
  let status = run;
  while (status.status !== 'completed' && status.status !== 'cancelled') {
    await delay(200);
    status = await call('GET', `/v1/me/evaluation-runs/${run.id as string}`);
  }
  const clientWallS = (performance.now() - started) / 1000;
  const results = await call('GET', `/v1/me/evaluation-runs/${run.id as string}/results`);
  const rows = results.rows as Row[];
  const times = rows.map((r) => (Date.parse(r.finished_at!) - Date.parse(r.started_at!)) / 1000);
  const first = Math.min(...rows.map((r) => Date.parse(r.started_at!)));
  const last = Math.max(...rows.map((r) => Date.parse(r.finished_at!)));
  const wallS = (last - first) / 1000;
  const sumS = times.reduce((s, t) => s + t, 0);
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]!;
  const idlePerAttempt = (PLACES * wallS - sumS) / rows.length;
  const passed = rows.filter((r) => r.outcome === 'passed').length;
  console.log(
    `evaluation run: ${TASKS} tasks × ${ATTEMPTS} attempts, replay mode, no recording; linux driver, ${PLACES} VM places; load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}\n`,
  );
  console.log('| figure | value |');
  console.log('|---|---|');
  console.log(`| attempts (passed) | ${rows.length} (${passed}) |`);
  console.log(`| wall time, first attempt start to last end (s) | ${wallS.toFixed(1)} |`);
  console.log(`| wall time, client: create to completed seen (s) | ${clientWallS.toFixed(1)} |`);
  console.log(`| sum of attempts' times, sandbox written to attempt end (s) | ${sumS.toFixed(1)} |`);
  console.log(`| attempt time median / p99 (s) | ${median.toFixed(2)} / ${p99.toFixed(2)} |`);
  console.log(`| sum / wall (ideal: ${PLACES}, the places) | ${(sumS / wallS).toFixed(2)} |`);
  console.log(
    `| sandbox-seconds idle per attempt (places × wall − sum) / attempts | ${idlePerAttempt.toFixed(2)} |`,
  );
} finally {
  await live.close();
}
