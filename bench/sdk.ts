// SDK overhead per call against raw HTTP, both measured in one run on the same live sandbay (linux
// driver), alternating call by call (the order flipped every pair) so that load drifts hit both alike:
// - TypeScript: @sandbay/sdk next to a bare `fetch` with the same headers;
// - Python: the sandbay package next to raw `http.client` on one kept-alive connection;
// on two calls: `GET …/mouse/position` (small JSON: the SDK's own cost shows) and an agent step
// (`act` click + screenshot PNG). Targets: overhead p50 ≤ 0.3 ms (TypeScript), ≤ 1 ms (Python);
// the agent step p50 within 10% of raw.
//
//   node bench/sdk.ts            (about a minute)
//   node bench/sdk.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '../sdk/typescript/src/index.ts';
import { startLiveSandbay } from '../test/support/live-sandbay.ts';

const QUICK = process.argv.includes('--quick');
const N = QUICK ? 50 : 1000;
const run = promisify(execFile);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const f2 = (v: number): string => v.toFixed(2);

interface Samples {
  raw: number[];
  sdk: number[];
}

/**
 * Alternates raw and SDK calls (after a warm-up), timing each; which goes first flips every pair,
 * so that whatever the first call leaves behind (the screen still settling) weighs on both alike.
 */
async function paired(n: number, raw: () => Promise<unknown>, sdk: () => Promise<unknown>): Promise<Samples> {
  for (let i = 0; i < 10; i++) {
    await raw();
    await sdk();
  }
  const out: Samples = { raw: [], sdk: [] };
  const time = async (op: () => Promise<unknown>, into: number[]) => {
    const t = performance.now();
    await op();
    into.push(performance.now() - t);
  };
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      await time(raw, out.raw);
      await time(sdk, out.sdk);
    } else {
      await time(sdk, out.sdk);
      await time(raw, out.raw);
    }
  }
  return out;
}

function row(what: string, s: Samples): string {
  const raw50 = percentile(s.raw, 50);
  const sdk50 = percentile(s.sdk, 50);
  const diffs = s.sdk.map((v, i) => v - s.raw[i]!);
  return (
    `| ${what} | ${f2(raw50)} | ${f2(sdk50)} | ${f2(percentile(s.raw, 99))} | ${f2(percentile(s.sdk, 99))} | ` +
    `${f2(sdk50 - raw50)} | ${f2(percentile(diffs, 50))} | ${((sdk50 / raw50) * 100).toFixed(0)}% |`
  );
}

const live = await startLiveSandbay('bench-sdk');
try {
  const created = await fetch(`${live.url}/v1/sandboxes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${live.accountKey}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const sbId = ((await created.json()) as { sandbox_id: string }).sandbox_id;
  const base = `${live.url}/v1/sandboxes/${sbId}`;
  const auth = { authorization: `Bearer ${live.accountKey}` };
  const sb = new Client({ apiKey: live.accountKey, baseUrl: live.url }).sandbox(sbId);

  const rawPosition = async () => {
    const res = await fetch(`${base}/mouse/position`, { headers: auth });
    if (!res.ok) throw new Error(`position: ${res.status}`);
    return res.json();
  };
  const stepBody = JSON.stringify({ action: { type: 'click', x: 600, y: 500 } });
  const rawStep = async () => {
    const res = await fetch(`${base}/act`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: stepBody,
    });
    if (!res.ok) throw new Error(`act: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
  const tsPosition = await paired(N, rawPosition, () => sb.mouse.getPosition());
  const tsStep = await paired(Math.max(10, N / 5), rawStep, () => sb.act({ type: 'click', x: 600, y: 500 }));

  const { stdout } = await run(
    '/usr/bin/python3',
    [path.join(import.meta.dirname, 'sdk-python.py'), sbId, String(N)],
    {
      env: {
        ...process.env,
        SANDBAY_URL: live.url,
        SANDBAY_API_KEY: live.accountKey,
        PYTHONDONTWRITEBYTECODE: '1',
      },
      maxBuffer: 64 << 20,
    },
  );
  const py = JSON.parse(stdout) as { position: Samples; step: Samples };

  console.log(
    `SDK overhead per call vs raw HTTP, ms (${N} position calls, ${Math.max(10, N / 5)} steps each)\n`,
  );
  console.log(
    '| call | raw p50 | SDK p50 | raw p99 | SDK p99 | p50 difference | median paired difference | SDK / raw p50 |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(row('TypeScript: GET mouse/position', tsPosition));
  console.log(row('TypeScript: agent step (act click + PNG)', tsStep));
  console.log(row('Python: GET mouse/position', py.position));
  console.log(row('Python: agent step (act click + PNG)', py.step));
} finally {
  await live.close();
}
