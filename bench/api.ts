// Customer API benchmark on real desktops (linux driver under the real operator, one process, as
// `sandbay server` runs), each figure next to its peer measured in the same run:
// 1. warm create, POST /v1/sandboxes → 201 (target p50 ≤ 50 ms, p99 ≤ 150 ms);
// 2. authenticated GET /v1/sandboxes/{id} with autocannon, next to a bare Fastify route answering a
//    constant (target ≥ 60 % of its req/s, p99 ≤ 10 ms); autocannon runs in its own process;
// 3. a screenshot through the API next to the driver's guest.screenshot() on the same VM;
// 4. VNC throughput (full raw framebuffer updates) through the WebSocket proxy next to the VM's
//    VNC server directly (target ≥ 90 %), and the round trip of a small update.
//
//   node bench/api.ts            (about two minutes)
//   node bench/api.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { Worker } from 'node:worker_threads';
import type { Sandbox } from '../crds/index.ts';
import { buildCustomerApp } from '../api/app.ts';
import { SandboxInfoSchema } from '../api/schemas/sandboxes.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';
import { startOperator } from '../operator/index.ts';
import { openStore, seedAccount, tempDir, waitFor } from '../test/api-harness.ts';

const run = promisify(execFile);
const QUICK = process.argv.includes('--quick');
const N = (full: number): number => (QUICK ? Math.max(3, Math.round(full / 10)) : full);
const AUTOCANNON_S = QUICK ? 2 : 8;
/** `--only create|get|screenshot|vnc` runs one section (profiling). */
const ONLY = process.argv[process.argv.indexOf('--only') + 1];
const section = (name: string): boolean => !process.argv.includes('--only') || ONLY === name;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const f1 = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

async function timed(n: number, op: () => Promise<unknown>, warmup = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await op();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op();
    ms.push(performance.now() - t);
  }
  return ms;
}

