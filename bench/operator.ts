// The operator under load. Sim fleet (default 1,000 Macs, 2,000 VMs, the sim's default host
// timings): 1,000 concurrent creates until all are bound; a 500-Mac reservation's expiry until it is
// fully cleaned; steady-state CPU and peak memory. Linux driver: warm create latency from the
// resource written to the sandbox running on a real desktop. The floor each is compared with, in
// the same run: a bare watcher that answers every new resource with a status write (the least any
// store-driven control plane pays: one create, one status write, one watch event each way).
//
//   node bench/operator.ts [--minis 1000] [--creates 1000] [--linux-creates 30] [--no-linux]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  API_VERSION,
  type Account,
  type Mini,
  type Reservation,
  type Sandbox,
  type Task,
  type VM,
} from '../crds/index.ts';
import { createSimDriver } from '../hosts/sim/index.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import { FakeClock } from '../operator/runtime/clock.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';

const { values: args } = parseArgs({
  options: {
    minis: { type: 'string', default: '1000' },
    creates: { type: 'string', default: '1000' },
    'linux-creates': { type: 'string', default: '30' },
    'no-linux': { type: 'boolean', default: false },
  },
});
const MINIS = Number(args.minis);
const CREATES = Number(args.creates);
const LINUX_CREATES = Number(args['linux-creates']);

const rows: string[][] = [];
const row = (...cells: (string | number)[]) => rows.push(cells.map(String));
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 600_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Peak memory, sampled (RSS) and as the kernel counted it (maxRSS). */
const memory = {
  peak: 0,
  timer: setInterval(() => (memory.peak = Math.max(memory.peak, process.memoryUsage().rss)), 50),
};

/** The floor: a bare watcher answering each new Task with a status write; `n` concurrent round trips. */
async function floor(store: SqliteStore, ns: string, n: number, concurrent: boolean): Promise<number[]> {
  const started = new Map<string, number>();
  const lat: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const answer = store.watch<Task>('Task', { namespace: ns }, (e) => {
    if (e.type === 'ADDED') {
      void store.patch(
        { kind: 'Task', namespace: ns, name: e.object.metadata.name },
        { status: { phase: 'ready' } },
        { subresource: 'status' },
      );
    } else if (e.type === 'MODIFIED' && e.object.status?.phase === 'ready') {
      const t0 = started.get(e.object.metadata.name);
      if (t0 !== undefined) {
        lat.push(performance.now() - t0);
        started.delete(e.object.metadata.name);
        if (lat.length === n) done();
      }
    }
  });
  const one = async (i: number) => {
    const name = `t-${ns}-${i}`;
    started.set(name, performance.now());
    await store.create<Task>({
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: { name, namespace: ns },
      spec: { instruction: 'x' },
    });
  };
  if (concurrent) await Promise.all(Array.from({ length: n }, (_, i) => one(i)));
  else
    for (let i = 0; i < n; i++) {
      await one(i);
      await until('floor round trip', () => (lat.length === i + 1 ? true : undefined));
    }
  await all;
  answer.stop();
  return lat;
}

async function account(store: SqliteStore, name: string): Promise<void> {
  const a = await store.create<Account>({
    apiVersion: API_VERSION,
    kind: 'Account',
    metadata: { name },
    spec: { displayName: name, userId: '00000000-0000-4000-8000-000000000001' },
  });
  await store.updateStatus<Account>({ ...a, status: { ledger: [], balanceCents: 1_000_000_000_000 } });
}

async function reserve(store: SqliteStore, ns: string, minis: number): Promise<Reservation> {
  await store.create<Reservation>({
    apiVersion: API_VERSION,
    kind: 'Reservation',
    metadata: { name: 'r1', namespace: ns },
    spec: { hours: 24, miniCount: minis, macModel: 'm4', vmLayout: 'split' },
  });
  return until(`reservation ${ns}`, async () => {
    const r = await store.get<Reservation>({ kind: 'Reservation', namespace: ns, name: 'r1' });
    if (r?.status?.phase === 'cancelled') throw new Error(`reservation cancelled: ${r.status.message}`);
    return r?.status?.phase === 'active' ? r : undefined;
  });
}

