// A live sandbay for client tests (SDKs, MCP) and benches: the real SQLite store, the linux driver's
// real desktops under the real operator, and the customer API on a real loopback listener, with an
// account that holds an active reservation. The SDKs see nothing but its URL and key.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildCustomerApp } from '../../api/app.ts';
import { createLinuxDriver, type LinuxDriver } from '../../hosts/linux/index.ts';
import { createBlobStore, type BlobStore } from '../../operator/blob-store.ts';
import { startOperator, type RunningOperator } from '../../operator/index.ts';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.ts';
import { seedAccount } from './accounts.ts';
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
  const dir = await mkdtemp(path.join(tmpdir(), `sandbay-${account}-`));
  const store = await openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL' });
  const driver: LinuxDriver = createLinuxDriver({ dataDir: path.join(dir, 'linux'), discardOnClose: true });
  await mkdir(path.join(dir, 'blobs'));
  const blobs = createBlobStore(path.join(dir, 'blobs'));
  const operator: RunningOperator = await startOperator({
    store,
    drivers: { linux: driver },
    blobDir: path.join(dir, 'blobs'),
    localMini: true,
  });
  const app = await buildCustomerApp({
    store,
    drivers: { linux: driver },
    bootId: 'boot-1',
    environment: 'test',
    rateLimit: false,
    blobs,
  });
  const close = async () => {
    await app.close();
    await operator.stop();
    await driver.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const accountKey = await seedAccount(store, account, 100_000_000);
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${url}${p}`, {
        method,
        headers: {
          authorization: `Bearer ${accountKey}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
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
      const res = await fetch(`${url}/v1/platforms`, { headers: { authorization: `Bearer ${key}` } });
      const p = ((await res.json()) as { reservation: { minis: { warm_vms: unknown[] }[] } | null })
        .reservation;
      return p !== null && p.minis.some((m) => m.warm_vms.length > 0);
    },
    'a warm VM',
    120_000,
  );
}
