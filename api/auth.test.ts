import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { CachedReads } from './services/reads.ts';
import type { ApiKey } from '../crds/index.ts';
import {
  openStore,
  seedAccount,
  seedKey,
  seedReservation,
  tempDir,
  type TempDir,
} from '../test/api-harness.ts';
import { authenticate, principalOfKey, requireKind } from './auth.ts';
import { ApiError } from './errors.ts';
import { apiKeyName, sha256Hex } from './keys.ts';

const RES = '11111111-1111-4111-8111-111111111111';
const ENDED = '22222222-2222-4222-8222-222222222222';
const NOW = Date.parse('2026-01-05T09:00:00Z');
const LATER = new Date(NOW + 3_600_000).toISOString();

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
  }
}

describe('customer key authentication', () => {
  let tmp: TempDir;
  let store: SqliteStore;
  let reads: CachedReads;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    tmp = await tempDir();
    store = await openStore(tmp.dir);
    // Not started: every read goes to the store (the uncached path).
    reads = new CachedReads(store);
    keys.account = await seedAccount(store, 'acme');
    await seedReservation(store, 'acme', RES, { phase: 'active', endAt: LATER });
    await seedReservation(store, 'acme', ENDED, {
      phase: 'completed',
      endAt: new Date(NOW - 1000).toISOString(),
    });
    keys.reservation = await seedKey(store, {
      kind: 'reservation',
      account: 'acme',
      reservation: `acme/${RES}`,
    });
    keys.ended = await seedKey(store, { kind: 'reservation', account: 'acme', reservation: `acme/${ENDED}` });
    keys.admin = await seedKey(store, { kind: 'admin' });
    keys.revoked = await seedKey(store, { kind: 'account', account: 'acme' });
    const name = apiKeyName(sha256Hex(keys.revoked));
    const k = (await store.get<ApiKey>({ kind: 'ApiKey', name }))!;
    await store.update<ApiKey>({ ...k, spec: { ...k.spec, revoked: true } });
    keys.expired = await seedKey(store, {
      kind: 'account',
      account: 'acme',
      expiresAt: new Date(NOW - 1).toISOString(),
    });
    keys.foreignReservation = await seedKey(store, {
      kind: 'reservation',
      account: 'acme',
      reservation: `other/${RES}`,
    });
  });
  afterAll(async () => {
    await store.close();
    await tmp.cleanup();
  });

  it('admits an account key for its account, across reservations', async () => {
    expect(await principalOfKey(reads, keys.account!, NOW)).toMatchObject({
      kind: 'account',
      account: 'acme',
    });
  });

  it('admits a reservation key for its account within its reservation', async () => {
    const p = await principalOfKey(reads, keys.reservation!, NOW);
    expect(p).toMatchObject({ kind: 'reservation', account: 'acme', reservation: RES });
  });

  it('refuses a reservation key once end_at has passed, even before the reconciler revokes it', async () => {
    expect(await principalOfKey(reads, keys.reservation!, Date.parse(LATER) + 1)).toBeUndefined();
    expect(await principalOfKey(reads, keys.ended!, NOW)).toBeUndefined();
  });

  it('refuses revoked, expired, admin, unknown keys and keys naming another account', async () => {
    for (const k of ['revoked', 'expired', 'admin', 'foreignReservation']) {
      expect(await principalOfKey(reads, keys[k]!, NOW), k).toBeUndefined();
    }
    expect(await principalOfKey(reads, 'sbk_unknownunknownunknownunknown12', NOW)).toBeUndefined();
  });

  it('answers 401 with a code for missing and malformed headers', async () => {
    expect(await codeOf(authenticate(reads, undefined, NOW))).toBe('401 missing_api_key');
    expect(await codeOf(authenticate(reads, '', NOW))).toBe('401 missing_api_key');
    expect(await codeOf(authenticate(reads, `Basic ${keys.account}`, NOW))).toBe('401 invalid_api_key');
    expect(await codeOf(authenticate(reads, 'Bearer', NOW))).toBe('401 invalid_api_key');
    expect(await codeOf(authenticate(reads, `Bearer ${'x'.repeat(5000)}`, NOW))).toBe('401 invalid_api_key');
    expect(await codeOf(authenticate(reads, `bearer ${keys.account}`, NOW))).toBe('ok');
  });

  it('separates key kinds with 403', () => {
    const account = { kind: 'account' as const, account: 'acme', keyName: 'k' };
    const reservation = { kind: 'reservation' as const, account: 'acme', reservation: RES, keyName: 'k' };
    expect(() => requireKind(account, 'reservation')).toThrow(/reservation key/);
    expect(() => requireKind(reservation, 'account')).toThrow(/account key/);
    expect(() => requireKind(reservation, 'customer')).not.toThrow();
  });

  it("admits an evaluation agent's sandbox key on its own sandbox's computer-use routes only", () => {
    const sandbox = { kind: 'sandbox' as const, account: 'acme', sandbox: 'sb-1', keyName: 'k' };
    const request = (method: string, url: string, sandboxID?: string) =>
      ({ method, routeOptions: { url }, params: sandboxID ? { sandboxID } : {} }) as unknown as Parameters<
        typeof requireKind
      >[2];
    const admitted = (
      method: string,
      url: string,
      id?: string,
      auth: 'customer' | 'account' = 'customer',
    ) => {
      try {
        requireKind(sandbox, auth, request(method, url, id));
        return true;
      } catch (err) {
        expect((err as ApiError).code).toBe('sandbox_key_not_allowed');
        return false;
      }
    };
    expect(admitted('POST', '/v1/sandboxes/:sandboxID/mouse/click', 'sb-1')).toBe(true);
    expect(admitted('GET', '/v1/sandboxes/:sandboxID', 'sb-1')).toBe(true);
    expect(admitted('POST', '/v1/sandboxes/:sandboxID/done', 'sb-1')).toBe(true);
    expect(admitted('POST', '/v1/sandboxes/:sandboxID/mouse/click', 'sb-2')).toBe(false);
    expect(admitted('DELETE', '/v1/sandboxes/:sandboxID', 'sb-1')).toBe(false);
    expect(admitted('POST', '/v1/sandboxes/:sandboxID/grade', 'sb-1')).toBe(false);
    expect(admitted('POST', '/v1/sandboxes/:sandboxID/snapshots', 'sb-1')).toBe(false);
    expect(admitted('GET', '/v1/sandboxes')).toBe(false);
    expect(admitted('GET', '/v1/me/tasks', undefined, 'account')).toBe(false);
    expect(() => requireKind(sandbox, 'customer')).toThrow(ApiError);
  });
});
