// Many agents at once (issue 31 item 3): `sandbay server` in its own process on real desktops (the
// linux driver, 8 linux Macs of 2 VMs each on this machine), and K agents (K = 1, 2, 4, 8, 16), each
// its own Python process on one kept-alive connection (bench/agents-client.py), looping act (click +
// PNG screenshot, no delay) on its own sandbox as fast as the server answers, all from one instant
// for the same seconds. Reported per K: steps per second in total and per agent, the scaling against
// K × the single agent's rate (the linear ideal), p50 and p99 per step, the worst agent's p99 against
// the median agent's, the server's CPU per step (/proc, its process alone) and the machine's CPU
// (all processes: Xvfb, the desktops, the clients) while the agents ran.
//
//   node bench/agents.ts                (20 s per K)
//   node bench/agents.ts --seconds 10
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  adminKeyOf,
  applyMini,
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
const SECONDS = arg('--seconds', 20);
const KS = [1, 2, 4, 8, 16];
/** Linux Macs: the server's own `local` and 7 more, 2 VMs each: room for the largest K. */
const MACS = 8;
const PY = join(import.meta.dirname, 'agents-client.py');
const TICKS_PER_S = 100;

/** CPU time (ms) a process has used so far (utime + stime). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_S;
}

/** The machine's busy and total jiffies, all CPUs (first line of /proc/stat). */
function machineJiffies(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - f[3]! - f[4]!, total };
}

/** MemAvailable (MiB) of the machine. */
function availableMiB(): number {
  const m = /^MemAvailable:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return Number(m?.[1] ?? NaN) / 1024;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const f1 = (v: number) => v.toFixed(1);

async function agent(base: string, key: string, sandbox: string, startAt: number): Promise<number[]> {
  const job = { base, key, sandbox, start_at: startAt, seconds: SECONDS };
  const { stdout } = await run('/usr/bin/python3', [PY, JSON.stringify(job)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(stdout) as { ms: number[] }).ms;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-bench-agents-'));
  const before = availableMiB();
  // One account drives every agent, which at K = 16 is more than the default rate limit allows a key
  // (6,000 a minute): the bench measures the server, not the limit.
  const server = await startServerProcess(join(dir, 'data'), 60_000, { args: ['--rate-limit', '0'] });
  const pid = server.child.pid!;
  try {
    const admin = { authorization: `Bearer ${await adminKeyOf(server)}` };
    for (let i = 1; i < MACS; i++)
      await applyMini(server, `agents-${i}`, { address: '127.0.0.1', model: 'm4', driver: 'linux' });
    const key = await createAccountKey(server, 'agents', 10_000_000);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    await waitFor(
      async () => {
        const r = await fetch(`${server.url}/v1/reservations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ hours: 24, mini_count: MACS }),
        });
        return r.status === 201;
      },
      `a reservation of ${MACS} linux Macs`,
      300_000,
    );

    // Every desktop warm before the first K: booting ones would take the CPU from the agents.
    const warm = async () =>
      (
        (await (await fetch(`${server.adminUrl}/admin/slots`, { headers: admin })).json()) as {
          status: string;
        }[]
      ).filter((s) => s.status === 'warm').length;
    await waitFor(async () => (await warm()) >= MACS * 2, `${MACS * 2} warm desktops`, 900_000);

    const sandboxes: string[] = [];
    const rows: string[] = [];
    let perDesktop = NaN;
    let single = NaN;
    for (const k of KS) {
      while (sandboxes.length < k) {
        await waitFor(
          async () => {
            const r = await fetch(`${server.url}/v1/sandboxes`, { method: 'POST', headers, body: '{}' });
            if (r.status === 201) sandboxes.push(((await r.json()) as { sandbox_id: string }).sandbox_id);
            return r.status === 201;
          },
          `warm sandbox ${sandboxes.length + 1}`,
          600_000,
        );
      }
      if (k === KS.at(-1)) perDesktop = (before - availableMiB()) / k;
      // The clients start (Python, a first few steps) before the shared instant; the window is theirs alone.
      const startAt = Date.now() / 1000 + 3;
      const pending = sandboxes.slice(0, k).map((id) => agent(server.url, key, id, startAt));
      await new Promise((r) => setTimeout(r, Math.max(0, startAt * 1000 - Date.now())));
      const cpu0 = processCpuMs(pid);
      const m0 = machineJiffies();
      const agents = await Promise.all(pending);
      const cpu = processCpuMs(pid) - cpu0;
      const m1 = machineJiffies();

      const steps = agents.reduce((n, a) => n + a.length, 0);
      const total = steps / SECONDS;
      if (k === 1) single = total;
      const p99s = agents.map((a) => pct(a, 99)).sort((a, b) => a - b);
      const medianAgentP99 = pct(p99s, 50);
      const all = agents.flat();
      rows.push(
        `| ${k} | ${f1(total)} | ${f1(total / k)} | ${((total / (k * single)) * 100).toFixed(0)}% | ${f1(pct(all, 50))} ms | ${f1(pct(all, 99))} ms | ${(p99s.at(-1)! / medianAgentP99).toFixed(2)}× | ${f1(cpu / steps)} ms | ${((100 * (m1.busy - m0.busy)) / (m1.total - m0.total)).toFixed(0)}% |`,
      );
    }
    for (const id of sandboxes)
      await fetch(`${server.url}/v1/sandboxes/${id}`, { method: 'DELETE', headers });
    console.log(
      [
        `K agents, each an outside client (Python http.client) looping act (click + PNG screenshot, no delay) for ${SECONDS} s on its own linux sandbox; ${MACS} linux Macs; load average before the run ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}`,
        '',
        '| K | steps/s (total) | steps/s per agent | total vs K × one agent | p50 per step | p99 per step | worst agent p99 vs median agent p99 | server CPU per step | machine CPU busy |',
        '|---|---|---|---|---|---|---|---|---|',
        ...rows,
        '',
        `Memory: ${f1(perDesktop)} MiB of MemAvailable per running desktop with ${KS.at(-1)} running (the server included); at that rate this machine's ${f1(before)} MiB available hold about ${Math.floor(before / perDesktop)} desktops.`,
      ].join('\n'),
    );
  } finally {
    await stopServerProcess(server);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
