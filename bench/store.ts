// Store benchmark: resource writes/s and reads/s of the SQLite store next to raw `node:sqlite`
// single-row inserts and selects on a file with the same settings (WAL, same `synchronous`),
// measured in the same run, plus watch delivery latency with 4 concurrent writers and the
// event-loop delay (perf_hooks monitorEventLoopDelay, p99) while each case runs.
//
//   node bench/store.ts            (about a minute)
//   node bench/store.ts --quick    (a smoke run)
//   node bench/store.ts --only=get (the cases named so, and their raw bases)
//
// Every throughput figure is the median of TRIALS runs; latencies are over all operations; the
// loop delay (sampled while the operations run, not during a case's setup) is the median of the
// trials' p99s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AnyResource } from '../crds/index.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';

type Sync = 'FULL' | 'NORMAL';

const QUICK = process.argv.includes('--quick');
/** `--only=get`: the cases whose name contains "get", and the raw cases they compare with. */
const ONLY = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const TRIALS = QUICK ? 1 : 5;
const WRITES = QUICK ? 500 : 3000;
const READS = QUICK ? 1000 : 10_000;

interface Sample {
  perSec: number;
  latenciesMs: number[];
  /** Watch case: the same writes' call → acknowledgement latencies, for comparison. */
  ackLatenciesMs?: number[];
  /** p99 of the event loop's delay while the case ran. */
  loopDelayP99Ms?: number;
}

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-bench-store-'));
  dirs.push(dir);
  return join(dir, 'bench.sqlite');
}

