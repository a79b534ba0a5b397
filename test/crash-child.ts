// The process the crash test kills: the SQLite store, the operator and the sim Macs in one
// process, as `sandbay server` runs them, plus a client storm of creates, deletes, snapshots of
// running sandboxes and restores of ready snapshots (a restore is a create with `spec.snapshot`).
//
//   node test/crash-child.ts <dir> storm   runs until SIGKILLed; prints `BEGIN create|restore|snapshot`
//                                          as it starts one, `ACK <name>` once a sandbox
//                                          runs, `DELETING <name>` before asking to delete it and
//                                          `DEL <name>` once the deletion is written,
//                                          `SNAPREADY <snap>` once a capture is ready, `SNAPDELETING
//                                          <snap>` before asking to delete a snapshot, `CAPTURING
//                                          <snap>` once it sees a capture under way; on start,
//                                          `FOUND {"capturing":n}`: captures a killed run left open
//   node test/crash-child.ts <dir> check   settles, prints `REPORT <json>`, deletes every sandbox,
//                                          waits for the pools, prints `FINAL <json>`, exits
//
// The sim's Macs live in memory, but real Macs outlive a crash of the control plane: the sim is
// journaled to `sim-state.json` (test/support/journaled-sim.ts) and replayed on start.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  API_VERSION,
  type Account,
  type Mini,
  type Reservation,
  type Sandbox,
  type Snapshot,
  type VM,
} from '../crds/index.ts';
import { journaledSim } from './support/journaled-sim.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import { pino } from 'pino';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import { createBlobStore } from '../operator/blob-store.ts';

const MINIS = 6;
const SIZES: Partial<Sandbox['spec']>[] = [
  {},
  {},
  { cpu: 3, memoryGiB: 6 },
  { cpu: 7, memoryGiB: 8 },
  { cpu: 2, memoryGiB: 4 },
];

async function createIfMissing<T extends Mini | Account | Reservation>(
  store: SqliteStore,
  obj: T,
): Promise<void> {
  const existing = await store.get(
    obj.metadata.namespace
      ? { kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace }
      : { kind: obj.kind, name: obj.metadata.name },
  );
  if (existing) return;
  const created = await store.create(obj);
  if (obj.kind === 'Account')
    await store.updateStatus({ ...created, status: { ledger: [], balanceCents: 1_000_000_000 } });
}

async function ensureFleet(store: SqliteStore): Promise<void> {
  for (let i = 1; i <= MINIS; i++) {
    await createIfMissing<Mini>(store, {
      apiVersion: API_VERSION,
      kind: 'Mini',
      metadata: { name: `mini-${i}` },
      spec: { address: `10.0.0.${i}`, model: 'm4', driver: 'sim', schedulable: true },
    });
  }
  await createIfMissing<Account>(store, {
    apiVersion: API_VERSION,
    kind: 'Account',
    metadata: { name: 'acme' },
    spec: { displayName: 'Acme', userId: '00000000-0000-4000-8000-000000000001' },
  });
  await createIfMissing<Reservation>(store, {
    apiVersion: API_VERSION,
    kind: 'Reservation',
    metadata: { name: 'r1', namespace: 'acme' },
    spec: { hours: 24, miniCount: MINIS, macModel: 'm4', vmLayout: 'split' },
  });
}

async function until<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  return undefined;
}

const snapshotKey = (name: string) => ({ kind: 'Snapshot', namespace: 'acme', name });

/** Captures a running sandbox; says `SNAPREADY` once the capture is ready (it may fail: source deleted). */
async function snapshotOne(store: SqliteStore, source: string, name: string, ready: string[]): Promise<void> {
  await store.create<Snapshot>({
    apiVersion: API_VERSION,
    kind: 'Snapshot',
    metadata: { name, namespace: 'acme' },
    spec: { sourceSandbox: source, name: 'crash' },
  });
  let seenCapturing = false;
  const done = await until(async () => {
    const phase = (await store.get<Snapshot>(snapshotKey(name)))?.status?.phase;
    if (phase === 'capturing' && !seenCapturing) {
      seenCapturing = true;
      process.stdout.write(`CAPTURING ${name}\n`);
    }
    return phase === 'ready' || phase === 'failed' ? phase : undefined;
  }, 10_000);
  if (done === 'ready') {
    ready.push(name);
    process.stdout.write(`SNAPREADY ${name}\n`);
  } else if (done) {
    await store.delete(snapshotKey(name));
  }
}

