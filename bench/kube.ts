// Kubernetes-mode benchmark, in one run:
// 1. store operations through the client-node backend (store/kube) against sandbay's embedded
//    kube-compatible API server (HTTPS, bearer token), next to the same operations on the SQLite
//    store that server runs on: the ratio is what the HTTP API round trip costs;
// 2. watch delivery latency through a client-node watch (write acknowledged → event received);
// 3. leader failover after SIGKILL of the leading replica (two processes on one store), 10 runs.
//
//   node bench/kube.ts [--quick]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildAdminApp } from '../api/admin-app.ts';
import { listenHttpAndHttps } from '../api/admin-listener.ts';
import { ensureAdminTls } from '../api/admin-tls.ts';
import { apiKeyResource, generateKey } from '../api/keys.ts';
import type { AnyResource } from '../crds/index.ts';
import { loadKubeConfig } from '../store/kube/config.ts';
import { connectKubeStore } from '../store/kube/kube-store.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';

const QUICK = process.argv.includes('--quick');
const OPS = QUICK ? 100 : 500;
const FAILOVERS = QUICK ? 3 : 10;
const LEASE = { leaseMs: 5000, renewMs: 3500, retryMs: 500 };

const dir = mkdtempSync(join(tmpdir(), 'sandbay-bench-kube-'));
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ??
  NaN;
const median = (values: number[]) => percentile(values, 50);

function task(ns: string, name: string): AnyResource {
  return {
    apiVersion: 'sandbay.io/v1alpha1',
    kind: 'Task',
    metadata: { name, namespace: ns, labels: { bench: 'yes' } },
    spec: { instruction: 'open the settings app' },
  };
}

/** ops/s of `op` run OPS times by `writers` concurrent callers, and per-op latencies. */
async function measure(writers: number, op: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let i = next++; i < OPS; i = next++) {
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return {
    perSec: OPS / ((performance.now() - started) / 1000),
    p50: median(latencies),
    p99: percentile(latencies, 99),
  };
}

async function storeCases(name: string, store: Store, ns: string) {
  const rows: { backend: string; op: string; perSec: number; p50: number; p99: number }[] = [];
  const created: AnyResource[] = [];
  for (const writers of [1, 4]) {
    const r = await measure(writers, async (i) =>
      created.push(await store.create(task(ns, `c${writers}-${i}`))),
    );
    rows.push({ backend: name, op: `create ×${writers}`, ...r });
  }
  rows.push({
    backend: name,
    op: 'get',
    ...(await measure(1, (i) =>
      store.get({ kind: 'Task', namespace: ns, name: created[i % created.length]!.metadata.name }),
    )),
  });
  rows.push({
    backend: name,
    op: 'update (conditional)',
    ...(await measure(1, async (i) => {
      const obj = created[i % created.length]!;
      const updated = await store.update({
        ...obj,
        metadata: { ...obj.metadata, labels: { bench: `u${i}` } },
      });
      created[i % created.length] = updated;
    })),
  });
  // Watch delivery: write, then time until the watch hands over the event.
  const pending = new Map<string, number>();
  const delivery: number[] = [];
  const watch = store.watch('Task', { namespace: ns }, (e) => {
    const t = pending.get(e.object.metadata.name);
    if (t !== undefined && e.type === 'ADDED') delivery.push(performance.now() - t);
  });
  for (let i = 0; i < OPS / 2; i++) {
    const nameI = `w-${i}`;
    pending.set(nameI, performance.now());
    await store.create(task(ns, nameI));
  }
  const deadline = Date.now() + 10_000;
  while (delivery.length < OPS / 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  watch.stop();
  rows.push({
    backend: name,
    op: 'watch delivery',
    perSec: NaN,
    p50: median(delivery),
    p99: percentile(delivery, 99),
  });
  return rows;
}

async function failover(): Promise<number[]> {
  const times: number[] = [];
  const file = join(dir, 'leader.sqlite');
  for (let run = 0; run < FAILOVERS; run++) {
    const children = ['a', 'b'].map((id) => {
      const child = spawn(process.execPath, [
        join(import.meta.dirname, 'leader-child.ts'),
        file,
        `${id}-${run}`,
        String(LEASE.leaseMs),
        String(LEASE.renewMs),
        String(LEASE.retryMs),
      ]);
      const leading: number[] = [];
      createInterface({ input: child.stdout }).on('line', (l) => {
        if (l.startsWith('LEADING ')) leading.push(Number(l.slice(8)));
      });
      return { child, leading };
    });
    while (!children.some((c) => c.leading.length > 0)) await new Promise((r) => setTimeout(r, 20));
    const leader = children.find((c) => c.leading.length > 0)!;
    const follower = children.find((c) => c !== leader)!;
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    while (follower.leading.length === 0) await new Promise((r) => setTimeout(r, 20));
    times.push(follower.leading[0]! - killedAt);
    follower.child.kill('SIGKILL');
    await new Promise((r) => follower.child.on('exit', r));
  }
  return times;
}

const embedded = await openSqliteStore({ file: join(dir, 'store.sqlite') });
const key = generateKey();
await embedded.create(apiKeyResource(key, { kind: 'admin' }));
const ca = join(dir, 'tls.crt');
const listener = await listenHttpAndHttps(await buildAdminApp({ store: embedded }), {
  port: 0,
  host: '127.0.0.1',
  tls: await ensureAdminTls(ca, join(dir, 'tls.key'), '127.0.0.1'),
});
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(
  kubeconfig,
  `apiVersion: v1
kind: Config
current-context: bench
clusters: [{ name: bench, cluster: { server: "${listener.httpsUrl}", certificate-authority: "${ca}" } }]
users: [{ name: admin, user: { token: "${key.plaintext}" } }]
contexts: [{ name: bench, context: { cluster: bench, user: admin } }]
`,
);
const kube = await connectKubeStore(loadKubeConfig({ kubeconfig }));
const rows = [
  ...(await storeCases('sqlite', embedded, 'bench-sqlite')),
  ...(await storeCases('kube', kube, 'bench-kube')),
];
await kube.close();
await listener.close();
await embedded.close();
const failovers = await failover();
rmSync(dir, { recursive: true, force: true });

const fmt = (n: number) => (Number.isNaN(n) ? '—' : n >= 100 ? n.toFixed(0) : n.toFixed(2));
console.log(`\n| op | sqlite ops/s | kube ops/s | kube / sqlite | sqlite p50 / p99 ms | kube p50 / p99 ms |`);
console.log('|---|---|---|---|---|---|');
for (const r of rows.filter((x) => x.backend === 'sqlite')) {
  const k = rows.find((x) => x.backend === 'kube' && x.op === r.op)!;
  console.log(
    `| ${r.op} | ${fmt(r.perSec)} | ${fmt(k.perSec)} | ${Number.isNaN(r.perSec) ? '—' : `${((k.perSec / r.perSec) * 100).toFixed(1)}%`} | ${fmt(r.p50)} / ${fmt(r.p99)} | ${fmt(k.p50)} / ${fmt(k.p99)} |`,
  );
}
const target = LEASE.leaseMs + 2000;
console.log(
  `\nleader failover after SIGKILL (lease ${LEASE.leaseMs} ms, renew ${LEASE.renewMs} ms, retry ${LEASE.retryMs} ms), ${failovers.length} runs: p50 ${median(failovers)} ms, max ${Math.max(...failovers)} ms (target ≤ ${target} ms: ${Math.max(...failovers) <= target ? 'met' : 'missed'})`,
);
