// What an agent's harness sees (issue 31): `sandbay server` in its own process on real desktops,
// and an outside client in its own process with its own HTTP stack (Python's http.client on one
// kept-alive connection, bench/client-view.py), as labs call sandbay. Timed per call: GET of the
// sandbox (the floor: HTTP, auth, routing), exec `echo hi`, a PNG screenshot, act (click + PNG, no
// delay); on a sandbox fresh from the warm pool, then on the same sandbox after 1,000 more execs.
// The exec's milliseconds are accounted for with the server's `Server-Timing` (vm: the VM's part,
// driver to exec agent to bash and back; app: the server's until then).
//
//   node bench/client-view.ts              (300 rounds per phase)
//   node bench/client-view.ts --rounds 100
//
// Runs as root (the linux driver creates VM users). Prints markdown tables.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  adminKeyOf,
  createAccountKey,
  startServerProcess,
  stopServerProcess,
} from '../test/support/server-process.ts';
import { waitFor } from '../test/support/wait.ts';

const run = promisify(execFile);
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('--rounds', 300);
const PY = join(import.meta.dirname, 'client-view.py');

type Samples = Record<string, number[]>;

const pct = (xs: number[], p: number) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const f2 = (v: number) => v.toFixed(2);

async function client(
  base: string,
  key: string,
  sandbox: string,
  calls: string[],
  n: number,
): Promise<Samples> {
  const { stdout } = await run('/usr/bin/python3', [PY, JSON.stringify({ base, key, sandbox, calls, n })], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Samples;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-bench-client-'));
  const server = await startServerProcess(join(dir, 'data'));
  try {
    const key = await createAccountKey(server, 'bench-co', 100_000);
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    await api('POST', '/v1/reservations', { hours: 24 });
    let sandbox = '';
    await waitFor(
      async () => {
        const r = await api('POST', '/v1/sandboxes', {});
        if (r.status === 201) sandbox = ((await r.json()) as { sandbox_id: string }).sandbox_id;
        return r.status === 201;
      },
      'a warm sandbox',
      180_000,
    );
    // The server's event-loop lag over each phase: prom-client's histogram restarts at every scrape.
    const adminKey = await adminKeyOf(server);
    const loopLag = async () => {
      const text = await (
        await fetch(`${server.adminUrl}/metrics`, { headers: { authorization: `Bearer ${adminKey}` } })
      ).text();
      const read = (m: string) =>
        1000 * Number(new RegExp(`^nodejs_eventloop_lag_${m}_seconds (\\S+)$`, 'm').exec(text)?.[1]);
      return { p99: read('p99'), max: read('max') };
    };
    const calls = ['get', 'exec', 'screenshot', 'act'];
    await loopLag();
    const fresh = await client(server.url, key, sandbox, calls, ROUNDS);
    const freshLag = await loopLag();
    await client(server.url, key, sandbox, ['exec'], 1000);
    await loopLag();
    const lived = await client(server.url, key, sandbox, calls, ROUNDS);
    const livedLag = await loopLag();

    const rows = (label: string, s: Samples) =>
      calls.map(
        (c) =>
          `| ${label} | ${c} | ${f2(pct(s[c]!, 50))} ms | ${f2(pct(s[c]!, 99))} ms | ${(pct(s[c]!, 50) / pct(s.get!, 50)).toFixed(1)}× |`,
      );
    const account = (label: string, s: Samples) => {
      const total = pct(s.exec!, 50);
      const floor = pct(s.get!, 50);
      const vm = pct(s.exec_vm!, 50);
      const app = pct(s.exec_app!, 50);
      // The slowest 1% of execs, split the same way: where a tail waits (the VM, the server, HTTP).
      const slow = s
        .exec!.map((ms, i) => ({ ms, vm: s.exec_vm![i]!, app: s.exec_app![i]! }))
        .sort((a, b) => b.ms - a.ms)
        .slice(0, Math.max(1, Math.ceil(s.exec!.length / 100)));
      const mean = (f: (x: (typeof slow)[number]) => number) =>
        slow.reduce((a, x) => a + f(x), 0) / slow.length;
      return [
        `| ${label} | client round trip (p50) | ${f2(total)} ms |`,
        `| | of which the VM: driver → exec agent → bash → back (Server-Timing vm) | ${f2(vm)} ms |`,
        `| | of which the server around it: auth, routing, the sandbox lookup, the deadline and collector wrappers (app − vm) | ${f2(app - vm)} ms |`,
        `| | of which HTTP both ways, JSON, the client (total − app) | ${f2(total - app)} ms |`,
        `| | for scale: a GET of the sandbox (HTTP, auth, routing, no VM) | ${f2(floor)} ms |`,
        `| | the slowest 1% (${slow.length} calls), mean: round trip / VM / server around it / HTTP | ${f2(mean((x) => x.ms))} / ${f2(mean((x) => x.vm))} / ${f2(mean((x) => x.app - x.vm))} / ${f2(mean((x) => x.ms - x.app))} ms |`,
      ];
    };
    console.log(
      [
        `Outside client (Python http.client, one kept-alive connection), ${ROUNDS} rounds per phase; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        '',
        '| sandbox | call | p50 | p99 | p50 vs GET |',
        '|---|---|---|---|---|',
        ...rows('fresh from the warm pool', fresh),
        ...rows('after 1,000 execs', lived),
        '',
        '| sandbox | exec `echo hi`, where the time goes | p50 |',
        '|---|---|---|',
        ...account('fresh', fresh),
        ...account('after 1,000 execs', lived),
        '',
        // A fresh sandbox's phase runs while the warm pool boots the VM that replaces it, and each
        // process the boot spawns holds the server's main thread for a fork (bench/spawn-cost.ts).
        "| sandbox | the server's event-loop lag over the phase (prom-client, 10 ms resolution) | p99 | max |",
        '|---|---|---|---|',
        `| fresh from the warm pool | while the pool boots its replacement | ${f2(freshLag.p99)} ms | ${f2(freshLag.max)} ms |`,
        `| after 1,000 execs | the pool full | ${f2(livedLag.p99)} ms | ${f2(livedLag.max)} ms |`,
      ].join('\n'),
    );
  } finally {
    await stopServerProcess(server);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
