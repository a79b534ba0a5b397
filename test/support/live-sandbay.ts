// A live sandbay for client tests (SDKs, MCP) and benches: the real SQLite store, the linux driver's
// real desktops under the real operator, and the customer API on a real loopback listener, with an
// account that holds an active reservation. The SDKs see nothing but its URL and key.
import type { FastifyInstance } from 'fastify';
import type { BlobStore } from '../../operator/blob-store.ts';
import type { SqliteStore } from '../../store/sqlite-store.ts';
import { startLinuxApiStack } from '../api-harness.ts';
import { seedAccount } from './accounts.ts';
import { apiCall } from './api-call.ts';
import { waitFor } from './wait.ts';

export interface LiveSandbay {
  /** The customer API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  account: string;
  /** The account key (plaintext). */
  accountKey: string;
  /** The active reservation's id and key (undefined with `reserve: false`). */
  reservation: { id: string; key: string } | undefined;
  store: SqliteStore;
  blobs: BlobStore;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * With `reserve: false` the account has credit but no reservation yet (a test that reserves
 * through a client); the local Mac is for sale either way.
 */
export async function startLiveSandbay(account = 'sdk', o: { reserve?: boolean } = {}): Promise<LiveSandbay> {
  const { store, blobs, app, base: url, close } = await startLinuxApiStack(`sandbay-${account}-`);
  try {
    const accountKey = await seedAccount(store, account, 100_000_000);
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await apiCall(url, accountKey, method, p, body);
      return { status: r.status, body: r.json() };
    };
    // A fresh install: the local Mac is for sale once the operator has probed it.
    await waitFor(
      async () =>
        ((await call('GET', '/v1/platforms')).body.models as { available_minis: number }[])[0]!
          .available_minis > 0,
      'the local Mac',
      60_000,
    );
    if (o.reserve === false)
      return { url, account, accountKey, reservation: undefined, store, blobs, app, close };
    const r = await call('POST', '/v1/reservations', { hours: 24 });
    if (r.status !== 201 || r.body.status !== 'active') throw new Error(`reservation: ${JSON.stringify(r)}`);
    await waitForWarmVm(url, accountKey);
    const reservation = { id: r.body.id as string, key: r.body.key as string };
    return { url, account, accountKey, reservation, store, blobs, app, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Waits until the caller's reservation has a warm VM, so that a create takes one at once. */
export async function waitForWarmVm(url: string, key: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await apiCall(url, key, 'GET', '/v1/platforms');
      const p = res.json<{ reservation: { minis: { warm_vms: unknown[] }[] } | null }>().reservation;
      return p !== null && p.minis.some((m) => m.warm_vms.length > 0);
    },
    'a warm VM',
    120_000,
  );
}
