// The server side of the dashboard: sign-in with the account key into an HttpOnly, SameSite=Strict
// session cookie; CSRF on unsafe requests; the account key shown again from its sealed copy and
// rotated; live rates and availability as server-sent events off the store's watch.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../sdk/typescript/src/index.ts';
import type { ApiKey, Rate } from '../crds/index.ts';
import { buildCustomerApp } from '../api/app.ts';
import { apiKeyName, sha256Hex } from '../api/keys.ts';
import { resourceCounts, seedAccount, startApiStack, type ApiStack } from './api-harness.ts';
import { waitFor } from './support/wait.ts';

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const header = String(res.headers['set-cookie'] ?? '');
  return header.split(';')[0]!;
}

describe('dashboard sessions and the account', () => {
  let s: ApiStack;
  let key: string;

  beforeAll(async () => {
    s = await startApiStack([{ name: 'mini-1' }, { name: 'mini-2' }]);
    key = await seedAccount(s.f.store, 'acme', 1_000_000);
  });
  afterAll(() => s.cleanup());

  const signIn = (k: string) => s.call(undefined, 'POST', '/v1/session', { key: k });

  it('refuses a wrong, malformed or reservation key with one message and no cookie', async () => {
    const { key: reservationKey } = await s.reserve(key);
    for (const bad of ['sbk_' + 'x'.repeat(32), 'nonsense', reservationKey]) {
      const res = await signIn(bad);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({
        error: 'invalid_api_key',
        message: 'The key is invalid, revoked or expired.',
      });
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    const empty = await signIn('');
    expect(empty.statusCode).toBe(400);
  });

  it('signs in with the account key into an HttpOnly, SameSite=Strict cookie and seals the key', async () => {
    const res = await signIn(key);
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^sandbay_session=[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(setCookie).not.toContain('Secure'); // plain HTTP here; over TLS it carries Secure
    expect(res.json()).toMatchObject({ account: 'acme', csrf_token: expect.any(String) });
    const stored = await s.f.store.get<ApiKey>({ kind: 'ApiKey', name: apiKeyName(sha256Hex(key)) });
    expect(stored?.spec.sealed).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(key.slice(4));
  });

  it('seals the key again at sign-in after the dashboard secret changed (the old copy never opens)', async () => {
    const k = await seedAccount(s.f.store, 'initech', 1000);
    expect((await signIn(k)).statusCode).toBe(200);
    const name = apiKeyName(sha256Hex(k));
    const before = (await s.f.store.get<ApiKey>({ kind: 'ApiKey', name }))!.spec.sealed;
    expect(before).toMatch(/^v1\./);
    // The same store behind a gateway with a new dashboard secret.
    const app = await buildCustomerApp({
      store: s.f.store,
      drivers: { sim: s.f.sim },
      clock: s.f.clock,
      bootId: 'boot-1',
      environment: 'test',
      rateLimit: false,
      authFailureLimits: false,
      dashboardSecret: randomBytes(32),
    });
    try {
      const post = await app.inject({ method: 'POST', url: '/v1/session', payload: { key: k } });
      expect(post.statusCode).toBe(200);
      const stored = (await s.f.store.get<ApiKey>({ kind: 'ApiKey', name }))!.spec.sealed;
      expect(stored).toMatch(/^v1\./);
      expect(stored).not.toBe(before);
      const cookie = cookieOf(post);
      const keys = await app.inject({ method: 'GET', url: '/v1/me/keys', headers: { cookie } });
      expect(keys.json()).toEqual([expect.objectContaining({ key: k, current: true })]);
    } finally {
      await app.close();
    }
  });

  it('authenticates with the cookie, and needs the CSRF token for anything that changes state', async () => {
    const cookie = cookieOf(await signIn(key));
    const session = await s.call(undefined, 'GET', '/v1/session', undefined, { cookie });
    const csrf = session.json<{ csrf_token: string }>().csrf_token;
    const me = await s.call(undefined, 'GET', '/v1/me', undefined, { cookie });
    expect(me.json()).toMatchObject({ account: 'acme', balance_cents: expect.any(Number) });

    const before = await resourceCounts(s.f.store);
    const forged = await s.call(undefined, 'POST', '/v1/reservations', { hours: 24 }, { cookie });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().error).toBe('csrf_token_invalid');
    const wrong = await s.call(
      undefined,
      'POST',
      '/v1/reservations',
      { hours: 24 },
      { cookie, 'x-csrf-token': 'x' },
    );
    expect(wrong.statusCode).toBe(403);
    expect(await resourceCounts(s.f.store)).toEqual(before);

    const bought = await s.call(
      undefined,
      'POST',
      '/v1/reservations',
      { hours: 24 },
      { cookie, 'x-csrf-token': csrf },
    );
    expect(bought.statusCode).toBe(201);
    // One character of the signature changed, not its last: that one carries padding bits a base64
    // decoder may drop, and a check of the decoded bytes would not see the change.
    const at = cookie.length - 5;
    const tampered = cookie.slice(0, at) + (cookie[at] === 'A' ? 'B' : 'A') + cookie.slice(at + 1);
    expect((await s.call(undefined, 'GET', '/v1/me', undefined, { cookie: tampered })).statusCode).toBe(401);
  });

  it('shows the account key again and rotates it: the old key and its sessions die, the session moves on', async () => {
    const rotating = await seedAccount(s.f.store, 'globex', 1000);
    const signedIn = await signIn(rotating);
    const cookie = cookieOf(signedIn);
    const csrf = signedIn.json<{ csrf_token: string }>().csrf_token;
    const keys = (await s.call(undefined, 'GET', '/v1/me/keys', undefined, { cookie })).json<
      { key: string; current: boolean }[]
    >();
    expect(keys).toEqual([expect.objectContaining({ key: rotating, current: true })]);

    const rotated = await s.call(undefined, 'POST', '/v1/me/keys/rotate', undefined, {
      cookie,
      'x-csrf-token': csrf,
    });
    expect(rotated.statusCode).toBe(200);
    const fresh = rotated.json<{ key: string }>().key;
    expect(fresh).not.toBe(rotating);
    expect((await s.call(rotating, 'GET', '/v1/me')).statusCode).toBe(401);
    // The revoked key cannot sign in again, and is told no more than a wrong key.
    const revokedSignIn = await signIn(rotating);
    expect(revokedSignIn.statusCode).toBe(401);
    expect(revokedSignIn.json().message).toBe('The key is invalid, revoked or expired.');
    expect(revokedSignIn.headers['set-cookie']).toBeUndefined();
    expect((await s.call(undefined, 'GET', '/v1/me', undefined, { cookie })).statusCode).toBe(401);
    expect((await s.call(fresh, 'GET', '/v1/me')).json().account).toBe('globex');
    const renewed = cookieOf(rotated);
    const after = (await s.call(undefined, 'GET', '/v1/me/keys', undefined, { cookie: renewed })).json<
      { key: string }[]
    >();
    expect(after.map((k) => k.key)).toEqual([fresh]);
  });

  it('signs out by clearing the cookie', async () => {
    const res = await s.call(undefined, 'DELETE', '/v1/session');
    expect(res.statusCode).toBe(204);
    expect(String(res.headers['set-cookie'])).toMatch(/^sandbay_session=; Max-Age=0;/);
  });

  it('pushes rates and availability live when the store changes (server-sent events, no polling)', async () => {
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (s.app.server.address() as AddressInfo).port;
    const client = new Client({ apiKey: key, baseUrl: `http://127.0.0.1:${port}`, maxRetries: 0 });
    const abort = new AbortController();
    let failure: unknown;
    const seen: { m4Free: number; m4Rate: number | null }[] = [];
    const reading = (async () => {
      for await (const models of client.watchPlatforms({ signal: abort.signal })) {
        const m4 = models.find((m) => m.mac_model === 'm4')!;
        seen.push({ m4Free: m4.available_minis, m4Rate: m4.cents_per_hour });
      }
    })().catch((err: unknown) => {
      failure = err;
    });
    await waitFor(() => seen.length >= 1 || failure, 'the first models event');
    if (failure) throw failure;
    const first = seen[0]!;

    // The stream writes only on a change (and a comment every 15 s): the change arriving at all is
    // the push. No bound on how soon: a loaded machine may take its time.
    await s.f.store.patch<Rate>(
      { kind: 'Rate', name: 'm4' },
      { spec: { centsPerHour: (first.m4Rate ?? 0) + 7 } },
    );
    await waitFor(() => seen.some((e) => e.m4Rate === (first.m4Rate ?? 0) + 7), 'the change in the stream');

    // A Mac joining the fleet: the operator probes it, and once it is available the stream says so.
    const free = seen.at(-1)!.m4Free;
    await s.f.addMini({ name: 'mini-3' });
    await waitFor(() => seen.at(-1)!.m4Free === free + 1, 'the new Mac in the stream');
    abort.abort();
    await reading;
  });
});
