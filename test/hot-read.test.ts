// The hot read (api/hot-read.ts): GET /v1/sandboxes/{id} answered in front of Fastify's router.
// Two apps on one fleet, store and clock: `hot` as `sandbay server` builds it, `route` with the hot
// read off, so every answer of `hot` can be compared with the route's own answer to the same
// request, byte for byte. Real sockets throughout (inject never reaches the server's front).
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey } from '../crds/index.ts';
import type { CustomerAppOptions } from '../api/app.ts';
import { keyFromPlaintext } from '../api/keys.ts';
import { appOnFleet, seedAccount, seedKey, startApiStack, waitFor, type ApiStack } from './api-harness.ts';
import { rawConnection, type RawAnswer, type RawConnection } from './support/raw-http.ts';

const VIEWER_SECRET = Buffer.alloc(32, 7);
const RATE_LIMIT = { max: 1000, timeWindowMs: 3_600_000 };

let s: ApiStack;
/** As `sandbay server` builds it, and the same with the hot read off; both on the stack's fleet. */
let hot: FastifyInstance;
let route: FastifyInstance;
let acme: string;
let other: string;
let sb: string;
const connections: RawConnection[] = [];

/** Another app on the stack's fleet, with its viewer secret and the tests' rate limit. */
function appOnStack(opts: Partial<CustomerAppOptions>): Promise<FastifyInstance> {
  return appOnFleet(s.f, { rateLimit: RATE_LIMIT, viewerSecret: VIEWER_SECRET, ...opts });
}

async function listening(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

async function connection(app: FastifyInstance): Promise<RawConnection> {
  const c = await rawConnection((app.server.address() as AddressInfo).port);
  connections.push(c);
  return c;
}

async function hotReads(app: FastifyInstance): Promise<number> {
  const metric = await app.apiMetrics.hotReads.get();
  return metric.values[0]?.value ?? 0;
}

/** The headers that come from the wall clock: `Date`, and the seconds left in the rate limit's window. */
const CLOCK_HEADERS = new Set(['Date', 'x-ratelimit-reset']);

const header = (a: RawAnswer, name: string) => a.headers.find(([n]) => n === name)?.[1];

/**
 * Expects two answers of the same request to be the same but for the clock. Each app's rate-limit
 * window opened at its own first request, a few ms apart, so a whole second may pass between the
 * two: their `x-ratelimit-reset` may differ by one.
 */
function expectSameAnswer(actual: RawAnswer, expected: RawAnswer, label?: string): void {
  const comparable = (a: RawAnswer): RawAnswer => ({
    ...a,
    headers: a.headers.filter(([n]) => !CLOCK_HEADERS.has(n)),
  });
  expect(comparable(actual), label).toEqual(comparable(expected));
  const [resetA, resetE] = [header(actual, 'x-ratelimit-reset'), header(expected, 'x-ratelimit-reset')];
  expect(resetA === undefined, label).toBe(resetE === undefined);
  if (resetA !== undefined) expect(Math.abs(Number(resetA) - Number(resetE)), label).toBeLessThanOrEqual(1);
}

const get = (c: RawConnection, path: string, key?: string, extra: Record<string, string> = {}) =>
  c.request('GET', path, { ...(key && { Authorization: `Bearer ${key}` }), ...extra });

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }], { viewerSecret: VIEWER_SECRET });
  // Apps of their own (the stack's serves the setup calls): their rate limits count alike.
  hot = await appOnStack({});
  await listening(hot);
  route = await appOnStack({ hotReads: false });
  await listening(route);
  acme = await seedAccount(s.f.store, 'acme', 100_000_000);
  other = await seedAccount(s.f.store, 'other', 100_000_000);
  await s.reserve(acme);
  const created = await s.call(acme, 'POST', '/v1/sandboxes', {});
  expect(created.statusCode).toBe(201);
  sb = created.json<{ sandbox_id: string }>().sandbox_id;
});
afterAll(async () => {
  for (const c of connections) c.close();
  await route?.close();
  await hot?.close();
  await s?.cleanup();
});

