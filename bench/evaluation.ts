// Setup step overhead against the bare `exec` (docs/evaluation.md): the same command through
// `POST …/exec` and as a `command` setup step (`POST …/setup`), a five-step setup against one exec
// of the five commands, a one-check grader (`POST …/grade`) against the exec of its command, and a
// `window` check against reading the window tree itself, on one sandbox
// of a live sandbay (linux driver, real desktop). The client runs in its own process
// (bench/evaluation-client.ts), alternating bare and evaluated calls so that load drifts hit both.
//
//   node bench/evaluation.ts            (a few minutes)
//   node bench/evaluation.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table: median, p99, ratio.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startLiveSandbay } from '../test/support/live-sandbay.ts';

const QUICK = process.argv.includes('--quick');
const N = QUICK ? 30 : 200;
/** Pairs of the window-tree row: a tree read takes ~100× an exec. */
const N_TREE = QUICK ? 5 : 30;
const run = promisify(execFile);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const f2 = (v: number): string => v.toFixed(2);

const live = await startLiveSandbay('bench-eval');
try {
  const created = await fetch(`${live.url}/v1/sandboxes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${live.accountKey}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const sb = ((await created.json()) as { sandbox_id: string }).sandbox_id;
  const on = (rest: string) => `/v1/sandboxes/${sb}${rest}`;
  const command = 'echo hi';
  const five = Array.from({ length: 5 }, () => ({ type: 'command', command }));
  const job = {
    base: live.url,
    key: live.accountKey,
    count: N,
    pairs: [
      {
        name: 'one `command` step vs `exec`',
        bare: { path: on('/exec'), body: { command } },
        evaluated: { path: on('/setup'), body: { steps: [{ type: 'command', command }] } },
      },
      {
        name: 'five `command` steps vs one `exec` of the five',
        bare: { path: on('/exec'), body: { command: Array(5).fill(command).join('; ') } },
        evaluated: { path: on('/setup'), body: { steps: five } },
      },
      {
        name: 'a one-check grader (`command`) vs `exec`',
        bare: { path: on('/exec'), body: { command } },
        evaluated: { path: on('/grade'), body: { grader: { checks: [{ type: 'command', command }] } } },
      },
      {
        name: 'a one-check grader (`window`) vs `GET …/display/windows`',
        bare: { path: on('/display/windows') },
        count: N_TREE,
        evaluated: {
          path: on('/grade'),
          body: { grader: { checks: [{ type: 'window', match: { role: 'window' } }] } },
        },
      },
    ],
  };
  const { stdout } = await run(
    process.execPath,
    [new URL('./evaluation-client.ts', import.meta.url).pathname, JSON.stringify(job)],
    {
      maxBuffer: 64 << 20,
    },
  );
  const results = JSON.parse(stdout) as Record<string, { bare: number[]; evaluated: number[] }>;
  console.log(
    `setup and grading vs bare exec, ${N} pairs each (the window row: ${N_TREE}); ms, client side, its own process\n`,
  );
  console.log('| what | bare p50 | evaluated p50 | bare p99 | evaluated p99 | p50 ratio | p50 added |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, s] of Object.entries(results)) {
    const b = percentile(s.bare, 50);
    const e = percentile(s.evaluated, 50);
    console.log(
      `| ${name} | ${f2(b)} | ${f2(e)} | ${f2(percentile(s.bare, 99))} | ${f2(percentile(s.evaluated, 99))} | ` +
        `${(e / b).toFixed(2)}× | ${f2(e - b)} |`,
    );
  }
} finally {
  await live.close();
}
