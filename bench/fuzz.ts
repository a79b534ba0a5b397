// The fuzzer of the suite (test/api-fuzz.test.ts, test/admin-fuzz.test.ts,
// api/ws/stream-fuzz.test.ts), run longer: every target with N cases, and every failure counted
// instead of stopping at the first. Prints a table per surface: runs per target, failures, what was
// answered, p50 / p99 answer time; then each failure with the request that made it. Exits non-zero
// when anything failed. The seed is printed: `--seed` replays a run.
//
//   node bench/fuzz.ts [--runs 200] [--seed 1] [--surface customer,admin,streams,ws] [--only TEXT]
//
// All surfaces run on the sim driver (customer, ws), the admin listener alone, or in-process
// (streams: the RFB readers and the SSH relay over loopback sockets).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startAdminWorld } from '../test/support/fuzz/admin-world.ts';
import { startCustomerWorld } from '../test/support/fuzz/customer-world.ts';
import { httpTargets } from '../test/support/fuzz/http-targets.ts';
import { reportTable, runTargets, type FuzzTarget, type TargetReport } from '../test/support/fuzz/runner.ts';
import { streamTargets } from '../test/support/fuzz/stream-targets.ts';
import { wsTargets } from '../test/support/fuzz/ws-targets.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    surface: { type: 'string', default: 'customer,admin,streams,ws' },
    only: { type: 'string' },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
const surfaces = values.surface.split(',');
const only = (targets: FuzzTarget[]) => targets.filter((t) => !values.only || t.name.includes(values.only));

/** The suite's deadline: no answer within it is a hang. */
const DEADLINE_MS = 10_000;

async function surface(
  name: string,
  start: () => Promise<{ targets: FuzzTarget[]; close(): Promise<void> }>,
): Promise<TargetReport[]> {
  if (!surfaces.includes(name)) return [];
  const began = Date.now();
  const world = await start();
  try {
    const reports = await runTargets(only(world.targets), {
      runsPerTarget: runs,
      seed,
      stopAtFirstFailure: false,
      onTarget: (r) =>
        process.stderr.write(`${name}: ${r.name} ${r.runs} runs, ${r.failures.length} failures\n`),
    });
    const minutes = ((Date.now() - began) / 60_000).toFixed(1);
    process.stdout.write(`\n### ${name} (${minutes} min)\n\n${reportTable(reports)}\n`);
    return reports;
  } finally {
    await world.close();
  }
}

process.stdout.write(
  `fuzz: --runs ${runs} --seed ${seed} --surface ${surfaces.join(',')}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}\n`,
);
const reports = [
  ...(await surface('customer', async () => {
    const w = await startCustomerWorld({ deadlineMs: DEADLINE_MS });
    return { targets: httpTargets(w.routes, w.inputOf, w), close: () => w.close() };
  })),
  ...(await surface('admin', async () => {
    const w = await startAdminWorld({ deadlineMs: DEADLINE_MS });
    return { targets: httpTargets(w.routes, w.inputOf, w), close: () => w.close() };
  })),
  ...(await surface('streams', async () => ({ targets: streamTargets(), close: async () => {} }))),
  ...(await surface('ws', async () => {
    const w = await startCustomerWorld({ deadlineMs: DEADLINE_MS });
    return { targets: wsTargets(w, w.sandboxIds), close: () => w.close() };
  })),
];
const failures = reports.flatMap((r) => r.failures);
const total = reports.reduce((n, r) => n + r.runs, 0);
process.stdout.write(`\n${total} cases, ${failures.length} failures\n`);
for (const f of failures) process.stdout.write(`\n- ${f}\n`);
process.exitCode = failures.length ? 1 : 0;
