// Fork and pause on real desktops (issue 30). Two parts, one after the other:
//
// 1. Through the API, as a client sees it: `sandbay server` (startServer, linux driver) with three
//    linux "Macs" on this machine (m4 split: six VMs), and a client in a process of its own
//    (bench/fork-client.ts) timing, in one run and on the same fleet: a warm create, a snapshot
//    restore, a fork of a running desktop into 1, 2 and 4 (time to all running: the fork call's
//    answer), and pause → resume round trips.
// 2. The linux driver's copy itself (Host.forkVm, the overlay upper dir copied with the source
//    frozen) against moving the same disk as a delta (exportDelta + importDelta, what a fork on
//    another Mac and a snapshot do), for a disk delta of a fresh desktop and of 100 MB more, and how
//    long the source stays frozen meanwhile.
//
//   node bench/fork.ts            (3 rounds through the API, 10 copies per size: ~15 minutes)
//   node bench/fork.ts --quick    (1 round, 3 copies)
//
// Runs as root (the linux driver). Prints markdown tables.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { API_VERSION, type Mini } from '../crds/index.ts';
import { createLogger } from '../api/logger.ts';
import { startServer } from '../api/server.ts';
import { createLinuxDriver, type LinuxHost } from '../hosts/linux/index.ts';
import { run } from '../hosts/linux/runner.ts';
import { seedAccount } from '../test/support/accounts.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { waitFor } from '../test/support/wait.ts';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 1 : 3;
const COPIES = QUICK ? 3 : 10;
const MACS = ['local', 'local-2', 'local-3'];
const IMAGE = 'base-macos-26';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
const median = (v: number[]) => percentile(v, 50);
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

async function throughTheApi(): Promise<Record<string, number[]>> {
  const dir = await tempDir('sandbay-bench-fork-');
  const server = await startServer({
    dataDir: dir.dir,
    hostDriver: 'linux',
    port: 0,
    adminPort: 0,
    logger: createLogger('warn', false),
  });
  try {
    for (const name of MACS.slice(1)) {
      await server.store.create<Mini>({
        apiVersion: API_VERSION,
        kind: 'Mini',
        metadata: { name },
        spec: {
          address: '127.0.0.1',
          model: 'm4',
          driver: 'linux',
          schedulable: true,
          defaultLayout: 'split',
        },
      });
    }
    const key = await seedAccount(server.store, 'bench', 100_000_000);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    await waitFor(
      async () => {
        const r = await fetch(`${server.url}/v1/reservations`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ hours: 24, mini_count: MACS.length }),
        });
        return r.status === 201;
      },
      'three Macs to reserve',
      120_000,
    );
    const child = spawn(
      process.execPath,
      [
        path.join(import.meta.dirname, 'fork-client.ts'),
        JSON.stringify({ url: server.url, key, rounds: ROUNDS }),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`the client exited with ${code}`);
    return JSON.parse(out) as Record<string, number[]>;
  } finally {
    await server.close();
    // What the server's driver powered off is thrown away by a driver that adopts it (no VM user,
    // mount or cgroup of the bench stays on the machine).
    const sweeper = createLinuxDriver({ dataDir: path.join(dir.dir, 'linux'), discardOnClose: true });
    for (const name of MACS) await sweeper.host({ name, address: '127.0.0.1', model: 'm4' }).listVms();
    await sweeper.close();
    await dir.cleanup();
  }
}

interface CopyRow {
  payloadMb: number;
  deltaKb: number;
  fork: number[];
  frozen: number[];
  delta: number[];
}

/** Time of `work`, and how long `host`'s VM `name` was seen frozen meanwhile (sampled every ms). */
async function withFreezeWatch(host: LinuxHost, name: string, work: () => Promise<void>) {
  const { cgroup } = host.describe(name);
  let frozenSince: number | undefined;
  let frozenMs = 0;
  const look = setInterval(() => {
    const now = performance.now();
    if (cgroup.frozen()) frozenSince ??= now;
    else if (frozenSince !== undefined) {
      frozenMs += now - frozenSince;
      frozenSince = undefined;
    }
  }, 1);
  const t0 = performance.now();
  try {
    await work();
  } finally {
    clearInterval(look);
  }
  const ms = performance.now() - t0;
  if (frozenSince !== undefined) frozenMs += performance.now() - frozenSince;
  return { ms, frozenMs };
}