async function storm(store: SqliteStore): Promise<never> {
  // The client remembers what the killed runs left: running sandboxes, ready snapshots.
  const acked = (await store.list<Sandbox>('Sandbox')).items
    .filter((s) => s.status?.phase === 'running' && !s.metadata.deletionTimestamp)
    .map((s) => s.metadata.name);
  const ready = (await store.list<Snapshot>('Snapshot')).items
    .filter((s) => s.status?.phase === 'ready' && !s.metadata.deletionTimestamp)
    .map((s) => s.metadata.name);
  // Names unique across the run's children: a random run id (pids wrap, and may repeat), then a count.
  const run = randomBytes(4).toString('hex');
  let seq = 0;
  const id = () => `${run}${(++seq).toString(16).padStart(24, '0')}`;
  const worker = async (): Promise<never> => {
    for (;;) {
      const dice = Math.random();
      if (acked.length > 0 && dice < 0.12) {
        process.stdout.write('BEGIN snapshot\n');
        await snapshotOne(store, acked[Math.floor(Math.random() * acked.length)]!, `sn-${id()}`, ready);
        continue;
      }
      if (ready.length > 3 && dice < 0.16) {
        const [snap] = ready.splice(Math.floor(Math.random() * ready.length), 1);
        process.stdout.write(`SNAPDELETING ${snap}\n`);
        await store.delete(snapshotKey(snap!));
        continue;
      }
      if (acked.length > 3 && Math.random() < 0.45) {
        const [name] = acked.splice(Math.floor(Math.random() * acked.length), 1);
        // Said before the call: once asked, a delete may happen even if this process dies first.
        process.stdout.write(`DELETING ${name}\n`);
        await store.delete({ kind: 'Sandbox', namespace: 'acme', name: name! });
        process.stdout.write(`DEL ${name}\n`);
        continue;
      }
      const name = `sb-${id()}`;
      // A third of the creates restore a ready snapshot (a cold boot with its delta), default size.
      const restore = ready.length > 0 && Math.random() < 0.33;
      const spec: Partial<Sandbox['spec']> = restore
        ? { snapshot: ready[Math.floor(Math.random() * ready.length)]! }
        : SIZES[Math.floor(Math.random() * SIZES.length)]!;
      process.stdout.write(`BEGIN ${restore ? 'restore' : 'create'}\n`);
      await store.create<Sandbox>({
        apiVersion: API_VERSION,
        kind: 'Sandbox',
        metadata: { name, namespace: 'acme' },
        spec: { reservation: 'r1', ephemeral: false, ...spec },
      });
      const done = await until(async () => {
        const s = await store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name });
        return s?.status?.phase === 'running' || s?.status?.phase === 'failed' ? s : undefined;
      }, 10_000);
      if (done?.status?.phase === 'running') {
        acked.push(name);
        process.stdout.write(`ACK ${name}\n`);
        if (restore) process.stdout.write(`RESTORED ${name}\n`);
      } else if (done) {
        // A refusal (the Macs are full): the client gives up on it, as the API would.
        await store.delete({ kind: 'Sandbox', namespace: 'acme', name });
      }
    }
  };
  return Promise.race(Array.from({ length: 6 }, worker));
}