function task(name: string, i: number): AnyResource {
  return {
    apiVersion: 'sandbay.io/v1alpha1',
    kind: 'Task',
    metadata: { name, namespace: 'acct', labels: { bench: 'yes', shard: String(i % 4) } },
    spec: { instruction: `open the settings app and change the wallpaper (${i})`, category: 'settings' },
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function median(values: number[]): number {
  return percentile(values, 50);
}

/** Runs `op(i)` for i in [0, n) from `writers` concurrent loops; throughput and per-op latency. */
async function drive(n: number, writers: number, op: (i: number) => Promise<unknown>): Promise<Sample> {
  const latenciesMs: number[] = [];
  const delay = await loopDelayMonitor();
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      for (let i = next++; i < n; i = next++) {
        const t0 = performance.now();
        await op(i);
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  const perSec = (n / (performance.now() - start)) * 1000;
  return { perSec, latenciesMs, loopDelayP99Ms: await delay.p99() };
}

/** Samples the event loop's delay every millisecond from now until `p99()` is called. */
async function loopDelayMonitor(): Promise<{ p99: () => Promise<number> }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await sleep(3);
  histogram.reset(); // drops the warm-up's samples; the sampling timer's next turn restarts it,
  await sleep(2); // and the turn after that records (a reset clears the last sample's time)
  return {
    p99: async () => {
      // A run that never yielded has its one long delay recorded when the sampling timer runs.
      await sleep(2);
      histogram.disable();
      return histogram.percentile(99) / 1e6;
    },
  };
}

function rawDatabase(sync: Sync): DatabaseSync {
  const db = new DatabaseSync(tempFile());
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${sync};`);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, data TEXT)');
  return db;
}

/**
 * Raw node:sqlite: a prepared single-row INSERT per write, each its own (autocommit) transaction,
 * on this thread. The calls are synchronous, so the "writers" take turns and never yield to the
 * event loop (the loop delay column shows what that costs everything else in the process).
 */
async function rawInserts(sync: Sync, writers: number): Promise<Sample> {
  const db = rawDatabase(sync);
  const insert = db.prepare('INSERT INTO t (name, data) VALUES (?, ?)');
  const sample = await drive(WRITES, writers, async (i) => {
    insert.run(`t-${i}`, JSON.stringify(task(`t-${i}`, i)));
  });
  db.close();
  return sample;
}

/** Raw node:sqlite: a prepared SELECT by key. */
async function rawSelects(readers: number): Promise<Sample> {
  const db = rawDatabase('FULL');
  const insert = db.prepare('INSERT INTO t (name, data) VALUES (?, ?)');
  db.exec('BEGIN');
  for (let i = 0; i < 1000; i++) insert.run(`t-${i}`, JSON.stringify(task(`t-${i}`, i)));
  db.exec('COMMIT');
  const select = db.prepare('SELECT data FROM t WHERE name = ?');
  const sample = await drive(READS, readers, async (i) => {
    const rows = select.all(`t-${i % 1000}`) as { data: string }[];
    return JSON.parse((rows[0] as { data: string }).data) as unknown;
  });
  db.close();
  return sample;
}

/**
 * The event loop kept busy with plain computation that yields every millisecond: what the
 * machine's scheduler alone does to the delay of a process that wants the CPU (on a loaded
 * machine a busy process waits for a core, and every timer with it).
 */
async function busyLoop(): Promise<Sample> {
  const delay = await loopDelayMonitor();
  const end = performance.now() + (QUICK ? 200 : 1000);
  let x = 0;
  while (performance.now() < end) {
    const slice = performance.now() + 1;
    while (performance.now() < slice) x = (x * 31 + 7) % 1_000_003;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { perSec: x * 0, latenciesMs: [], loopDelayP99Ms: await delay.p99() };
}

/** The event loop with nothing else running: this machine's own noise in the delay column. */
async function idleLoop(): Promise<Sample> {
  const delay = await loopDelayMonitor();
  await sleep(QUICK ? 200 : 1000);
  return { perSec: 0, latenciesMs: [], loopDelayP99Ms: await delay.p99() };
}

async function withStore<T>(sync: Sync, fn: (store: SqliteStore) => Promise<T>): Promise<T> {
  const store = await openSqliteStore({ file: tempFile(), synchronous: sync });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const storeCreates = (sync: Sync, writers: number): Promise<Sample> =>
  withStore(sync, (store) => drive(WRITES, writers, (i) => store.create(task(`t-${i}`, i))));

/** Conditional updates: each write carries the resourceVersion it read (status changes). */
const storeUpdates = (sync: Sync, writers: number): Promise<Sample> =>
  withStore(sync, async (store) => {
    const objects = await Promise.all(Array.from({ length: 64 }, (_, i) => store.create(task(`u-${i}`, i))));
    return drive(WRITES, writers, async (i) => {
      const slot = i % objects.length;
      const cur = objects[slot] as AnyResource;
      objects[slot] = await store.updateStatus({
        ...cur,
        status: { phase: 'recording', observedGeneration: i },
      });
    });
  });

const storeGets = (readers: number): Promise<Sample> =>
  withStore('FULL', async (store) => {
    await Promise.all(Array.from({ length: 1000 }, (_, i) => store.create(task(`t-${i}`, i))));
    return drive(READS, readers, (i) =>
      store.get({ kind: 'Task', namespace: 'acct', name: `t-${i % 1000}` }),
    );
  });

/** Time from calling create to the watcher receiving its ADDED event, with `writers` writers. */
const watchLatency = (sync: Sync, writers: number): Promise<Sample> =>
  withStore(sync, async (store) => {
    const issued = new Map<string, number>();
    const latenciesMs: number[] = [];
    const watch = store.watch('Task', { namespace: 'acct' }, (e) => {
      const t0 = issued.get(e.object.metadata.name);
      if (t0 !== undefined) latenciesMs.push(performance.now() - t0);
    });
    const sample = await drive(WRITES, writers, (i) => {
      issued.set(`t-${i}`, performance.now());
      return store.create(task(`t-${i}`, i));
    });
    watch.stop();
    return { ...sample, latenciesMs, ackLatenciesMs: sample.latenciesMs };
  });

interface Case {
  what: string;
  sync: Sync | '-';
  run: () => Promise<Sample>;
  /** The raw case this one is compared with. */
  base?: Case;
  /** Latency only (a watch is not a throughput). */
  latencyOnly?: boolean;
  /** Loop delay only (the idle baseline). */
  delayOnly?: boolean;
  samples: Sample[];
}

function cases(): Case[] {
  const list: Case[] = [];
  const add = (c: Omit<Case, 'samples'>): Case => {
    const full = { ...c, samples: [] };
    list.push(full);
    return full;
  };
  add({ what: 'event loop idle (baseline)', sync: '-', run: idleLoop, delayOnly: true });
  add({ what: 'event loop busy, yielding every 1 ms (baseline)', sync: '-', run: busyLoop, delayOnly: true });
  for (const sync of ['FULL', 'NORMAL'] as const) {
    const raw = add({ what: 'raw node:sqlite INSERT (1 writer)', sync, run: () => rawInserts(sync, 1) });
    add({ what: 'raw node:sqlite INSERT (4 writers)', sync, run: () => rawInserts(sync, 4), base: raw });
    add({ what: 'store create (1 writer)', sync, run: () => storeCreates(sync, 1), base: raw });
    add({ what: 'store create (4 writers)', sync, run: () => storeCreates(sync, 4), base: raw });
    add({ what: 'store create (16 writers)', sync, run: () => storeCreates(sync, 16), base: raw });
    add({
      what: 'store updateStatus with rv (4 writers)',
      sync,
      run: () => storeUpdates(sync, 4),
      base: raw,
    });
    add({
      what: 'watch: create call → event (4 writers)',
      sync,
      run: () => watchLatency(sync, 4),
      latencyOnly: true,
    });
  }
  const rawRead = add({
    what: 'raw node:sqlite SELECT by key (1 reader)',
    sync: '-',
    run: () => rawSelects(1),
  });
  add({ what: 'store get (1 reader)', sync: '-', run: () => storeGets(1), base: rawRead });
  add({ what: 'store get (4 readers)', sync: '-', run: () => storeGets(4), base: rawRead });
  return list;
}

async function main(): Promise<void> {
  const all = cases();
  const list = ONLY
    ? all.filter((c) => c.what.includes(ONLY) || all.some((o) => o.what.includes(ONLY) && o.base === c))
    : all;
  // Trials interleave the cases, so that load from other processes hits raw and store alike.
  for (let t = 0; t < TRIALS; t++) for (const c of list) c.samples.push(await c.run());

  const perSec = (c: Case): number => median(c.samples.map((s) => s.perSec));
  const fmt = (n: number, digits = 0): string =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const lines = [
    `| measure | synchronous | ops/s (median of ${TRIALS}) | latency p50 ms | latency p99 ms | ratio vs raw | loop delay p99 ms |`,
    '|---|---|---:|---:|---:|---:|---:|',
    ...list.flatMap((c) => {
      const ms = (values: number[], p: number): string =>
        values.length ? fmt(percentile(values, p), 2) : '-';
      const row = (what: string, latencies: number[], rate: string, ratio: string, delay: string): string =>
        `| ${what} | ${c.sync} | ${rate} | ${ms(latencies, 50)} | ${ms(latencies, 99)} | ${ratio} | ${delay} |`;
      const rate = c.latencyOnly || c.delayOnly ? '-' : fmt(perSec(c));
      const ratio = c.base && !c.latencyOnly ? `${fmt((perSec(c) / perSec(c.base)) * 100)}%` : '-';
      const delay = fmt(median(c.samples.map((s) => s.loopDelayP99Ms ?? NaN)), 2);
      const rows = [
        row(
          c.what,
          c.samples.flatMap((s) => s.latenciesMs),
          rate,
          ratio,
          delay,
        ),
      ];
      const acks = c.samples.flatMap((s) => s.ackLatenciesMs ?? []);
      if (acks.length > 0) rows.push(row('… same writes: create call → ack', acks, '-', '-', '-'));
      return rows;
    }),
  ];
  console.log(lines.join('\n'));
}

try {
  await main();
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