async function theCopy(): Promise<CopyRow[]> {
  const dir = await tempDir('sandbay-bench-forkcopy-');
  const driver = createLinuxDriver({ dataDir: dir.dir, discardOnClose: true, maxVms: 3 });
  const rows: CopyRow[] = [];
  try {
    const host = driver.host({ name: 'forkcopy', address: '127.0.0.1', model: 'm4' });
    await host.createVm({ name: 'src', image: IMAGE, cpu: 2, memoryGiB: 4 });
    await host.startVm('src');
    const upper = path.join(host.describe('src').paths.disk, 'upper');
    for (const payloadMb of [0, 100]) {
      if (payloadMb > 0) {
        // 1,000 files of 100 KB written by the VM's user: an app's data (what a snapshot carries too).
        const r = host.describe('src').record;
        await run(
          'setpriv',
          [
            `--reuid=${r.uid}`,
            `--regid=${r.gid}`,
            '--clear-groups',
            'sh',
            '-c',
            `mkdir -p ${r.home}/data && for i in $(seq 1000); do head -c 100000 /dev/urandom > ${r.home}/data/f$i; done`,
          ],
          { timeoutMs: 300_000 },
        );
      }
      const du = await run('du', ['-sk', upper]);
      const row: CopyRow = {
        payloadMb,
        deltaKb: Number(du.stdout.split('\t')[0]),
        fork: [],
        frozen: [],
        delta: [],
      };
      for (let i = 0; i < COPIES; i++) {
        const f = await withFreezeWatch(host, 'src', () =>
          host.forkVm('src', { name: 'fork', image: IMAGE, cpu: 2, memoryGiB: 4 }).then(() => undefined),
        );
        row.fork.push(f.ms);
        row.frozen.push(f.frozenMs);
        await host.deleteVm('fork');
        const file = path.join(dir.dir, 'delta.tgz');
        const t0 = performance.now();
        await host.exportDelta('src', file);
        await host.createVm({ name: 'moved', image: IMAGE, cpu: 2, memoryGiB: 4 });
        await host.importDelta('moved', file);
        row.delta.push(performance.now() - t0);
        await host.deleteVm('moved');
      }
      rows.push(row);
    }
  } finally {
    await driver.close();
    await dir.cleanup();
  }
  return rows;
}

const started = new Date().toISOString();
const load0 = loadavg()[0]!.toFixed(1);
const api = await throughTheApi();
const copies = await theCopy();
const load1 = loadavg()[0]!.toFixed(1);

console.log(`Fork and pause, ${started}, load ${load0} → ${load1}; ${ROUNDS} round(s) through the API.\n`);
console.log('| through the API (client in its own process) | n | p50 | max | ratio to warm create (p50) |');
console.log('|---|---|---|---|---|');
const warm = median(api['warm create'] ?? [NaN]);
for (const [what, values] of Object.entries(api)) {
  console.log(
    `| ${what} | ${values.length} | ${fmt(median(values))} | ${fmt(Math.max(...values))} | ${(median(values) / warm).toFixed(1)}× |`,
  );
}
console.log(
  '\n| linux driver: a disk copied to a VM of the same Mac | delta | forkVm p50 (p99) | source frozen p50 (p99) | exportDelta + importDelta p50 (p99) | ratio |',
);
console.log('|---|---|---|---|---|---|');
for (const r of copies) {
  console.log(
    `| a running desktop${r.payloadMb ? ` + ${r.payloadMb} MB` : ''} | ${(r.deltaKb / 1024).toFixed(1)} MiB | ${fmt(median(r.fork))} (${fmt(percentile(r.fork, 99))}) | ${fmt(median(r.frozen))} (${fmt(percentile(r.frozen, 99))}) | ${fmt(median(r.delta))} (${fmt(percentile(r.delta, 99))}) | ${(median(r.fork) / median(r.delta)).toFixed(2)}× |`,
  );
}
