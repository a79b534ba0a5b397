// Regressions found by the security and correctness review: requests that must be refused at once
// with a clear 4xx instead of hanging, answering 5xx, or growing without bound. Sim fleet under the
// real operator (its fake clock never moves by itself: a request that would wait on it hangs).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAccount, startApiStack, tempDir, type ApiStack } from './api-harness.ts';

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

/** A tar archive holding one file `big.bin` with these bytes. */
async function tarOf(data: Buffer): Promise<Buffer> {
  const dir = await tempDir('sandbay-review-tar-');
  try {
    await writeFile(join(dir.dir, 'big.bin'), data);
    const out: Buffer[] = [];
    for await (const chunk of tar.create({ cwd: dir.dir }, ['big.bin'])) out.push(chunk as Buffer);
    return Buffer.concat(out);
  } finally {
    await dir.cleanup();
  }
}

describe('uploads past the limit', () => {
  it('answer 413 while streaming, and the connection does not hang the next request', async () => {
    const small = await startApiStack([{ name: 'mini-1' }], { uploadLimitBytes: 1024 * 1024 });
    try {
      const k = await seedAccount(small.f.store, 'acme');
      await small.reserve(k);
      const id = (await small.call(k, 'POST', '/v1/sandboxes', {})).json<{ sandbox_id: string }>().sandbox_id;
      await small.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(small.app.server.address() as AddressInfo).port}`;
      const headers = { authorization: `Bearer ${k}` };
      const big = randomBytes(1536 * 1024);
      const archive = await tarOf(big);
      for (const [rest, bytes] of [
        ['/files?path=big.bin', big],
        ['/files/archive?path=big', archive],
      ] as const) {
        // No Content-Length: the limit can only be seen while streaming.
        const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) =>
          bytes.subarray(i * 65536, (i + 1) * 65536),
        );
        const res = await fetch(`${base}/v1/sandboxes/${id}${rest}`, {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'application/octet-stream' },
          body: new ReadableStream({
            pull(c) {
              const next = chunks.shift();
              if (next) c.enqueue(next);
              else c.close();
            },
          }),
          duplex: 'half',
          signal: AbortSignal.timeout(10_000),
        } as RequestInit);
        expect([res.status, ((await res.json()) as { error: string }).error], rest).toEqual([
          413,
          'payload_too_large',
        ]);
        // The next request (the client may reuse the connection) is answered.
        const next = await fetch(`${base}/v1/sandboxes/${id}`, {
          headers,
          signal: AbortSignal.timeout(10_000),
        });
        expect(next.status, rest).toBe(200);
      }
    } finally {
      await small.cleanup();
    }
  }, 30_000);
});

describe('lifecycle races', () => {
  it('two DELETEs at once: 204, and the other 204 or 404 sandbox_not_found', async () => {
    const r = await s.call(key, 'POST', '/v1/sandboxes', {});
    expect(r.statusCode).toBe(201);
    const id = r.json<{ sandbox_id: string }>().sandbox_id;
    const both = await Promise.all([1, 2, 3].map(() => s.call(key, 'DELETE', `/v1/sandboxes/${id}`)));
    expect(both.map((b) => b.statusCode)).toContain(204);
    for (const b of both.filter((x) => x.statusCode !== 204))
      expect([b.statusCode, b.json().error]).toEqual([404, 'sandbox_not_found']);
    const again = await s.call(key, 'DELETE', `/v1/sandboxes/${id}`);
    expect([again.statusCode, again.json().error]).toEqual([404, 'sandbox_not_found']);
  });
});

describe('idempotency records', () => {
  it('are bounded per account: a new key past the limit is 429, a held key still replays', async () => {
    const few = await startApiStack([{ name: 'mini-1' }], { idempotencyRecordsPerAccount: 3 });
    try {
      const k = await seedAccount(few.f.store, 'acme');
      // No reservation: each create is a quick 409, recorded like any completed 4xx.
      const create = (idem: string) => few.call(k, 'POST', '/v1/sandboxes', {}, { 'idempotency-key': idem });
      for (const idem of ['k1', 'k2', 'k3']) expect((await create(idem)).statusCode).toBe(409);
      const flood = await create('k4');
      expect([flood.statusCode, flood.json().error]).toEqual([429, 'rate_limited']);
      const retry = await create('k2');
      expect([retry.statusCode, retry.headers['idempotent-replayed']]).toEqual([409, 'true']);
      expect((await few.f.store.list('IdempotencyRecord', { namespace: 'acme' })).items).toHaveLength(3);
      // After 24 h the old keys no longer count.
      few.f.clock.advance(24 * 3_600_000 + 1);
      expect((await create('k4')).statusCode).toBe(409);
    } finally {
      await few.cleanup();
    }
  });
});
