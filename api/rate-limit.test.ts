import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { errorHandler } from './errors.ts';
import { RequestRateLimiter } from './rate-limit.ts';

let app: FastifyInstance | undefined;
afterEach(() => app?.close());

/** An app whose requests act for the key named in `x-key` (as the auth hook sets the principal). */
async function appWith(limiter: RequestRateLimiter): Promise<FastifyInstance> {
  app = Fastify();
  app.setErrorHandler(errorHandler);
  app.addHook('onRequest', (request, _reply, done) => {
    const key = request.headers['x-key'];
    if (typeof key === 'string') request.principal = { kind: 'account', account: 'a', keyName: key };
    done();
  });
  app.addHook('preValidation', limiter.hook);
  app.get('/x', () => ({ ok: true }));
  return app;
}

describe('RequestRateLimiter', () => {
  it('counts per key in fixed windows, with the headers on every answer and a 429 over the limit', async () => {
    let now = 1_000_000;
    const a = await appWith(new RequestRateLimiter({ max: 2, timeWindowMs: 60_000 }, () => now));
    const get = (key: string) => a.inject({ method: 'GET', url: '/x', headers: { 'x-key': key } });
    const first = await get('k1');
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': '60',
    });
    now += 15_000;
    expect((await get('k1')).headers['x-ratelimit-remaining']).toBe('0');
    const refused = await get('k1');
    expect([refused.statusCode, refused.json().error]).toEqual([429, 'rate_limited']);
    expect(refused.json().message).toBe('At most 2 requests per 1 minute; retry later.');
    expect(refused.headers).toMatchObject({
      'retry-after': '45',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '45',
    });
    // Another key (from the same address) has its own window.
    expect((await get('k2')).statusCode).toBe(200);
    // The window ends 60 s after its first request, not after the last one.
    now += 45_000;
    const after = await get('k1');
    expect([after.statusCode, after.headers['x-ratelimit-remaining']]).toEqual([200, '1']);
  });

  it('counts by client address when the request has no key, and leaves unknown routes alone', async () => {
    const a = await appWith(new RequestRateLimiter({ max: 1, timeWindowMs: 1000 }, () => 0));
    expect((await a.inject({ method: 'GET', url: '/x' })).statusCode).toBe(200);
    expect((await a.inject({ method: 'GET', url: '/x' })).statusCode).toBe(429);
    expect((await a.inject({ method: 'GET', url: '/x', headers: { 'x-key': 'k' } })).statusCode).toBe(200);
    const missing = await a.inject({ method: 'GET', url: '/nothing' });
    expect([missing.statusCode, missing.headers['x-ratelimit-limit']]).toEqual([404, undefined]);
  });

  it('admits (counting) only what the hook would let through, in the same windows', async () => {
    let now = 0;
    const limiter = new RequestRateLimiter({ max: 2, timeWindowMs: 10_000 }, () => now);
    const a = await appWith(limiter);
    expect(limiter.admit('k1')).toEqual({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': '10',
    });
    now = 4_000;
    // The hook counts the window's second request; `admit` then refuses without counting.
    const second = await a.inject({ method: 'GET', url: '/x', headers: { 'x-key': 'k1' } });
    expect([second.statusCode, second.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
    expect(limiter.admit('k1')).toBeUndefined();
    expect(limiter.admit('k1')).toBeUndefined();
    const refused = await a.inject({ method: 'GET', url: '/x', headers: { 'x-key': 'k1' } });
    expect([refused.statusCode, refused.headers['retry-after']]).toEqual([429, '6']);
    now = 10_000;
    expect(limiter.admit('k1')?.['x-ratelimit-remaining']).toBe('1');
  });
});
