// When the collector takes a step's screenshot, on a real desktop (the linux driver): the settle
// rule (operator/trajectory/settle.ts: the first screenshot equal to the one before it, from 100 ms after
// the action, every 50 ms, at most 1 s) next to the fixed 300 ms it replaced, per kind of action.
// For each: the time from the action to the step's screenshot (median, p99), the screenshots
// taken, how often the screen settled, and how often the fixed 300 ms screenshot already showed
// the settled screen (when it did not, the step's screenshot missed part of the action's effect).
//
//   node bench/collector-settle.ts            (a minute or two)
//   node bench/collector-settle.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates a VM user). Prints a markdown table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { settledScreenshot } from '../operator/trajectory/settle.ts';
import type { Guest } from '../hosts/driver.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';

const QUICK = process.argv.includes('--quick');
const N = QUICK ? 3 : 15;
const FIXED_MS = 300;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

interface Scenario {
  name: string;
  /** Puts the screen back as it was before `act` (not measured). */
  reset(g: Guest, i: number): Promise<void>;
  act(g: Guest, i: number): Promise<void>;
}

/** Pids of the xterms the window scenario opened. */
const opened: number[] = [];

const SCENARIOS: Scenario[] = [
  {
    name: 'pointer move on the desktop',
    reset: async () => {},
    act: (g, i) => g.move(400 + (i % 2) * 200, 500),
  },
  {
    name: 'a key typed in an xterm',
    reset: async () => {},
    act: (g) => g.type('x'),
  },
  {
    name: 'a window opens (xterm started)',
    // The xterm this scenario started last is closed again, by its pid.
    reset: async (g) => {
      if (opened.length > 0) await g.exec(`kill ${opened.splice(0).join(' ')}; true`);
      await delay(200);
    },
    act: async (g, i) => {
      const r = await g.exec(
        `setsid xterm -T bench-new-${i} -geometry 40x10+${300 + (i % 20) * 7}+300 >/dev/null 2>&1 & echo $!`,
      );
      opened.push(Number.parseInt(r.stdout.trim(), 10));
    },
  },
];

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-bench-settle-'));
  const driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 });
  try {
    const host = driver.host({ name: 'bench-settle', address: '127.0.0.1', model: 'm4' });
    await host.createVm({ name: 'bench', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    await host.startVm('bench');
    const g: Guest = host.guest('bench');
    await g.exec('(setsid xterm -T bench-typing -geometry 80x20+20+20 >/dev/null 2>&1 &)');
    await delay(1500);
    await g.click(100, 100);
    const shot = () => g.screenshot({ format: 'png' });
    const rows: string[] = [
      '| action | settle p50 ms | settle p99 ms | shots p50 | settled | fixed 300 ms p50 ms | fixed 300 ms showed the settled screen |',
      '|---|---:|---:|---:|---:|---:|---:|',
    ];
    for (const s of SCENARIOS) {
      const settleMs: number[] = [];
      const shots: number[] = [];
      const fixedMs: number[] = [];
      let settled = 0;
      let fixedRight = 0;
      for (let i = 0; i < N; i++) {
        await s.reset(g, i);
        await s.act(g, i);
        const at = performance.now();
        const r = await settledScreenshot(shot, performance.now() - at);
        settleMs.push(performance.now() - at);
        shots.push(r.shots);
        if (r.settled) settled++;
        // The same action again with the fixed wait, then the settled screen to compare with.
        await s.reset(g, i + 1000);
        await s.act(g, i + 1000);
        const at2 = performance.now();
        await delay(FIXED_MS);
        const fixed = await shot();
        fixedMs.push(performance.now() - at2);
        const after = await settledScreenshot(shot, performance.now() - at2);
        if (after.settled && after.png.equals(fixed)) fixedRight++;
      }
      const f = (v: number) => v.toFixed(0);
      rows.push(
        `| ${s.name} | ${f(percentile(settleMs, 50))} | ${f(percentile(settleMs, 99))} | ${percentile(shots, 50)} | ${settled}/${N} | ${f(percentile(fixedMs, 50))} | ${fixedRight}/${N} |`,
      );
    }
    console.log(rows.join('\n'));
  } finally {
    await driver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