function sandbox(ns: string, i: number): Sandbox {
  const name = `sb-${i.toString(16).padStart(8, '0')}${ns === 'a1' ? 'a' : 'b'}${'0'.repeat(23)}`;
  return {
    apiVersion: API_VERSION,
    kind: 'Sandbox',
    metadata: { name, namespace: ns },
    spec: { reservation: 'r1', ephemeral: false },
  };
}

async function simFleet(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sandbay-bench-op-'));
  const store = await openSqliteStore({ file: path.join(dir, 'store.db') });
  const sim = createSimDriver();
  const clock = new FakeClock(Date.now());
  // Business time follows real time (heartbeats, probes) until the expiry jump.
  let last = Date.now();
  const ticker = setInterval(() => {
    const now = Date.now();
    clock.advance(now - last);
    last = now;
  }, 50);
  let op: RunningOperator | undefined;
  try {
    for (let i = 0; i < MINIS; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, MINIS - i) }, (_, j) =>
          store.create<Mini>({
            apiVersion: API_VERSION,
            kind: 'Mini',
            metadata: { name: `mini-${String(i + j).padStart(4, '0')}` },
            spec: {
              address: `10.${(i + j) >> 8}.${(i + j) & 255}.1`,
              model: 'm4',
              driver: 'sim',
              schedulable: true,
            },
          }),
        ),
      );
    }
    const fillStart = performance.now();
    op = await startOperator({
      store,
      drivers: { sim },
      blobDir: path.join(dir, 'blobs'),
      clock,
      concurrency: { pool: 256, mini: 64, sandbox: 64 },
    });
    const warm = () =>
      op!.informers.vms.list().filter((vm) => vm.status?.phase === 'warm' && !vm.spec.sandbox).length;
    await until('warm pools', () => (warm() === MINIS * 2 ? true : undefined));
    const fillMs = performance.now() - fillStart;
    row(
      'sim: fill the warm pools of the fleet (start → every VM warm)',
      '',
      '',
      `${(fillMs / 1000).toFixed(1)} s for ${MINIS * 2} VMs`,
      '',
      '',
    );

    await account(store, 'a1');
    await account(store, 'a2');
    const half = MINIS / 2;
    const actStart = performance.now();
    const [r1] = await Promise.all([reserve(store, 'a1', half), reserve(store, 'a2', half)]);
    row(
      `sim: activate two ${half}-Mac reservations`,
      '',
      '',
      `${ms(performance.now() - actStart)} ms`,
      '',
      '',
    );

    // 1,000 concurrent creates: latency from the write to the status that says running.
    const written = new Map<string, number>();
    const bound = new Map<string, number>();
    const watch = store.watch<Sandbox>('Sandbox', {}, (e) => {
      const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
      if (e.object.status?.phase === 'running' && !bound.has(key)) bound.set(key, performance.now());
      if (e.object.status?.phase === 'failed') throw new Error(`${key} failed: ${e.object.status.reason}`);
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CREATES }, async (_, i) => {
        const sb = sandbox(i % 2 === 0 ? 'a1' : 'a2', i);
        written.set(`${sb.metadata.namespace}/${sb.metadata.name}`, performance.now());
        await store.create(sb);
      }),
    );
    await until('every create bound', () => (bound.size === CREATES ? true : undefined));
    const total = Math.max(...bound.values()) - t0;
    const cpu = process.cpuUsage(cpu0);
    watch.stop();
    const lat = [...bound].map(([k, t]) => t - written.get(k)!);
    const floorLat = await floor(store, 'floor', CREATES, true);
    row(
      `sim: ${CREATES} concurrent creates, write → running (per create)`,
      ms(pct(lat, 50)),
      ms(pct(lat, 99)),
      `all bound in ${ms(total)} ms (target ≤ 5000)`,
      ms(pct(floorLat, 50)),
      `${(pct(lat, 50) / pct(floorLat, 50)).toFixed(1)}×`,
    );
    row(
      `sim: CPU while binding ${CREATES} creates`,
      '',
      '',
      `${((cpu.user + cpu.system) / 1000 / total).toFixed(2)} cores`,
      '',
      '',
    );

    // Expiry of the first 500-Mac reservation: sandboxes completing then gone, key revoked, Macs released.
    const r1Minis = new Set(r1.status!.minis!);
    const e0 = performance.now();
    clock.advance(Date.parse(r1.status!.endAt!) - clock.now());
    await until('reservation a1/r1 completed', async () =>
      (await store.get<Reservation>({ kind: 'Reservation', namespace: 'a1', name: 'r1' }))?.status?.phase ===
      'completed'
        ? true
        : undefined,
    );
    const completed = performance.now() - e0;
    await until('released Macs warm again', () => {
      const vms = op!.informers.vms.list().filter((vm: VM) => r1Minis.has(vm.spec.mini));
      return vms.length === r1Minis.size * 2 &&
        vms.every((vm) => vm.status?.phase === 'warm' && !vm.spec.sandbox)
        ? true
        : undefined;
    });
    const rewarmed = performance.now() - e0;
    row(
      `sim: expiry of a ${half}-Mac reservation (${half} sandboxes)`,
      '',
      '',
      `completed in ${ms(completed)} ms; pools warm again in ${ms(rewarmed)} ms`,
      '',
      '',
    );

    // Steady state: the fleet idles (probes every 10 s per Mac, heartbeats written each minute).
    await new Promise((r) => setTimeout(r, 2_000));
    const s0 = process.cpuUsage();
    const w0 = performance.now();
    await new Promise((r) => setTimeout(r, 20_000));
    const s = process.cpuUsage(s0);
    row(
      `sim: steady-state CPU, ${MINIS} Macs idle (20 s)`,
      '',
      '',
      `${((100 * (s.user + s.system)) / 1000 / (performance.now() - w0)).toFixed(1)} % of one core`,
      '',
      '',
    );
  } finally {
    clearInterval(ticker);
    await op?.stop();
    await sim.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
  row(
    'sim: peak memory of the process (store + operator + sim fleet)',
    '',
    '',
    `${(memory.peak / 2 ** 20).toFixed(0)} MiB sampled, ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB maxRSS (target ≤ 512)`,
    '',
    '',
  );
}