describe('the hot read', () => {
  it('answers exactly what the route answers: status, headers in order, body', async () => {
    const viaHot = await connection(hot);
    const viaRoute = await connection(route);
    const path = `/v1/sandboxes/${sb}`;
    const headers = { 'X-Request-Id': 'compare-1' };
    // The clock stands still: once each app has recorded the activity (its first request), the
    // sandbox stops changing, the route serializes its info once, and the hot read answers it. The
    // route app is asked first each round, so both apps' rate limits count alike.
    let routeAnswer: RawAnswer | undefined;
    let hotAnswer: RawAnswer | undefined;
    await waitFor(async () => {
      routeAnswer = await get(viaRoute, path, acme, headers);
      const before = await hotReads(hot);
      hotAnswer = await get(viaHot, path, acme, headers);
      return (await hotReads(hot)) === before + 1;
    }, 'an answer of the hot read');
    expect(hotAnswer!.status).toBe(200);
    expectSameAnswer(hotAnswer!, routeAnswer!);
    expect(hotAnswer!.headers.map(([n]) => n)).toEqual([
      'x-request-id',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'content-type',
      'content-length',
      'Date',
      'Connection',
      'Keep-Alive',
    ]);
    expect(JSON.parse(hotAnswer!.body)).toMatchObject({ sandbox_id: sb, state: 'running' });
  });

  it('leaves every other request to the route, which answers it as it would without the hot read', async () => {
    const viaHot = await connection(hot);
    const viaRoute = await connection(route);
    const unknownKey = 'sbk_0000000000000000000000000000000A';
    const cases: [string, string, Record<string, string>][] = [
      ['HEAD', `/v1/sandboxes/${sb}`, { Authorization: `Bearer ${acme}` }],
      ['GET', `/v1/sandboxes/${sb}?x=1`, { Authorization: `Bearer ${acme}` }],
      ['GET', `/v1/sandboxes/${sb}/`, { Authorization: `Bearer ${acme}` }],
      ['GET', `/v1/sandboxes/${sb.toUpperCase()}`, { Authorization: `Bearer ${acme}` }],
      ['GET', `/v1/sandboxes/${sb}`, {}],
      ['GET', `/v1/sandboxes/${sb}`, { Authorization: `Bearer ${unknownKey}` }],
      ['GET', `/v1/sandboxes/${sb}`, { Authorization: acme }],
      ['GET', `/v1/sandboxes/${sb}`, { Authorization: `Bearer ${other}` }],
      ['GET', `/v1/sandboxes/sb-${'0'.repeat(32)}`, { Authorization: `Bearer ${acme}` }],
    ];
    for (const [method, path, headers] of cases) {
      const before = await hotReads(hot);
      const expected = await viaRoute.request(method, path, { ...headers, 'X-Request-Id': 'other-1' });
      const answer = await viaHot.request(method, path, { ...headers, 'X-Request-Id': 'other-1' });
      expect(await hotReads(hot), `${method} ${path}`).toBe(before);
      expectSameAnswer(answer, expected, `${method} ${path}`);
    }
  });

  it('leaves a request the rate limit refuses to the route, which counts and refuses it once', async () => {
    // An app of its own: its limit counts only these requests.
    const app = await appOnStack({ rateLimit: { max: 3, timeWindowMs: 3_600_000 } });
    try {
      await listening(app);
      const c = await connection(app);
      const path = `/v1/sandboxes/${sb}`;
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await get(c, path, acme));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
      const remaining = answers.map((a) => header(a, 'x-ratelimit-remaining'));
      expect(remaining).toEqual(['2', '1', '0', '0', '0']);
      expect(JSON.parse(answers[3]!.body).error).toBe('rate_limited');
      // Some of the three were answered hot (the route answers the first, which serializes the info).
      expect(await hotReads(app)).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });

  it('decides each request on a connection by the key it carries: another key, a wrong one, a revoked one', async () => {
    const c = await connection(hot);
    const path = `/v1/sandboxes/${sb}`;
    const key = await seedAccount(s.f.store, 'acme-neighbour', 0);
    // A second key of acme itself, as the admin CLI writes one.
    const acmeKey2 = await seedKey(s.f.store, { kind: 'account', account: 'acme' });
    await waitFor(async () => (await get(c, path, acme)).status === 200, 'acme answered');
    const before = await hotReads(hot);
    expect((await get(c, path, acme)).status).toBe(200);
    expect(await hotReads(hot)).toBe(before + 1);
    // Another account's key on the same connection is that account's: not its sandbox.
    expect((await get(c, path, key)).status).toBe(404);
    expect((await get(c, path, other)).status).toBe(404);
    // The last character changed to one it is not (a key may well end in any letter).
    const wrong = acme.replace(/.$/, (ch) => (ch === 'x' ? 'y' : 'x'));
    expect((await get(c, path, wrong)).status).toBe(401);
    expect((await get(c, path, acmeKey2)).status).toBe(200);
    expect((await get(c, path, acme)).status).toBe(200);
    // Through Fastify's auth hook too (the list route is never answered hot).
    expect((await get(c, '/v1/sandboxes', other)).body).toBe('[]');
    expect(JSON.parse((await get(c, '/v1/sandboxes', acme)).body)).toHaveLength(1);
    // Revoked: the next request on the same connection is refused, hot or not.
    const first = keyFromPlaintext(acme).name;
    await s.f.store.patch<ApiKey>({ kind: 'ApiKey', name: first }, { spec: { revoked: true } });
    await waitFor(() => s.f.op.informers.apiKeys.get(first)?.spec.revoked === true, 'the revocation cached');
    const refused = await get(c, path, acme);
    expect([refused.status, JSON.parse(refused.body).error]).toEqual([401, 'invalid_api_key']);
    expect((await get(c, '/v1/sandboxes', acme)).status).toBe(401);
    expect((await get(c, path, acmeKey2)).status).toBe(200);
    // Put back for the other tests.
    await s.f.store.patch<ApiKey>({ kind: 'ApiKey', name: first }, { spec: { revoked: false } });
    await waitFor(() => s.f.op.informers.apiKeys.get(first)?.spec.revoked === false, 'the key cached again');
  });

  it('counts, times and logs its answers as the route does', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l));
          done();
        },
      }),
    );
    const app = await appOnStack({ logger });
    try {
      await listening(app);
      const c = await connection(app);
      const path = `/v1/sandboxes/${sb}`;
      // The first answer is the route's (it serializes the info); the next, with the sandbox
      // unchanged, the hot read's.
      let n = 0;
      await waitFor(async () => {
        await get(c, path, acme, { 'X-Request-Id': `log-${++n}` });
        return (await hotReads(app)) > 0;
      }, 'an answer of the hot read');
      const shape = (id: string) =>
        lines
          .filter((l) => l.reqId === id)
          .map((l): Record<string, unknown> => ({ ...l, time: 0, responseTime: typeof l.responseTime }));
      const hotLines = shape(`log-${n}`);
      const routeLines = shape('log-1');
      expect(hotLines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
      expect(hotLines).toEqual(routeLines.map((l) => ({ ...l, reqId: `log-${n}` })));
      const text = await app.apiMetrics.registry.metrics();
      const count = text
        .split('\n')
        .find((l) =>
          l.startsWith(
            'sandbay_http_requests_total{method="GET",route="/v1/sandboxes/:sandboxID",status="200"}',
          ),
        );
      expect(count).toMatch(new RegExp(` ${n}$`));
      expect(text).toMatch(
        new RegExp(
          `sandbay_http_request_duration_seconds_count\\{method="GET",route="/v1/sandboxes/:sandboxID"\\} ${n}`,
        ),
      );
      expect(text).toMatch(/sandbay_http_hot_reads_total [1-9]/);
    } finally {
      await app.close();
    }
  });

  it('stops answering once the app closes: the route answers 503 on a connection still open', async () => {
    const app = await appOnStack({});
    await listening(app);
    const c = await connection(app);
    const path = `/v1/sandboxes/${sb}`;
    await waitFor(async () => {
      await get(c, path, acme);
      return (await hotReads(app)) > 0;
    }, 'an answer of the hot read');
    const served = await hotReads(app);
    const closed = app.close();
    const answer = await get(c, path, acme).catch((err: Error) => err);
    await closed;
    // Either the close ended the idle connection first, or the request met the closing app.
    if (!(answer instanceof Error)) expect(answer.status).toBe(503);
    expect(await hotReads(app)).toBe(served);
  });
});
