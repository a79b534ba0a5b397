// What one child_process.spawn costs the server's event loop (issue 31: a fresh sandbox's tails).
// Node forks the whole process before it execs the child, and the parent waits for the exec, on its
// main thread; the fork copies the page tables of every page the process has touched, so the wait
// grows with the process's resident memory. The linux driver spawns about ten processes per boot
// (mount, unshare, Xvfb, the session, x11vnc, sshd, ip), and the warm pool boots one right after
// each claim: the claimed sandbox's first calls wait on those forks. Measured here in one process
// as its touched memory grows, against the same process at its start (the ratio), and against the
// driver's way since: the same program run through the process launcher (hosts/linux/launcher.ts),
// timed as the longest the event loop was held while the call ran (a 1 ms timer's lateness).
//
//   node bench/spawn-cost.ts
//   node bench/spawn-cost.ts --spawns 60
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { run, spawnThroughLauncher } from '../hosts/linux/runner.ts';

const i = process.argv.indexOf('--spawns');
const SPAWNS = i >= 0 ? Number(process.argv[i + 1]) : 40;
const STEPS_MB = [0, 100, 200, 350, 500];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** How long `spawn()` holds the caller, once per child (each waited for before the next). */
async function spawnBlocks(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    const child = spawn('/bin/true', [], { stdio: 'ignore' });
    out.push(performance.now() - t0);
    await once(child, 'exit');
  }
  return out;
}

/** The longest the event loop was held while each run went through the launcher. */
async function launcherHolds(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    let last = performance.now();
    let worst = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 1);
      last = now;
    }, 1);
    await run('/bin/true', []);
    clearInterval(tick);
    out.push(Math.max(0, worst, performance.now() - last - 1));
  }
  return out;
}

spawnThroughLauncher();
const held: Buffer[] = [];
const rows: string[] = [];
let base: number | undefined;
for (const mb of STEPS_MB) {
  // Touched memory, as the server's heap, pixel buffers and encoder memory are.
  while (held.length < mb) held.push(Buffer.alloc(1 << 20, 1));
  const blocks = await spawnBlocks(SPAWNS);
  const viaLauncher = await launcherHolds(SPAWNS);
  const p50 = pct(blocks, 50);
  base ??= p50;
  const rss = process.memoryUsage().rss / 2 ** 20;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  rows.push(
    `| ${rss.toFixed(0)} MiB | ${ms(p50)} | ${ms(pct(blocks, 99))} | ${(p50 / base).toFixed(1)}× | ${ms(pct(viaLauncher, 50))} | ${ms(pct(viaLauncher, 99))} |`,
  );
}
console.log(
  [
    `child_process.spawn('/bin/true'): the caller's main thread held (and run() of the same through the launcher: the event loop's longest hold), ${SPAWNS} spawns per row; Node ${process.version}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
    '',
    '| resident memory | spawn() p50 | p99 | p50 vs the first row | through the launcher: loop held p50 | p99 |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n'),
);
