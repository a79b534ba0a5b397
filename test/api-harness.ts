// Shared setup of the API tests: a real SQLite store in a temp dir, accounts with credit and keys
// (written the way the admin CLI and the API write them: hashes only), and the customer app.
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { API_VERSION, type Rate, type Reservation } from '../crds/index.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildCustomerApp, type CustomerAppOptions } from '../api/app.ts';
import { createLinuxDriver, type LinuxDriver } from '../hosts/linux/index.ts';
import { createBlobStore, type BlobStore } from '../operator/blob-store.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import { startSimFleet, type MiniDecl, type SimFleet } from './operator-fixtures.ts';
import { tempDir, type TempDir } from './support/temp-dir.ts';

export { seedAccount, seedKey } from './support/accounts.ts';
export { waitFor } from './support/wait.ts';
export { tempDir, type TempDir };

export async function openStore(dir: string): Promise<SqliteStore> {
  return openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL' });
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

// ---- the customer API on a sim fleet under the real operator ----

export interface ApiStack {
  f: SimFleet;
  app: FastifyInstance;
  /** Calls the app with `Authorization: Bearer <key>` (no header when key is undefined). */
  call(
    key: string | undefined,
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Buys a reservation through the API; returns its id and plaintext key. */
  reserve(accountKey: string, body?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  cleanup(): Promise<void>;
}

export async function startApiStack(
  minis: MiniDecl[] = [{ name: 'mini-1' }],
  opts: Partial<CustomerAppOptions> = {},
  fleet: Parameters<typeof startSimFleet>[1] = {},
): Promise<ApiStack> {
  const f = await startSimFleet(minis, fleet);
  await f.poolsReady();
  const app = await appOnFleet(f, opts);
  const call: ApiStack['call'] = (key, method, url, body, headers = {}) =>
    app.inject({
      method,
      url,
      headers: { ...(key !== undefined && { authorization: `Bearer ${key}` }), ...headers },
      ...(body !== undefined && { payload: body as string | object }),
    });
  return {
    f,
    app,
    call,
    async reserve(accountKey, body = {}) {
      const r = await call(accountKey, 'POST', '/v1/reservations', { hours: 24, ...body });
      if (r.statusCode !== 201) throw new Error(`reservation: ${r.statusCode} ${r.body}`);
      const { id, key, status } = r.json<{ id: string; key: string; status: string }>();
      if (status !== 'active') throw new Error(`reservation ${id} is ${status}`);
      return { id, key };
    },
    async cleanup() {
      await app.close();
      await f.cleanup();
    },
  };
}

/**
 * A customer app on a sim fleet's store, drivers and clock, reading the operator's caches as
 * `sandbay server` does; the stack's own app is one, and a test may add more (replicas, variants).
 */
export function appOnFleet(f: SimFleet, opts: Partial<CustomerAppOptions> = {}): Promise<FastifyInstance> {
  return buildCustomerApp({
    store: f.store,
    drivers: { sim: f.sim },
    clock: f.clock,
    bootId: 'boot-1',
    environment: 'test',
    rateLimit: false,
    authFailureLimits: false,
    informers: f.op.informers,
    ...opts,
  });
}

/** Counts of every kind the API writes, to prove that a refused request changed nothing. */
export async function resourceCounts(store: Store): Promise<Record<string, number>> {
  const kinds = ['Reservation', 'Sandbox', 'Snapshot', 'ApiKey', 'Account', 'VM'];
  const out: Record<string, number> = {};
  for (const k of kinds) out[k] = (await store.list(k)).items.length;
  return out;
}

// ---- the customer API on this machine's real desktops (linux driver) under the real operator ----

export interface LinuxApiStack {
  tmp: TempDir;
  store: SqliteStore;
  driver: LinuxDriver;
  operator: RunningOperator;
  app: FastifyInstance;
  /** The blob store of task files and trajectories (the app's). */
  blobs: BlobStore;
  /** `http://127.0.0.1:<port>` of the listening app. */
  base: string;
  close(): Promise<void>;
}

/** The local Mac (linux driver) with its operator and a listening customer app, in a temp data dir. */
export async function startLinuxApiStack(
  prefix: string,
  opts: Partial<CustomerAppOptions> = {},
): Promise<LinuxApiStack> {
  // Each part, once made, is closed on the way out, also when a later one fails to start.
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  try {
    const tmp = await tempDir(prefix);
    closers.push(() => tmp.cleanup());
    const store = await openStore(tmp.dir);
    closers.push(() => store.close());
    const driver = createLinuxDriver({ dataDir: path.join(tmp.dir, 'linux'), discardOnClose: true });
    closers.push(() => driver.close());
    await mkdir(path.join(tmp.dir, 'blobs'));
    const blobs = createBlobStore(path.join(tmp.dir, 'blobs'));
    const operator = await startOperator({
      store,
      drivers: { linux: driver },
      blobDir: path.join(tmp.dir, 'blobs'),
      localMini: true,
      // As the server does: the operator fetches (downloads, agent endpoints) under the API's policy.
      ...(opts.setupFetch && { settings: { setupFetch: opts.setupFetch } }),
    });
    closers.push(() => operator.stop());
    const app = await buildCustomerApp({
      store,
      drivers: { linux: driver },
      bootId: 'boot-1',
      environment: 'test',
      rateLimit: false,
      blobs,
      ...opts,
    });
    closers.push(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    return { tmp, store, driver, operator, app, blobs, base, close };
  } catch (err) {
    await close();
    throw err;
  }
}