async function linux(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sandbay-bench-op-linux-'));
  const store = await openSqliteStore({ file: path.join(dir, 'store.db') });
  // Loaded only when measured: the sim part runs where the linux driver cannot.
  const { createLinuxDriver } = await import('../hosts/linux/index.ts');
  const driver = createLinuxDriver({ dataDir: path.join(dir, 'linux'), discardOnClose: true });
  let op: RunningOperator | undefined;
  try {
    op = await startOperator({ store, drivers: { linux: driver }, blobDir: path.join(dir, 'blobs') });
    const warmPool = () =>
      until('local warm pool', () => {
        const vms = op!.informers.vms.list();
        return vms.length === 2 && vms.every((vm) => vm.status?.phase === 'warm' && !vm.spec.sandbox)
          ? true
          : undefined;
      });
    await warmPool();
    await account(store, 'acme');
    await reserve(store, 'acme', 1);
    await warmPool();
    const lat: number[] = [];
    for (let i = 0; i < LINUX_CREATES; i++) {
      const sb = sandbox('acme', i);
      const t0 = performance.now();
      await store.create(sb);
      await until('running', () => {
        const s = op!.informers.sandboxes.get(`acme/${sb.metadata.name}`);
        if (s?.status?.phase === 'failed') throw new Error(`failed: ${s.status.reason}`);
        return s?.status?.phase === 'running' ? true : undefined;
      });
      lat.push(performance.now() - t0);
      await store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
      await until('gone', () => (op!.informers.sandboxes.get(`acme/${sb.metadata.name}`) ? undefined : true));
      await warmPool();
    }
    const floorLat = await floor(store, 'floor', LINUX_CREATES, false);
    row(
      `linux: warm create, write → running on a real desktop (${LINUX_CREATES}, one at a time)`,
      ms(pct(lat, 50)),
      ms(pct(lat, 99)),
      '',
      ms(pct(floorLat, 50)),
      `${(pct(lat, 50) / pct(floorLat, 50)).toFixed(1)}×`,
    );
  } finally {
    await op?.stop();
    await driver.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await simFleet();
if (!args['no-linux']) await linux();
clearInterval(memory.timer);
console.log('| measurement | median ms | p99 ms | result | floor median ms | ratio to floor |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
