// How many warm desktops this machine holds (issue 31 item 3): `sandbay server` in its own process,
// its local linux Mac given N VM slots the way an operator gives them (a merge patch of the Mini
// through the admin Kubernetes API, as `kubectl patch` sends it; docs/capacity.md), a reservation of
// it, and then, timed from the reservation: the pool filling N warm desktops, the machine's memory
// per warm desktop (MemAvailable before and after), N creates at once (each on its own connection,
// every one warm) and an `exec` in all N sandboxes at once. The client is this process, the server
// another.
//
//   node bench/density.ts               (N = 16)
//   node bench/density.ts --slots 32
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  adminKeyOf,
  createAccountKey,
  startServerProcess,
  stopServerProcess,
} from '../test/support/server-process.ts';
import { waitFor } from '../test/support/wait.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SLOTS = arg('--slots', 16);

/** MemAvailable (MiB) of the machine, and its total. */
function memory(): { available: number; total: number } {
  const info = readFileSync('/proc/meminfo', 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(info)?.[1] ?? NaN);
  return { available: kb('MemAvailable') / 1024, total: kb('MemTotal') / 1024 };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (v: number) => `${v.toFixed(0)} ms`;
const s1 = (v: number) => `${(v / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-bench-density-'));
  const server = await startServerProcess(join(dir, 'data'), 60_000, { args: ['--rate-limit', '0'] });
  try {
    const admin = { authorization: `Bearer ${await adminKeyOf(server)}` };
    const patch = await fetch(`${server.adminUrl}/apis/sandbay.io/v1alpha1/minis/local`, {
      method: 'PATCH',
      headers: { ...admin, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { vmSlots: SLOTS } }),
    });
    if (patch.status !== 200)
      throw new Error(`patch of the local Mini: ${patch.status} ${await patch.text()}`);
    const key = await createAccountKey(server, 'density', 10_000_000);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const warm = async () =>
      (
        (await (await fetch(`${server.adminUrl}/admin/slots`, { headers: admin })).json()) as {
          status: string;
        }[]
      ).filter((s) => s.status === 'warm').length;
    // The server alone, before any desktop: what each warm desktop then takes is measured from here.
    const before = memory();
    const t0 = performance.now();
    await waitFor(
      async () =>
        (
          await fetch(`${server.url}/v1/reservations`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ hours: 24 }),
          })
        ).status === 201,
      'a reservation of the local Mac',
      60_000,
    );
    // Each time another desktop turns warm.
    const warmAt: number[] = [];
    await waitFor(
      async () => {
        const n = await warm();
        while (warmAt.length < n) warmAt.push(performance.now() - t0);
        return n >= SLOTS;
      },
      `${SLOTS} warm desktops`,
      SLOTS * 60_000,
    );
    const full = memory();
    const perDesktop = (before.available - full.available) / SLOTS;

    const creates = await Promise.all(
      Array.from({ length: SLOTS }, async () => {
        const t = performance.now();
        // A connection of its own each, as separate agents have.
        const r = await fetch(`${server.url}/v1/sandboxes`, {
          method: 'POST',
          headers: { ...headers, connection: 'close' },
          body: '{}',
        });
        const body = (await r.json()) as { sandbox_id?: string; boot?: string; error?: string };
        if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(body)}`);
        return { ms: performance.now() - t, id: body.sandbox_id!, boot: body.boot };
      }),
    );
    const execs = await Promise.all(
      creates.map(async ({ id }) => {
        const t = performance.now();
        const r = await fetch(`${server.url}/v1/sandboxes/${id}/exec`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ command: 'echo hi' }),
        });
        const body = (await r.json()) as { stdout?: string };
        if (r.status !== 200 || body.stdout !== 'hi\n')
          throw new Error(`exec: ${r.status} ${JSON.stringify(body)}`);
        return performance.now() - t;
      }),
    );
    const over = await fetch(`${server.url}/v1/sandboxes`, { method: 'POST', headers, body: '{}' });
    const overBody = (await over.json()) as { error?: string };
    for (const { id } of creates)
      await fetch(`${server.url}/v1/sandboxes/${id}`, { method: 'DELETE', headers });

    const gaps = warmAt.slice(1).map((t, i) => t - warmAt[i]!);
    console.log(
      [
        `The local linux Mac given ${SLOTS} VM slots (merge patch of the Mini), sandbay server in its own process; ${before.total.toFixed(0)} MiB of memory; load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} after the run`,
        '',
        '| what | result |',
        '|---|---|',
        `| reservation → first warm desktop / half / all ${SLOTS} | ${s1(warmAt[0]!)} / ${s1(warmAt[Math.floor(SLOTS / 2) - 1]!)} / ${s1(warmAt[SLOTS - 1]!)} |`,
        `| time between two desktops turning warm, p50 / max | ${ms(pct(gaps, 50))} / ${ms(Math.max(...gaps))} |`,
        `| MemAvailable taken per warm desktop (${SLOTS} warm) | ${perDesktop.toFixed(0)} MiB |`,
        `| warm desktops this machine's MemAvailable before the run holds, at that size | ${Math.floor(before.available / perDesktop)} |`,
        `| ${SLOTS} creates at once, each its own connection: warm / p50 / p99 | ${creates.filter((c) => c.boot === 'warm').length} of ${SLOTS} / ${ms(
          pct(
            creates.map((c) => c.ms),
            50,
          ),
        )} / ${ms(
          pct(
            creates.map((c) => c.ms),
            99,
          ),
        )} |`,
        `| the first exec \`echo hi\` of each of the ${SLOTS}, all at once (each opens its SSH session): p50 / p99 | ${ms(pct(execs, 50))} / ${ms(pct(execs, 99))} |`,
        `| create number ${SLOTS + 1} | ${over.status} ${overBody.error ?? ''} |`,
      ].join('\n'),
    );
  } finally {
    await stopServerProcess(server);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
