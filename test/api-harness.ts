// Shared setup of the API tests: a real SQLite store in a temp dir, accounts with credit and keys
// (written the way the admin CLI and the API write them: hashes only), and the customer app.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_VERSION, type Account, type Rate, type Reservation } from '../crds/index.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { apiKeyResource, generateKey } from '../api/keys.ts';

export interface TempDir {
  dir: string;
  cleanup(): Promise<void>;
}

export async function tempDir(prefix = 'sandbay-api-'): Promise<TempDir> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function openStore(dir: string): Promise<SqliteStore> {
  return openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL' });
}

let userSeq = 0;

/** An Account with `balanceCents` of credit and an account key; returns the key's plaintext. */
export async function seedAccount(store: Store, name: string, balanceCents = 10_000_000): Promise<string> {
  userSeq++;
  await store.create<Account>({
    apiVersion: API_VERSION,
    kind: 'Account',
    metadata: { name },
    spec: { displayName: name, userId: `00000000-0000-4000-8000-${String(userSeq).padStart(12, '0')}` },
  });
  await store.patch<Account>(
    { kind: 'Account', name },
    {
      status: {
        balanceCents,
        ledger: [{ at: new Date(0).toISOString(), amountCents: balanceCents, reason: 'grant' }],
      },
    },
    { subresource: 'status' },
  );
  return seedKey(store, { kind: 'account', account: name });
}

/** Writes an ApiKey (hash only) and returns its plaintext. */
export async function seedKey(
  store: Store,
  spec: {
    kind: 'account' | 'reservation' | 'admin';
    account?: string;
    reservation?: string;
    expiresAt?: string;
  },
): Promise<string> {
  const key = generateKey();
  await store.create(apiKeyResource(key, spec));
  return key.plaintext;
}

export async function seedRate(
  store: Store,
  model: 'm4' | 'm4-pro' | 'm5-pro',
  centsPerHour: number,
): Promise<void> {
  await store.create<Rate>({
    apiVersion: API_VERSION,
    kind: 'Rate',
    metadata: { name: model },
    spec: { macModel: model, centsPerHour },
  });
}

/**
 * A reservation in a given state, written directly (for tests of the API's own checks that need no
 * reconciler: auth, viewer tokens). Lifecycle tests go through POST /v1/reservations and the operator.
 */
export async function seedReservation(
  store: Store,
  account: string,
  name: string,
  status: Reservation['status'],
): Promise<Reservation> {
  await store.create<Reservation>({
    apiVersion: API_VERSION,
    kind: 'Reservation',
    metadata: { name, namespace: account },
    spec: { hours: 24, miniCount: 1, macModel: 'm4', vmLayout: 'split' },
  });
  return store.patch<Reservation>(
    { kind: 'Reservation', namespace: account, name },
    { status },
    { subresource: 'status' },
  );
}

/** Resolves with the first truthy value of `probe`; throws after `timeoutMs` saying what was awaited. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
