// Mixed load on real desktops (issue 12): the linux driver under the real operator and the API on a
// loopback listener, one process as `sandbay server` runs. One sandbox ("noisy") takes autocannon
// on GET /v1/sandboxes/{id} (its own process, 10 connections), WebSocket viewers pulling framebuffer
// updates through /vnc, and screenshot and exec loops; a second sandbox ("quiet", used with the
// reservation's key: two keys, which the server's loop share counts as two callers, api/loop-share.ts)
// makes the same kinds of calls one at a time, first on an idle server, then under the load. Reported: p50/p99 of each call idle and under load (target: the quiet sandbox's
// p99 within 2× of idle), 5xx answers (target 0), and the process's memory after warm-up and at the
// end (target: growth ≤ 10%).
//
//   node --expose-gc bench/mixed-load.ts                 (10 minutes of load)
//   node --expose-gc bench/mixed-load.ts --minutes 1     (a shorter run)
//   node --expose-gc bench/mixed-load.ts --load-nice 19  (the loaded tenant's clients at that nice
//                                                         level: clients of another machine, which
//                                                         take no CPU from this one, as near as one
//                                                         machine comes; the quiet client stays at 0)
//   node --expose-gc bench/mixed-load.ts --no-loop-share  (the server without a key's share of its loop)
//   node --expose-gc bench/mixed-load.ts --server-nice 0  (the server at that nice level; default
//                                                         `sandbay server`'s own, -5)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table on stdout and a memory
// trace on stderr (every 10 s: V8's heap, external and ArrayBuffer memory, and the kernel's anonymous
// and file-backed resident pages). Every client (autocannon, the viewers and loops, the quiet
// tenant) is a process of its own (mixed-load-client.ts): the server's event loop and memory are
// the server's alone.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { DEFAULT_SERVER_NICE } from '../api/server-nice.ts';
import { seedAccount, startLinuxApiStack, waitFor } from '../test/api-harness.ts';
import { apiCall } from '../test/support/api-call.ts';
import type { LoadJob, LoadResult, QuietJob, QuietResult } from './mixed-load-client.ts';

const run = promisify(execFile);
const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const LOAD_S = arg('--minutes', 10) * 60;
const NICE = process.argv.includes('--load-nice') ? arg('--load-nice', 19) : undefined;
/** The server's nice level: `sandbay server`'s own default unless told (its --priority). */
const SERVER_NICE = arg('--server-nice', DEFAULT_SERVER_NICE);
/** The server without its loop share (api/loop-share.ts), for an A/B. */
const NO_LOOP_SHARE = process.argv.includes('--no-loop-share');
const IDLE_S = Math.min(60, Math.max(15, LOAD_S / 10));
/**
 * Seconds into the load at which the memory baseline is taken: by then the young generation, the
 * pools and the caches have their working size under this load (within the first 10–20 s in the
 * traces), so growth from there to the end is what the load adds over time, i.e. a leak.
 */
const WARM_S = Math.min(60, LOAD_S / 4);
const VIEWERS = 4;
/** Interval of the event-loop delay histogram's sampling timer. */
const LOOP_SAMPLE_MS = 10;
const CLIENT = path.join(import.meta.dirname, 'mixed-load-client.ts');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const f1 = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
const mib = (b: number): string => (b / 2 ** 20).toFixed(0);

/** One line of the memory trace (stderr): V8's view and the kernel's (anonymous vs file pages). */
function memoryLine(label: string): string {
  const m = process.memoryUsage();
  const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? NaN);
  const spaces = getHeapSpaceStatistics()
    .filter((sp) => sp.space_size > 2 ** 20)
    .map(
      (sp) =>
        `${sp.space_name.replace('_space', '')} ${mib(sp.physical_space_size)}/${mib(sp.space_used_size)}`,
    )
    .join(' ');
  return `${label} rss ${mib(m.rss)} heapUsed ${mib(m.heapUsed)} heapTotal ${mib(m.heapTotal)} external ${mib(m.external)} arrayBuffers ${mib(m.arrayBuffers)} anon ${(kib('Anonymous') / 1024).toFixed(0)} file ${((kib('Rss') - kib('Anonymous')) / 1024).toFixed(0)} MiB; V8 spaces (resident/used) ${spaces}`;
}

