// The dashboard's first load and live updates, in headless Chromium against a local server (sim
// driver: no desktop is needed to load pages). Prints a table:
// - first load: bytes over the wire (compressed, headers excluded) and requests, for the sign-in page
//   and the signed-in rates page; first contentful paint p50/p99 over cold loads (a new browser
//   context each, so nothing is cached), next to the server's plain front page `/` as a peer;
// - live rates: store write → the new price on the page (a MutationObserver stamps the change).
// Budget (issue 16): first load ≤ 300 KB compressed, FCP ≤ 500 ms, live update ≤ 1 s.
//   node bench/dashboard.ts [--runs 15]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { CHROMIUM_ARGS } from '../test/support/browser.ts';
import { chromium, type BrowserContext } from 'playwright-core';
import type { Rate } from '../crds/index.ts';
import { startServer } from '../api/server.ts';
import { buildDashboard } from '../scripts/build-dashboard.ts';
import { seedAccount } from '../test/support/accounts.ts';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

await buildDashboard();
const dir = await mkdtemp(join(tmpdir(), 'sandbay-bench-dashboard-'));
const server = await startServer({
  dataDir: dir,
  port: 0,
  adminPort: 0,
  hostDriver: 'sim',
  logger: pino({ level: 'silent' }),
});
const key = await seedAccount(server.store, 'bench', 1_000_000);
// In the machine's network namespace, unlike the tests' browsers (test/support/browser.ts): the
// sim driver changes no link here, and a bridge hop would add to the load times measured.
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

interface Load {
  fcp: number;
  bytes: number;
  requests: number;
}

/** One cold load of `path` in a fresh context; `ready` is a selector the page shows when loaded. */
async function coldLoad(path: string, ready: string, signIn: boolean): Promise<Load> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  if (signIn) {
    const res = await fetch(`${server.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key }),
    });
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!.split('=');
    await context.addCookies([{ name: cookie[0]!, value: cookie.slice(1).join('='), url: server.url }]);
  }
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  let bytes = 0;
  let requests = 0;
  const sizes = new Map<string, number>();
  cdp.on('Network.responseReceived', (e) => sizes.set(e.requestId, e.response.encodedDataLength));
  cdp.on('Network.loadingFinished', (e) => {
    // The event stream never finishes loading: it is not part of the first load.
    bytes += e.encodedDataLength - (sizes.get(e.requestId) ?? 0);
    requests++;
  });
  await page.goto(`${server.url}${path}`);
  await page.locator(ready).first().waitFor();
  const fcp = (await page.evaluate(
    "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN",
  )) as number;
  await context.close();
  return { fcp, bytes, requests };
}

const pages = [
  { name: 'front page `/` (peer)', path: '/', ready: 'h1', signIn: false },
  { name: 'dashboard sign-in', path: '/dashboard', ready: '#key', signIn: false },
  { name: 'dashboard rates (signed in)', path: '/dashboard', ready: '[data-testid=rates]', signIn: true },
];
const rows: string[] = [];
let peerFcp = 0;
for (const p of pages) {
  const loads: Load[] = [];
  for (let i = 0; i < RUNS; i++) loads.push(await coldLoad(p.path, p.ready, p.signIn));
  const fcps = loads.map((l) => l.fcp);
  const p50 = pct(fcps, 50);
  if (!peerFcp) peerFcp = p50;
  const kb =
    pct(
      loads.map((l) => l.bytes),
      50,
    ) / 1024;
  rows.push(
    `| ${p.name} | ${kb.toFixed(1)} KB | ${pct(
      loads.map((l) => l.requests),
      50,
    )} | ${p50.toFixed(0)} ms | ${pct(fcps, 99).toFixed(0)} ms | ${(p50 / peerFcp).toFixed(2)}× |`,
  );
}

// Live updates: the rates page open; each run changes the m4 price in the store and times the page.
const context = await browser.newContext();
const session = await fetch(`${server.url}/v1/session`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ key }),
});
const [name, ...value] = session.headers.get('set-cookie')!.split(';')[0]!.split('=');
await context.addCookies([{ name: name!, value: value.join('='), url: server.url }]);
const page = await context.newPage();
await page.goto(`${server.url}/dashboard`);
const cell = page.locator('[data-testid=rates] tr[data-model=m4] [data-testid=rate]');
await cell.waitFor();
const latencies: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const cents = 500 + i;
  const text = `$${(cents / 100).toFixed(2)}`;
  // (Page code as strings: this file is compiled without the DOM's types.)
  await page.evaluate(`(() => {
    window.changedAt = undefined;
    const target = document.querySelector('[data-testid=rates] tr[data-model=m4] [data-testid=rate]');
    new MutationObserver((_m, obs) => {
      if (target.textContent === ${JSON.stringify(text)}) {
        window.changedAt = performance.timeOrigin + performance.now();
        obs.disconnect();
      }
    }).observe(target, { childList: true, characterData: true, subtree: true });
  })()`);
  const wrote = Date.now();
  await server.store.patch<Rate>({ kind: 'Rate', name: 'm4' }, { spec: { centsPerHour: cents } });
  await page.waitForFunction(() => (globalThis as { changedAt?: number }).changedAt !== undefined);
  const at = (await page.evaluate('window.changedAt')) as number;
  latencies.push(at - wrote);
}
await context.close();

console.log(
  `\n### Dashboard first load (${RUNS} cold loads each, headless Chromium, br-compressed assets)\n`,
);
console.log('| page | first load (compressed) | requests | FCP p50 | FCP p99 | FCP vs peer |');
console.log('|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log(`\n### Live rates: store write → new price on the page (${RUNS} changes)\n`);
console.log('| p50 | p99 | max |');
console.log('|---|---|---|');
console.log(
  `| ${pct(latencies, 50).toFixed(1)} ms | ${pct(latencies, 99).toFixed(1)} ms | ${Math.max(...latencies).toFixed(1)} ms |`,
);

await browser.close();
await server.close();
await rm(dir, { recursive: true, force: true });
