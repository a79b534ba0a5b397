// Bursts of creates as labs start rollouts, measured as they see them (issue 31): `sandbay server
// --host-driver sim` in its own process, and this process the clients, with their own HTTP stack.
// 50 sim Macs (100 warm VMs) are applied through the admin API; the first burst of 100 creates is
// the first thing the server serves after its pool is warm (no create before it warms its code
// paths), each create on a connection of its own, kept alive as the SDKs keep theirs. Then more
// bursts, each after the last one's sandboxes are gone and the pool is warm again. Also 1,000
// creates over 500 sim Macs. The server's CPU per create is read from /proc (its process alone).
//
//   node bench/api-burst-process.ts               (3 bursts of 100 on 50 Macs; 1 of 1,000 on 500)
//   node bench/api-burst-process.ts --rounds 5 --no-large
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adminKeyOf,
  applyMini,
  createAccountKey,
  startServerProcess,
} from '../test/support/server-process.ts';
import { waitFor } from '../test/support/wait.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('--rounds', 3);
const TICKS_PER_S = 100;

/** CPU time (ms) the process has used so far, from /proc/PID/stat (utime + stime). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_S;
}

function post(url: string, headers: Record<string, string>, agent: Agent) {
  const t = performance.now();
  return new Promise<{ ms: number; status: number; id?: string; boot?: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { sandbox_id?: string; boot?: string };
        resolve({
          ms: performance.now() - t,
          status: res.statusCode ?? 0,
          id: body.sandbox_id,
          boot: body.boot,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

async function scenario(macs: number, creates: number, rounds: number) {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-bench-burstp-'));
  const server = await startServerProcess(join(dir, 'data'), 60_000, 'sim');
  // Its request log (a JSON line per request, on stdout) is read and dropped, as a log shipper would.
  server.child.stdout!.resume();
  server.child.stderr!.resume();
  const pid = server.child.pid!;
  try {
    const admin = { authorization: `Bearer ${await adminKeyOf(server)}` };
    for (let i = 0; i < macs; i++)
      await applyMini(server, `burst-${i}`, {
        address: `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}`,
        model: 'm4',
        driver: 'sim',
      });
    const key = await createAccountKey(server, 'burst', 1_000_000_000_000);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const slots = async () =>
      (await (await fetch(`${server.adminUrl}/admin/slots`, { headers: admin })).json()) as {
        status: string;
        sandbox_id: string;
      }[];
    const warm = async () => (await slots()).filter((s) => s.status === 'warm').length;
    await waitFor(
      async () => {
        const r = await fetch(`${server.url}/v1/reservations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ hours: 24, mini_count: macs }),
        });
        return r.status === 201;
      },
      'a reservation of every Mac',
      180_000,
    );
    await waitFor(async () => (await warm()) >= macs * 2, `${macs * 2} warm VMs`, 300_000);
    const bursts: { ms: number[]; cpuPerCreate: number; cold: number }[] = [];
    let ids: string[] = [];
    for (let b = 0; b < rounds; b++) {
      if (b > 0) {
        await Promise.all(
          ids.map((id) => fetch(`${server.url}/v1/sandboxes/${id}`, { method: 'DELETE', headers })),
        );
        await waitFor(async () => (await warm()) >= macs * 2, 'the pool to refill', 300_000);
      }
      const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
      const cpu0 = cpuMs(pid);
      const results = await Promise.all(
        Array.from({ length: creates }, () => post(`${server.url}/v1/sandboxes`, headers, agent)),
      );
      const cpu = cpuMs(pid) - cpu0;
      agent.destroy();
      const failed = results.filter((r) => r.status !== 201);
      if (failed.length > 0)
        throw new Error(`burst ${b + 1}: ${failed.length} not created (${failed[0]!.status})`);
      ids = results.map((r) => r.id!);
      bursts.push({
        ms: results.map((r) => r.ms),
        cpuPerCreate: cpu / creates,
        cold: results.filter((r) => r.boot !== 'warm').length,
      });
    }
    return bursts;
  } finally {
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

const rows: string[] = [];
const report = (label: string, bursts: Awaited<ReturnType<typeof scenario>>, size: number) =>
  bursts.forEach((b, i) =>
    rows.push(
      `| ${label} | ${i === 0 ? 'first after start' : `${i + 1}`} | ${pct(b.ms, 50).toFixed(0)} ms | ${pct(b.ms, 99).toFixed(0)} ms | ${b.cpuPerCreate.toFixed(2)} ms | ${(pct(b.ms, 99) / (b.cpuPerCreate * size)).toFixed(2)}× | ${b.cold} |`,
    ),
  );
report('100 creates, 50 sim Macs', await scenario(50, 100, ROUNDS), 100);
if (!process.argv.includes('--no-large'))
  report('1,000 creates, 500 sim Macs', await scenario(500, 1000, 1), 1000);
console.log(
  [
    `Creates at once, each on its own connection, sandbay server in its own process; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    '',
    '| scenario | burst | p50 | p99 | server CPU per create | p99 ÷ (CPU per create × burst) | cold |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
