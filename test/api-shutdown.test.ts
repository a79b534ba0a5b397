// Graceful shutdown of the customer API: requests in flight finish, new ones get 503, and a wait on
// a reconciler that outlives the grace period ends with 503 `server_shutting_down`.
import { afterEach, describe, expect, it } from 'vitest';
import type { IdempotencyRecord } from '../crds/index.ts';
import type { LightMyRequestResponse } from 'fastify';
import { FakeClock } from '../operator/runtime/clock.ts';
import { ZERO_TIMINGS } from './operator-fixtures.ts';
import { seedAccount, startApiStack, waitFor, type ApiStack } from './api-harness.ts';

const RESIZE_MS = 60_000;
let s: ApiStack | undefined;
let clock: FakeClock;

afterEach(async () => {
  // The operator stops once the sim's resize (timed on the fake clock) is done. Under load a reconcile
  // may start that resize only after a single advance, and then wait forever: keep business time
  // moving until the cleanup is over.
  const ticker = setInterval(() => clock?.advance(RESIZE_MS), 5);
  try {
    await s?.cleanup();
  } finally {
    clearInterval(ticker);
  }
  s = undefined;
});

async function stack(graceMs: number) {
  clock = new FakeClock();
  s = await startApiStack(
    [{ name: 'mini-1' }],
    { shutdownGraceMs: graceMs },
    { clock, sim: { clock, timings: { ...ZERO_TIMINGS, resizeMs: RESIZE_MS } } },
  );
  const key = await seedAccount(s.f.store, 'shut', 100_000_000);
  await s.reserve(key);
  return { s, key };
}

/** A cold create (the resize waits on the fake clock) that has reached its wait on the reconciler. */
async function coldCreateInFlight(
  st: ApiStack,
  key: string,
): Promise<{ pending: Promise<LightMyRequestResponse> }> {
  const pending = st.call(key, 'POST', '/v1/sandboxes', { cpu: 3 }, { 'idempotency-key': 'k-shutdown' });
  await waitFor(async () => (await st.f.store.list('Sandbox')).items.length > 0, 'the sandbox to be written');
  // Wrapped: an async function returning the bare promise would wait for it.
  return { pending };
}

describe('graceful shutdown', () => {
  it('finishes a request in flight before it closes', async () => {
    const { s: st, key } = await stack(60_000);
    const url = await st.app.listen({ port: 0, host: '127.0.0.1' });
    // Over HTTP: the listener tracks it as in flight (an injected request it would not know of).
    const inFlight = fetch(`${url}/v1/sandboxes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ cpu: 3 }),
    });
    await waitFor(
      async () => (await st.f.store.list('Sandbox')).items.length > 0,
      'the sandbox to be written',
    );
    let closedYet = false;
    const closed = st.app.close().then(() => (closedYet = true));
    let done = false;
    // Whether close() had finished when the answer came: read then, not after the next sleep (the
    // close that rightly follows the answer may land within it).
    const closedBeforeAnswer = inFlight.finally(() => (done = true)).then(() => closedYet);
    for (let i = 0; i < 100 && !done; i++) {
      clock.advance(RESIZE_MS / 10);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await closedBeforeAnswer).toBe(false);
    expect((await inFlight).status).toBe(201);
    await closed;
  });

  it('ends a wait that outlives the grace period with 503 server_shutting_down, left in flight', async () => {
    const { s: st, key } = await stack(50);
    const { pending: inFlight } = await coldCreateInFlight(st, key);
    await st.app.close();
    const r = await inFlight;
    expect([r.statusCode, r.json().error]).toEqual([503, 'server_shutting_down']);
    // Not recorded as the attempt's outcome: the next boot releases it and a retry starts afresh.
    const [record] = (await st.f.store.list<IdempotencyRecord>('IdempotencyRecord')).items;
    expect(record?.status?.phase).not.toBe('completed');
  });
});