async function main(): Promise<void> {
  // Before the stack starts any thread or child, as `sandbay server` does.
  setPriority(SERVER_NICE);
  const stack = await startLinuxApiStack('sandbay-bench-mixed-', {
    bootId: 'bench',
    environment: 'bench',
    rateLimit: { max: 1e9, timeWindowMs: 60_000 },
    ...(NO_LOOP_SHARE && { loopShare: false }),
  });
  const { store, base } = stack;
  const accountKey = await seedAccount(store, 'bench', 1e9);
  const call = (key: string, method: string, url: string, body?: unknown) =>
    apiCall(base, key, method, url, body);
  const json = async (key: string, method: string, url: string, body?: unknown) =>
    (await call(key, method, url, body)).json();
  try {
    await waitFor(
      async () =>
        ((await json(accountKey, 'GET', '/v1/platforms')).models as { available_minis: number }[])[0]!
          .available_minis > 0,
      'the local Mac',
      60_000,
    );
    const reservation = await json(accountKey, 'POST', '/v1/reservations', { hours: 24 });
    if (reservation.status !== 'active') throw new Error(`reservation: ${JSON.stringify(reservation)}`);
    const reservationKey = reservation.key as string;
    const create = () =>
      waitFor(
        async () => {
          const c = await call(accountKey, 'POST', '/v1/sandboxes', {});
          return c.status === 201 ? c.json<Record<string, unknown>>() : undefined;
        },
        'a warm VM',
        120_000,
      );
    const noisy = (await create()).sandbox_id as string;
    const quiet = (await create()).sandbox_id as string;

    // Every client runs at its own nice level, not the server's: the quiet one at 0, the loaded
    // tenant's at --load-nice (0 without it), as processes of other machines would be to this one.
    const niced = (nice: number, argv: string[]) =>
      run('nice', ['-n', String(nice - SERVER_NICE), ...argv], { maxBuffer: 64 * 1024 * 1024 });
    const loadNice = NICE ?? 0;
    const client = <T>(job: QuietJob | LoadJob): Promise<T> =>
      niced(job.kind === 'load' ? loadNice : 0, [process.execPath, CLIENT, JSON.stringify(job)]).then(
        ({ stdout }) => JSON.parse(stdout) as T,
      );
    const quietJob = (seconds: number, warmupSeconds: number): QuietJob => ({
      kind: 'quiet',
      base,
      key: reservationKey,
      sandbox: quiet,
      seconds,
      warmupSeconds,
    });

    // The server's event-loop delay in each phase: how long a ready callback waited for the loop.
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
    loopDelay.enable();
    /** Lateness of the sampling timer: what the histogram records, less its own interval. */
    const lateness = () => ({
      p50: loopDelay.percentile(50) / 1e6 - LOOP_SAMPLE_MS,
      p99: loopDelay.percentile(99) / 1e6 - LOOP_SAMPLE_MS,
      max: loopDelay.max / 1e6 - LOOP_SAMPLE_MS,
    });
    const idle = await client<QuietResult>(quietJob(IDLE_S, 5));
    const idleDelay = lateness();
    loopDelay.reset();
    global.gc?.();
    const memIdle = process.memoryUsage();
    const t0 = Date.now();
    console.error(memoryLine('start'));
    /** RSS every 10 s of the load (MiB, by seconds into it): it saws ±25 MiB as buffers are freed in batches. */
    const rssSamples: { s: number; rss: number }[] = [];
    const memTrace = setInterval(() => {
      const s = (Date.now() - t0) / 1000;
      rssSamples.push({ s, rss: process.memoryUsage().rss / 2 ** 20 });
      console.error(memoryLine(`+${s.toFixed(0)}s`));
    }, 10_000);

    // The load on the noisy sandbox, each kind from its own process; 5xx counted from here (the
    // creates' 503 no_warm_vm while the pool refilled are not the load's).
    const cli = path.join(import.meta.dirname, '..', 'node_modules', 'autocannon', 'autocannon.js');
    const cannon = niced(loadNice, [
      process.execPath,
      cli,
      '-j',
      '-c',
      '10',
      '-d',
      String(LOAD_S),
      '-H',
      `authorization=Bearer ${accountKey}`,
      `${base}/v1/sandboxes/${noisy}`,
    ]);
    const loadRun = client<LoadResult>({
      kind: 'load',
      base,
      key: accountKey,
      sandbox: noisy,
      seconds: LOAD_S,
      viewers: VIEWERS,
    });
    const loadedRun = client<QuietResult>(quietJob(LOAD_S, 0));
    await delay(WARM_S * 1000);
    global.gc?.();
    const memStart = process.memoryUsage();
    console.error(memoryLine('warmed up'));
    const loaded = await loadedRun;
    const loadDelay = lateness();
    loopDelay.disable();
    const cannonResult = JSON.parse((await cannon).stdout) as {
      requests: { average: number; total: number };
      latency: { p50: number; p99: number };
      errors: number;
      statusCodeStats?: Record<string, { count: number }>;
    };
    const { updates, perViewer, closes, fiveXx: fiveXxSeen } = await loadRun;
    global.gc?.();
    const memEnd = process.memoryUsage();
    clearInterval(memTrace);
    // Growth over the load, robust to the saw: the median of one minute against another.
    const median = (xs: number[]) => percentile(xs, 50);
    const rssWindows = {
      first: median(rssSamples.filter((x) => x.s >= WARM_S && x.s < WARM_S + 60).map((x) => x.rss)),
      last: median(rssSamples.filter((x) => x.s >= LOAD_S - 60 && x.s <= LOAD_S).map((x) => x.rss)),
    };
    console.error(memoryLine('end'));
    const cannon5xx = Object.entries(cannonResult.statusCodeStats ?? {})
      .filter(([code]) => Number(code) >= 500)
      .reduce((n, [, s]) => n + s.count, 0);

    const rows = [
      `| call (quiet sandbox) | idle p50 | idle p99 | loaded p50 | loaded p99 | p99 ratio | n idle / loaded |`,
      `|---|---|---|---|---|---|---|`,
      ...(['get', 'screenshot', 'exec'] as const).map((name) => {
        const a = idle[name];
        const b = loaded[name];
        return `| ${name} | ${f1(percentile(a, 50))} ms | ${f1(percentile(a, 99))} ms | ${f1(percentile(b, 50))} ms | ${f1(percentile(b, 99))} ms | ${(percentile(b, 99) / percentile(a, 99)).toFixed(2)}× | ${a.length} / ${b.length} |`;
      }),
    ];
    /** The exec's VM part (Server-Timing) and the rest, over the slowest 1% of the phase's execs. */
    const execSplit = (r: QuietResult) => {
      const order = r.exec.map((_, i) => i).sort((a, b) => r.exec[b]! - r.exec[a]!);
      const slow = order.slice(0, Math.max(1, Math.ceil(r.exec.length / 100)));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const vm = mean(slow.map((i) => r.execVm[i]!));
      return `VM p50 ${f1(percentile(r.execVm, 50))} ms, p99 ${f1(percentile(r.execVm, 99))} ms; slowest 1%: ${f1(mean(slow.map((i) => r.exec[i]!)))} ms, of which VM ${f1(vm)} ms`;
    };
    const summary = [
      `| load on the noisy sandbox | figure |`,
      `|---|---|`,
      `| duration | ${LOAD_S} s (idle phase ${IDLE_S} s) |`,
      `| the loaded tenant's clients (autocannon, viewers, loops) | ${NICE === undefined ? "at the quiet client's priority" : `at nice ${NICE}`}; the server at nice ${SERVER_NICE} |`,
      `| autocannon GET /v1/sandboxes/{id}, 10 connections | ${cannonResult.requests.average.toFixed(0)} req/s, p50 ${cannonResult.latency.p50} ms, p99 ${cannonResult.latency.p99} ms, ${cannonResult.requests.total} requests, ${cannonResult.errors} errors |`,
      `| VNC viewers through /vnc | ${VIEWERS}, ${updates} framebuffer updates (${perViewer.join(' / ')}); closed by the server: ${closes.length ? closes.join('; ') : 'none'} |`,
      `| 5xx answers (autocannon + every other call) | ${cannon5xx + Object.values(fiveXxSeen).reduce((a, b) => a + b, 0)}${Object.entries(
        fiveXxSeen,
      )
        .map(([w, n]) => `; ${n}× ${w}`)
        .join('')} |`,
      `| the quiet exec's VM part (Server-Timing), idle / loaded | ${execSplit(idle)} / ${execSplit(loaded)} |`,
      `| server event-loop delay idle / loaded (p50, p99, max) | ${f1(idleDelay.p50)}, ${f1(idleDelay.p99)}, ${f1(idleDelay.max)} ms / ${f1(loadDelay.p50)}, ${f1(loadDelay.p99)}, ${f1(loadDelay.max)} ms |`,
      `| memory idle → under load after ${WARM_S} s (rss / heap used) | ${mib(memIdle.rss)} → ${mib(memStart.rss)} MiB / ${mib(memIdle.heapUsed)} → ${mib(memStart.heapUsed)} MiB |`,
      `| memory under load, median RSS of the minute after the first ${WARM_S} s → of the last minute | ${rssWindows.first.toFixed(0)} → ${rssWindows.last.toFixed(0)} MiB (${((rssWindows.last / rssWindows.first - 1) * 100).toFixed(1)}%) |`,
      `| memory under load after ${WARM_S} s → end, single samples after a GC (rss / heap used) | ${mib(memStart.rss)} → ${mib(memEnd.rss)} MiB (${((memEnd.rss / memStart.rss - 1) * 100).toFixed(1)}%) / ${mib(memStart.heapUsed)} → ${mib(memEnd.heapUsed)} MiB (${((memEnd.heapUsed / memStart.heapUsed - 1) * 100).toFixed(1)}%) |`,
    ];
    console.log([...rows, '', ...summary].join('\n'));
  } finally {
    await stack.close();
  }
}

await main();
