// Regressions found by the security and correctness review: requests that must be refused at once
// with a clear 4xx instead of hanging, answering 5xx, or growing without bound. Sim fleet under the
// real operator (its fake clock never moves by itself: a request that would wait on it hangs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccount, startApiStack, type ApiStack } from './api-harness.ts';

let s: ApiStack;
let key: string;
let sb: string;

beforeAll(async () => {
  s = await startApiStack();
  key = await seedAccount(s.f.store, 'acme');
  await s.reserve(key);
  const r = await s.call(key, 'POST', '/v1/sandboxes', {});
  expect(r.statusCode).toBe(201);
  sb = r.json<{ sandbox_id: string }>().sandbox_id;
});

afterAll(async () => {
  await s?.cleanup();
});

describe('input bounds', () => {
  it('refuses a type whose pauses would run for hours with 400, at once', async () => {
    // 100 000 characters × 10 s: within each field's own bound, about 11.5 days in all.
    const body = { text: 'a'.repeat(100_000), delay: 10_000 };
    const r = await s.call(key, 'POST', `/v1/sandboxes/${sb}/keyboard/type`, body);
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ error: 'invalid_argument' });
    expect(r.json<{ message: string }>().message).toMatch(/300 s/);
    const act = await s.call(key, 'POST', `/v1/sandboxes/${sb}/act`, {
      action: { type: 'type', ...body },
      screenshot_after: false,
    });
    expect(act.statusCode).toBe(400);
  }, 10_000);
});