interface Cannon {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** autocannon in its own process, so the load generator does not share the server's event loop. */
async function autocannon(url: string, headers: Record<string, string> = {}): Promise<Cannon> {
  const cli = path.join(import.meta.dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
  const args = [
    cli,
    '-j',
    '-c',
    '10',
    '-d',
    String(AUTOCANNON_S),
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    url,
  ];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const r = JSON.parse(stdout);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

async function main(): Promise<void> {
  const tmp = await tempDir('sandbay-bench-api-');
  const store = await openStore(tmp.dir);
  const driver = createLinuxDriver({ dataDir: path.join(tmp.dir, 'linux'), discardOnClose: true });
  await mkdir(path.join(tmp.dir, 'blobs'));
  const operator = await startOperator({
    store,
    drivers: { linux: driver },
    blobDir: path.join(tmp.dir, 'blobs'),
    localMini: true,
  });
  // The rate limit stays on (its cost is part of every request), set high enough not to refuse.
  const app = await buildCustomerApp({
    store,
    drivers: { linux: driver },
    bootId: 'bench',
    environment: 'bench',
    rateLimit: { max: 1e9, timeWindowMs: 60_000 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const bare = Fastify();
  bare.get('/constant', async () => ({ ok: true }));
  // A second peer: the same sandbox-info body with the same response schema, no auth, no store.
  let sameBody: unknown;
  bare.get('/same-body', { schema: { response: { 200: SandboxInfoSchema } } }, async () => sameBody);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/constant`;
  const key = await seedAccount(store, 'bench', 1e9);
  const auth = { authorization: `Bearer ${key}` };
  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: { ...auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  };
  const json = async (method: string, url: string, body?: unknown) =>
    JSON.parse((await api(method, url, body)).body.toString());
  const rows: string[] = [];
  try {
    await waitFor(
      async () => (await json('GET', '/v1/platforms')).models[0].available_minis > 0,
      'the local Mac',
      60_000,
    );
    const reservation = await json('POST', '/v1/reservations', { hours: 24 });
    if (reservation.status !== 'active') throw new Error(`reservation: ${JSON.stringify(reservation)}`);
    const warmVms = async () =>
      (await json('GET', '/v1/platforms')).reservation?.minis[0]?.warm_vms.length ?? 0;
    await waitFor(async () => (await warmVms()) >= 2, 'two warm VMs', 60_000);

    // 1. warm create
    if (section('create')) await benchCreate();
    async function benchCreate() {
      const createMs: number[] = [];
      let cold = 0;
      for (let i = 0; i < N(30) + 2; i++) {
        await waitFor(async () => (await warmVms()) >= 2, 'the pool to refill', 60_000);
        const t = performance.now();
        const r = await api('POST', '/v1/sandboxes', {});
        const ms = performance.now() - t;
        if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body}`);
        const sb = JSON.parse(r.body.toString());
        if (i >= 2) createMs.push(ms); // two warm-ups
        if (sb.boot !== 'warm') cold++;
        await api('DELETE', `/v1/sandboxes/${sb.sandbox_id}`);
      }
      rows.push(
        `| warm create, POST /v1/sandboxes → 201 | ${f1(percentile(createMs, 50))} ms | ${f1(percentile(createMs, 99))} ms | n=${createMs.length}${cold ? `, ${cold} cold` : ''} | target p50 ≤ 50 ms, p99 ≤ 150 ms |`,
      );
    }

    await waitFor(async () => (await warmVms()) >= 2, 'the pool to refill', 60_000);
    const sb = (await json('POST', '/v1/sandboxes', {})).sandbox_id as string;

    // 2. authenticated GET next to a bare route
    if (section('get')) {
      await autocannon(bareUrl); // warm-up of both servers
      await autocannon(`${base}/v1/sandboxes/${sb}`, auth);
      sameBody = await json('GET', `/v1/sandboxes/${sb}`);
      const b = await autocannon(bareUrl);
      const same = await autocannon(bareUrl.replace('/constant', '/same-body'));
      const a = await autocannon(`${base}/v1/sandboxes/${sb}`, auth);
      if (a.non2xx || a.errors) throw new Error(`GET sandbox: ${a.non2xx} non-2xx, ${a.errors} errors`);
      rows.push(
        `| bare Fastify route (constant JSON), autocannon -c 10 | ${Math.round(b.rps)} req/s | p99 ${b.p99} ms | p50 ${b.p50} ms | peer |`,
      );
      rows.push(
        `| bare Fastify route answering the same sandbox-info JSON (response schema) | ${Math.round(same.rps)} req/s | p99 ${same.p99} ms | ${((same.rps / b.rps) * 100).toFixed(0)} % of bare | peer: framework + body size |`,
      );
      rows.push(
        `| authenticated GET /v1/sandboxes/{id}, autocannon -c 10 | ${Math.round(a.rps)} req/s | p99 ${a.p99} ms | **${((a.rps / b.rps) * 100).toFixed(0)} %** of bare | target ≥ 60 %, p99 ≤ 10 ms |`,
      );
    }

    // 3. screenshot through the API next to the driver
    const sandbox = (await store.get<Sandbox>({ kind: 'Sandbox', namespace: 'bench', name: sb }))!;
    const guest = driver
      .host({ name: 'local', address: '127.0.0.1', model: 'm4' })
      .guest(sandbox.status!.vm!);
    if (section('screenshot')) {
      const viaDriver = await timed(N(30), () => guest.screenshot({ format: 'png' }));
      const viaApi = await timed(N(30), () => api('GET', `/v1/sandboxes/${sb}/screenshot`));
      rows.push(
        `| screenshot PNG 1280×800, guest.screenshot() | ${f1(percentile(viaDriver, 50))} ms | ${f1(percentile(viaDriver, 99))} ms | n=${viaDriver.length} | peer |`,
      );
      rows.push(
        `| screenshot PNG 1280×800, GET /screenshot | ${f1(percentile(viaApi, 50))} ms | ${f1(percentile(viaApi, 99))} ms | **${(percentile(viaApi, 50) / percentile(viaDriver, 50)).toFixed(2)}×** driver (p50) | |`,
      );
    }

    // 4. VNC: direct next to the proxy, the viewer in its own thread
    if (section('vnc')) {
      const vnc = await guest.vnc();
      const link = await json('POST', `/v1/sandboxes/${sb}/viewer-token`);
      const viewer = new Worker(new URL('./api-vnc-viewer.ts', import.meta.url), {
        workerData: {
          vnc,
          link: `${base.replace('http', 'ws')}${link.vnc_url}`,
          frames: N(30),
          roundTrips: N(50),
          rounds: 3,
        },
      });
      type Rates = { cycle: number; transfer: number };
      const v = await new Promise<{ direct: Rates; proxied: Rates; rtDirect: number[]; rtProxy: number[] }>(
        (resolve, reject) => viewer.once('message', resolve).once('error', reject),
      );
      const mb = (x: number) => (x / 1e6).toFixed(0);
      const pct = (a: number, b: number) => `**${((a / b) * 100).toFixed(0)} %**`;
      const rtd = percentile(v.rtDirect, 50);
      const rtp = percentile(v.rtProxy, 50);
      const frames = `${N(30)} × 4 MB frames × 3 rounds`;
      rows.push(
        `| VNC full raw update transfer (first → last byte), direct TCP | ${mb(v.direct.transfer)} MB/s | | ${frames} | peer |`,
        `| VNC full raw update transfer (first → last byte), /vnc WebSocket proxy | ${mb(v.proxied.transfer)} MB/s | | ${pct(v.proxied.transfer, v.direct.transfer)} of direct | target ≥ 90 % |`,
        `| VNC request → full update, direct TCP | ${mb(v.direct.cycle)} MB/s | small update RTT p50 ${f1(rtd)} ms | includes x11vnc's polling loop | peer |`,
        `| VNC request → full update, /vnc WebSocket proxy | ${mb(v.proxied.cycle)} MB/s | small update RTT p50 ${f1(rtp)} ms | ${pct(v.proxied.cycle, v.direct.cycle)} of direct, ${rtp - rtd >= 0 ? '+' : ''}${f1(rtp - rtd)} ms RTT | |`,
      );
    }
  } finally {
    await app.close();
    await bare.close();
    await operator.stop();
    await driver.close();
    await store.close();
    await tmp.cleanup();
  }
  console.log('| what | median / rate | p99 / other | notes | target |');
  console.log('|---|---:|---:|---|---|');
  for (const r of rows) console.log(r);
}

await main();
