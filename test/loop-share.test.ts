// The loop share (api/loop-share.ts) on a listening app, over real sockets: a key that floods the
// server while another key calls has its connections held between windows, and nothing is refused.
// The loop's utilization is given (always contended), so what is held does not depend on how fast
// this machine is; which key is held, window by window, is api/loop-share.test.ts's.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOnFleet, seedAccount, startApiStack, type ApiStack } from './api-harness.ts';

let s: ApiStack;
let acme: string;
let other: string;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }]);
  acme = await seedAccount(s.f.store, 'acme');
  other = await seedAccount(s.f.store, 'other');
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await s?.cleanup();
});

/** An app on the stack's fleet whose loop is always contended, listening on loopback. */
async function contendedApp(): Promise<{ app: FastifyInstance; base: string }> {
  const app = await appOnFleet(s.f, { loopShare: { windowMs: 10, utilization: () => 1 } });
  apps.push(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function holds(app: FastifyInstance): Promise<number> {
  return (await app.apiMetrics.loopShareHolds.get()).values[0]?.value ?? 0;
}

/** GETs of `key`, `connections` at a time, until `enough` says so; their status codes. */
async function flood(
  base: string,
  key: string,
  connections: number,
  enough: (sent: number) => boolean | Promise<boolean>,
): Promise<number[]> {
  const statuses: number[] = [];
  let sent = 0;
  let done = false;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (!done) {
        sent++;
        const r = await fetch(`${base}/v1/sandboxes`, { headers: { authorization: `Bearer ${key}` } });
        await r.arrayBuffer();
        statuses.push(r.status);
        if (sent % 50 === 0 && (await enough(sent))) done = true;
      }
    }),
  );
  return statuses;
}

describe('a key’s share of the event loop', () => {
  it('holds the flooding key’s connections while another key calls, and answers every request of both', async () => {
    const { app, base } = await contendedApp();
    let flooding = true;
    const [noisy, quiet] = await Promise.all([
      flood(base, acme, 8, async (sent) => (await holds(app)) > 0 || sent >= 20_000).finally(
        () => (flooding = false),
      ),
      flood(base, other, 1, () => !flooding),
    ]);
    expect(await holds(app)).toBeGreaterThan(0);
    expect(new Set([...noisy, ...quiet])).toEqual(new Set([200]));
  });

  it('never holds a key that calls alone, however contended the loop', async () => {
    const { app, base } = await contendedApp();
    const alone = await flood(base, acme, 8, (sent) => sent >= 1000);
    expect(new Set(alone)).toEqual(new Set([200]));
    expect(await holds(app)).toBe(0);
  });
});
