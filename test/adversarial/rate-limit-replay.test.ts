// Attack: poisoning an Idempotency-Key with a 429. A client exhausts its rate limit, then sends a
// keyed create: the 429 must not become the key's recorded answer, so the same key retried after
// the window performs the create (a real sandbox) instead of replaying the refusal.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Sandbox } from '../../crds/index.ts';
import { seedAccount, startApiStack, waitFor, type ApiStack } from '../api-harness.ts';
import { errorOf, httpRequest, type RawResponse } from './http-client.ts';

// Long enough that the reads and the create below fall in one window on a loaded machine; short
// enough that the test waits it out.
const WINDOW_MS = 3_000;
let s: ApiStack;
let url: string;

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }], { rateLimit: { max: 3, timeWindowMs: WINDOW_MS } });
  url = await s.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await s?.cleanup();
});

it('a 429 is never replayed as a key’s answer', async () => {
  const accountKey = await seedAccount(s.f.store, 'limited', 100_000_000);
  const { key } = await s.reserve(accountKey);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const create = (): Promise<RawResponse> =>
    httpRequest(`${url}/v1/sandboxes`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'poison-me' },
      body: '{}',
    });
  // Use up the window with plain reads, then the keyed create is refused.
  const read = () => httpRequest(`${url}/v1/sandboxes`, { headers });
  let limited: RawResponse | undefined;
  for (let i = 0; i < 10 && (limited = await read()).status !== 429; i++);
  // The read's refusal is the limiter's whole answer: its error, headers and the request id.
  expect([limited?.status, errorOf(limited!), limited?.headers['x-ratelimit-remaining']]).toEqual([
    429,
    'rate_limited',
    '0',
  ]);
  expect(limited?.headers['retry-after']).toMatch(/^\d+$/);
  expect(limited?.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  const refused = await create();
  expect([refused.status, errorOf(refused)]).toEqual([429, 'rate_limited']);
  const namespace = 'limited';
  expect((await s.f.store.list('IdempotencyRecord', { namespace })).items).toEqual([]);
  // After the window the same key performs the create.
  const created = await waitFor(async () => {
    const r = await create();
    expect(r.headers['idempotent-replayed']).toBeUndefined();
    return r.status === 429 ? undefined : r;
  }, 'the rate limit window to pass');
  expect(created.status).toBe(201);
  const sandboxes = await s.f.store.list<Sandbox>('Sandbox', { namespace });
  expect(sandboxes.items).toHaveLength(1);
  // And from now on the key replays the create.
  const replay = await create();
  expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
});
