// The burst of bench/api.ts: 100 creates sent at once through the API to a reservation of 50 sim
// Macs (split: 100 warm VMs), on the server `sandbay server --host-driver sim` runs: startServer, as
// the CLI calls it (operator and both listeners in one process, the store at its default
// durability, request logs written to a file). Labs start rollouts in bursts; each create's latency
// is taken as its client sees it. Run alone, the process loads nothing of the test suite (vitest
// and its chunks are megabytes of heap the server does not carry); run from bench/api.ts, it holds
// that script's imports too.
//
//   node bench/api-burst.ts        (under a minute; also `node bench/api.ts --only burst`)
import { createWriteStream } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { API_VERSION, type Mini, type VM } from '../crds/index.ts';
import { createLogger } from '../api/logger.ts';
import { startServer } from '../api/server.ts';
import { seedAccount } from '../test/support/accounts.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { waitFor } from '../test/support/wait.ts';

export interface BurstResult {
  single: number[];
  /** The bursts in order: the first on a server that has served three creates, then one after another. */
  bursts: Burst[];
}

export interface Burst {
  creates: number[];
  /** The sandboxes made (deleted before the next burst). */
  ids: string[];
  cold: number;
  /** Store writes (resourceVersions) during the burst, per create. */
  writesPerCreate: number;
  /** CPU time of the server's main thread during the burst, per create (less load-sensitive than latency). */
  cpuMsPerCreate: number;
}

interface BurstCall {
  ms: number;
  status: number;
  boot?: string;
  error?: string;
  id?: string;
}

/** The client thread of the bursts (bench/api-burst-client.ts), started before the first. */
async function burstClient(url: string, headers: Record<string, string>) {
  const worker = new Worker(new URL('./api-burst-client.ts', import.meta.url), {
    workerData: { url, headers },
  });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      const fail = (err: unknown) =>
        reject(err instanceof Error ? err : new Error(`burst client exited (${err})`));
      worker.once('message', (m: T) => {
        worker.off('error', fail).off('exit', fail);
        resolve(m);
      });
      worker.once('error', fail).once('exit', fail);
    });
  await next<'ready'>();
  return {
    /** `count` creates sent at once; resolves with each one's answer and time. */
    burst(count: number): Promise<BurstCall[]> {
      const results = next<BurstCall[]>();
      worker.postMessage(count);
      return results;
    },
    /** Closes the last burst's connections (kept alive until then, as the SDKs keep theirs). */
    closeConnections(): Promise<'closed'> {
      const closed = next<'closed'>();
      worker.postMessage('close');
      return closed;
    },
    close: () => worker.terminate(),
  };
}

export async function benchBurst(macs = 50, creates = 100, rounds = 3): Promise<BurstResult> {
  const { dir, cleanup } = await tempDir('sandbay-bench-burst-');
  const log = createWriteStream(path.join(dir, 'server.log'));
  const server = await startServer({
    dataDir: dir,
    hostDriver: 'sim',
    port: 0,
    adminPort: 0,
    logger: createLogger('info', false, log),
  });
  const { store } = server;
  try {
    const base = server.url;
    for (let i = 0; i < macs; i++) {
      await store.create<Mini>({
        apiVersion: API_VERSION,
        kind: 'Mini',
        metadata: { name: `burst-${i}` },
        spec: {
          address: `10.9.${Math.floor(i / 250)}.${(i % 250) + 1}`,
          model: 'm4',
          driver: 'sim',
          schedulable: true,
        },
      });
    }
    const key = await seedAccount(store, 'burst', 1e12);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (url: string, body: unknown) => {
      const t = performance.now();
      const res = await fetch(`${base}${url}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = (await res.json()) as Record<string, unknown>;
      return { ms: performance.now() - t, status: res.status, json };
    };
    const available = async () =>
      (await store.list<Mini>('Mini')).items.filter((m) => m.status?.phase === 'available').length;
    await waitFor(async () => (await available()) === macs, 'every Mac available', 120_000);
    const r = await post('/v1/reservations', { hours: 24, mini_count: macs });
    if (r.status !== 201) throw new Error(`reservation: ${r.status} ${JSON.stringify(r.json)}`);
    const warm = async () =>
      (await store.list<VM>('VM')).items.filter((vm) => vm.status?.phase === 'warm' && !vm.spec.sandbox)
        .length;
    await waitFor(async () => (await warm()) >= macs * 2, `${macs * 2} warm VMs`, 180_000);
    // One create alone, for scale (then deleted; the pool refills before the burst).
    const single: number[] = [];
    for (let i = 0; i < 3; i++) {
      const one = await post('/v1/sandboxes', {});
      if (one.status !== 201) throw new Error(`create: ${one.status} ${JSON.stringify(one.json)}`);
      single.push(one.ms);
      await fetch(`${base}/v1/sandboxes/${String(one.json.sandbox_id)}`, { method: 'DELETE', headers });
      await waitFor(async () => (await warm()) >= macs * 2, 'the pool to refill', 60_000);
    }
    const rv = async () => Number((await store.list('Rate')).resourceVersion);
    const client = await burstClient(`${base}/v1/sandboxes`, headers);
    const bursts: Burst[] = [];
    for (let b = 0; b < rounds; b++) {
      if (b > 0) {
        // The last burst's sandboxes go, and the pools refill, before the next.
        const ids = bursts[b - 1]!.ids;
        await Promise.all(
          ids.map((id) => fetch(`${base}/v1/sandboxes/${id}`, { method: 'DELETE', headers })),
        );
        await waitFor(async () => (await warm()) >= macs * 2, 'the pool to refill', 120_000);
      }
      const rv0 = await rv();
      const cpu0 = process.threadCpuUsage();
      const results = await client.burst(creates);
      const cpu = process.threadCpuUsage(cpu0);
      const writes = (await rv()) - rv0;
      await client.closeConnections();
      const failed = results.filter((x) => x.status !== 201);
      if (failed.length > 0) throw new Error(`burst: ${failed.length} failed, e.g. ${failed[0]!.error}`);
      bursts.push({
        creates: results.map((x) => x.ms),
        ids: results.map((x) => x.id!),
        cold: results.filter((x) => x.boot !== 'warm').length,
        writesPerCreate: writes / creates,
        cpuMsPerCreate: (cpu.user + cpu.system) / 1000 / creates,
      });
    }
    await client.close();
    return { single, bursts };
  } finally {
    await server.close();
    await new Promise((resolve) => log.end(resolve));
    await cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchBurst();
  const pct = (v: number[], p: number) =>
    [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;
  console.log(
    `one create alone: ${r.single.map((v) => v.toFixed(1)).join(' / ')} ms; load ${loadavg()[0]!.toFixed(1)}`,
  );
  r.bursts.forEach((b, i) =>
    console.log(
      `burst ${i + 1} of ${b.creates.length}: p50 ${pct(b.creates, 50).toFixed(1)} ms, p99 ${pct(b.creates, 99).toFixed(1)} ms, ${b.cold} cold; ${b.writesPerCreate.toFixed(2)} writes and ${b.cpuMsPerCreate.toFixed(2)} ms main-thread CPU per create`,
    ),
  );
}