/** Every controller idle, or an error naming the queues that still had work at `deadline`. */
async function idleBefore(op: RunningOperator, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>(
    (resolve) => (timer = setTimeout(() => resolve('late'), deadline - Date.now())),
  );
  const idle = Promise.all(Object.values(op.controllers).map((c) => c.queue.whenIdle()));
  const outcome = await Promise.race([idle, late]);
  clearTimeout(timer);
  if (outcome !== 'late') return;
  const busy = Object.values(op.controllers).map(
    (c) =>
      `${c.name}: ${c.queue.length} queued, ${c.queue.running} running, ${c.queue.coalescing} coalescing` +
      (c.queue.coalescing > 0 ? ` (${c.queue.coalescingKeys.join(', ')})` : ''),
  );
  // What this process's operator did last to the keys still waiting: the loop that kept it busy.
  const keys = Object.values(op.controllers).flatMap((c) => c.queue.coalescingKeys);
  const log = readFileSync(path.join(dir!, 'operator.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes(`"pid":${process.pid},`) && keys.some((k) => l.includes(`"${k}"`)));
  throw new Error(`the controllers never went idle: ${busy.join('; ')}\n${log.slice(-30).join('\n')}`);
}

/** Waits until no controller has work and the store's version stopped moving. */
async function settle(store: SqliteStore, op: RunningOperator): Promise<void> {
  let last = '';
  let same = 0;
  const deadline = Date.now() + 60_000;
  await until(async () => {
    await idleBefore(op, deadline);
    const rv = (await store.list('Rate')).resourceVersion;
    same = rv === last ? same + 1 : 0;
    last = rv;
    await new Promise((r) => setTimeout(r, 20));
    return same >= 10 ? true : undefined;
  }, 60_000);
}

async function snapshotOf(store: SqliteStore, sim: Awaited<ReturnType<typeof journaledSim>>) {
  const vms = (await store.list<VM>('VM')).items;
  const sandboxes = (await store.list<Sandbox>('Sandbox')).items;
  const minis = (await store.list<Mini>('Mini')).items;
  const snapshots = (await store.list<Snapshot>('Snapshot')).items;
  const account = await store.get<Account>({ kind: 'Account', name: 'acme' });
  const blobs = createBlobStore(path.join(dir!, 'blobs'));
  return {
    ledger: account?.status?.ledger ?? [],
    balanceCents: account?.status?.balanceCents ?? null,
    snapshots: await Promise.all(
      snapshots.map(async (s) => ({
        name: s.metadata.name,
        phase: s.status?.phase ?? 'pending',
        deleting: !!s.metadata.deletionTimestamp,
        // A ready snapshot's artifact is there, whole: its size and SHA-256 match the status.
        artifactIntact: s.status?.artifact ? await blobs.verify(s.status.artifact) : null,
      })),
    ),
    // Every artifact file left in the blob directory (after the final cleanup: none).
    snapshotBlobs: listFiles(path.join(dir!, 'blobs', 'snapshots')),
    vms: vms.map((vm) => ({
      name: vm.metadata.name,
      mini: vm.spec.mini,
      claim: vm.spec.sandbox ?? null,
      phase: vm.status?.phase ?? null,
      // For diagnosis: the boot's state and whom the VM says it booted for.
      booted: vm.status?.conditions?.find((c) => c.type === 'Booted') ?? null,
      bootedFor: vm.status?.sandbox ?? null,
      deleting: !!vm.metadata.deletionTimestamp,
    })),
    sandboxes: sandboxes.map((s) => ({
      name: s.metadata.name,
      phase: s.status?.phase ?? 'pending',
      reason: s.status?.reason ?? null,
      message: s.status?.message ?? null,
      vm: s.status?.vm ?? null,
      deleting: !!s.metadata.deletionTimestamp,
    })),
    minis: minis.map((m) => ({
      name: m.metadata.name,
      address: m.spec.address,
      profile: m.status?.warmProfile?.length ?? 0,
    })),
    hosts: Object.fromEntries(
      sim
        .addresses()
        .map((a) => [
          a,
          sim
            .inspect(a)!
            .vms.map((v) => ({ name: v.name, state: v.state, cpu: v.cpu, memoryGiB: v.memoryGiB })),
        ]),
    ),
  };
}

function listFiles(root: string): string[] {
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

const [dir, mode] = process.argv.slice(2);
if (!dir || (mode !== 'storm' && mode !== 'check'))
  throw new Error('usage: crash-child.ts <dir> storm|check');
const store = await openSqliteStore({ file: path.join(dir, 'store.db') });
const sim = await journaledSim(path.join(dir, 'sim-state.json'));
const op = await startOperator({
  store,
  drivers: { sim },
  // Every run appends to one log, which the test quotes when the check finds something stuck.
  logger: pino(
    { level: process.env.CRASH_LOG ?? 'info' },
    pino.destination({ dest: path.join(dir, 'operator.log'), sync: true, append: true }),
  ),
  blobDir: path.join(dir, 'blobs'),
  settings: { heartbeatMs: 2_000, probeRetryMs: 200 },
});
await ensureFleet(store);
// What the killed run left half done, as this process finds it (before its operator gets far).
const capturing = (await store.list<Snapshot>('Snapshot')).items.filter(
  (s) => s.status?.phase === 'capturing',
).length;
process.stdout.write(`FOUND ${JSON.stringify({ capturing })}\n`);
process.stdout.write('READY\n');
if (mode === 'storm') await storm(store);

await until(
  async () =>
    (await store.get<Reservation>({ kind: 'Reservation', namespace: 'acme', name: 'r1' }))?.status?.phase ===
    'active'
      ? true
      : undefined,
  30_000,
);
// Sandboxes the killed runs left pending are placed now; a retry may be waiting out its backoff.
const t0 = Date.now();
await until(async () => {
  const open = (await store.list<Sandbox>('Sandbox')).items.filter((s) =>
    ['pending', 'booting'].includes(s.status?.phase ?? 'pending'),
  );
  const capturing = (await store.list<Snapshot>('Snapshot')).items.filter((s) =>
    ['pending', 'capturing'].includes(s.status?.phase ?? 'pending'),
  );
  return open.length === 0 && capturing.length === 0 ? true : undefined;
}, 60_000);
await settle(store, op);
process.stderr.write(`settled in ${Date.now() - t0} ms\n`);
const report = JSON.stringify(await snapshotOf(store, sim));
writeFileSync(path.join(dir, 'report.json'), report);
process.stdout.write(`REPORT ${report}\n`);
for (const s of (await store.list<Sandbox>('Sandbox')).items) {
  await store.delete({ kind: 'Sandbox', namespace: 'acme', name: s.metadata.name });
}
for (const s of (await store.list<Snapshot>('Snapshot')).items) {
  await store.delete(snapshotKey(s.metadata.name));
}
await until(
  async () =>
    (await store.list('Sandbox')).items.length === 0 && (await store.list('Snapshot')).items.length === 0
      ? true
      : undefined,
  30_000,
);
await settle(store, op);
process.stdout.write(`FINAL ${JSON.stringify(await snapshotOf(store, sim))}\n`);
await op.stop();
await sim.close();
await store.close();
