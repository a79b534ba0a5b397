// Attack: guessing keys. A client that keeps presenting wrong keys is refused per address (429
// `too_many_auth_failures` with Retry-After) on the customer listener, on its WebSocket upgrades and
// on the admin listener, while a correct key from another address keeps working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildAdminApp } from '../../api/admin-app.ts';
import { apiKeyResource, generateKey } from '../../api/keys.ts';
import { seedAccount, startApiStack, type ApiStack } from '../api-harness.ts';
import { errorOf, httpRequest } from './http-client.ts';

const MAX = 3;
const limits = { max: MAX, windowMs: 60_000 };
const wrongKey = { authorization: `Bearer sk_live_${'0'.repeat(40)}` };
let s: ApiStack;
let url: string;
let accountKey: string;

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }], { authFailureLimits: limits });
  url = await s.app.listen({ host: '127.0.0.1', port: 0 });
  accountKey = await seedAccount(s.f.store, 'guess-victim', 1_000_000);
});
afterAll(async () => {
  await s?.cleanup();
});

describe('key guessing on the customer listener', () => {
  it('refuses an address after its failures, not another address with a correct key', async () => {
    const from = '127.0.0.11';
    for (let i = 0; i < MAX; i++) {
      const r = await httpRequest(`${url}/v1/reservations`, { headers: wrongKey, from });
      expect([r.status, errorOf(r)]).toEqual([401, 'invalid_api_key']);
    }
    const refused = await httpRequest(`${url}/v1/reservations`, { headers: wrongKey, from });
    expect([refused.status, errorOf(refused)]).toEqual([429, 'too_many_auth_failures']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Even a correct key is refused from the guessing address until the window ends.
    const own = { authorization: `Bearer ${accountKey}` };
    expect((await httpRequest(`${url}/v1/reservations`, { headers: own, from })).status).toBe(429);
    // Another address is unaffected.
    const other = await httpRequest(`${url}/v1/reservations`, { headers: own, from: '127.0.0.12' });
    expect(other.status).toBe(200);
  });

  it('does not count requests without a key', async () => {
    const from = '127.0.0.13';
    for (let i = 0; i < MAX + 2; i++) {
      const r = await httpRequest(`${url}/v1/reservations`, { from });
      expect(errorOf(r)).toBe('missing_api_key');
    }
  });

  it('limits WebSocket upgrades too', async () => {
    const from = '127.0.0.14';
    const ws = `${url}/v1/sandboxes/sb-${'a'.repeat(32)}/ssh`;
    const upgrade = {
      ...wrongKey,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
    };
    const headers = { ...upgrade, 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    for (let i = 0; i < MAX; i++) {
      const r = await httpRequest(ws, { headers, from });
      expect([r.status, errorOf(r)]).toEqual([401, 'invalid_api_key']);
    }
    const refused = await httpRequest(ws, { headers, from });
    expect([refused.status, errorOf(refused)]).toEqual([429, 'too_many_auth_failures']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The same address is refused on plain requests as well: one count per listener.
    expect((await httpRequest(`${url}/v1/reservations`, { headers: wrongKey, from })).status).toBe(429);
  });
});

describe('key guessing on the admin listener', () => {
  let admin: FastifyInstance;
  let adminUrl: string;
  let adminKey: string;

  beforeAll(async () => {
    const key = generateKey();
    await s.f.store.create(apiKeyResource(key, { kind: 'admin' }));
    adminKey = key.plaintext;
    admin = await buildAdminApp({ store: s.f.store, authFailureLimits: limits });
    adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await admin?.close();
  });

  it('refuses a guessing address with 429 and keeps serving the admin from another', async () => {
    const from = '127.0.0.21';
    const path = `${adminUrl}/api`;
    for (let i = 0; i < MAX; i++)
      expect((await httpRequest(path, { headers: wrongKey, from })).status).toBe(401);
    const refused = await httpRequest(path, { headers: wrongKey, from });
    expect([refused.status, errorOf(refused)]).toEqual([429, 'too_many_auth_failures']);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const ok = await httpRequest(path, {
      headers: { authorization: `Bearer ${adminKey}` },
      from: '127.0.0.22',
    });
    expect(ok.status).toBe(200);
  });
});
