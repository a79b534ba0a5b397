// Shared fixtures of the operator's tests: a real SQLite store in a temp dir, and waits on a
// predicate with a deadline (never a sleep).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../store/sqlite-store.ts';

export interface TempStore {
  store: SqliteStore;
  dir: string;
  cleanup(): Promise<void>;
}

export async function tempStore(opts: Partial<SqliteStoreOptions> = {}): Promise<TempStore> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sandbay-op-'));
  const store = await openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL', ...opts });
  return {
    store,
    dir,
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
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
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
