// The operator on the linux driver: this machine registered as one Mac whose VMs are real
// desktops. One path through the whole lifecycle: reserve → warm create → delete → a fresh clone
// back in the pool → cold create of another size → snapshot → restore → expiry.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_VERSION,
  type Account,
  type Mini,
  type Reservation,
  type Sandbox,
  type Snapshot,
  type VM,
} from '../crds/index.ts';
import { createLinuxDriver, type LinuxDriver } from '../hosts/linux/index.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import { FakeClock } from '../operator/runtime/clock.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import { sandboxId, waitFor } from './operator-fixtures.ts';

const LONG = 60_000;
let dir: string;
let store: SqliteStore;
let driver: LinuxDriver;
let op: RunningOperator;
const clock = new FakeClock();

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sandbay-op-linux-'));
  store = await openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL' });
  driver = createLinuxDriver({ dataDir: path.join(dir, 'linux'), discardOnClose: true });
  op = await startOperator({ store, drivers: { linux: driver }, blobDir: path.join(dir, 'blobs'), clock });
});

afterAll(async () => {
  await op?.stop();
  await driver?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

const get = <T extends Sandbox | Reservation | Mini | Snapshot | VM>(
  kind: string,
  name: string,
  namespace?: string,
) => store.get<T>({ kind, name, ...(namespace !== undefined && { namespace }) });

async function warmPool(): Promise<VM[]> {
  return waitFor(
    async () => {
      const vms = (await store.list<VM>('VM')).items.filter(
        (vm) => vm.spec.mini === 'local' && !vm.spec.sandbox,
      );
      const held = (await store.list<VM>('VM')).items.filter(
        (vm) => vm.spec.mini === 'local' && vm.spec.sandbox,
      ).length;
      return vms.length + held === 2 && vms.every((vm) => vm.status?.phase === 'warm') ? vms : undefined;
    },
    'the local warm pool',
    LONG,
  );
}

async function create(spec: Partial<Sandbox['spec']> = {}): Promise<Sandbox> {
  const sb = await store.create<Sandbox>({
    apiVersion: API_VERSION,
    kind: 'Sandbox',
    metadata: { name: sandboxId(), namespace: 'acme' },
    spec: { reservation: 'r1', ephemeral: false, ...spec },
  });
  return waitFor(
    async () => {
      const s = await get<Sandbox>('Sandbox', sb.metadata.name, 'acme');
      return s?.status?.phase === 'running' || s?.status?.phase === 'failed' ? s : undefined;
    },
    'the sandbox to run',
    LONG,
  );
}

function guest(sb: Sandbox) {
  return driver.host({ name: 'local', address: '127.0.0.1', model: 'm4' }).guest(sb.status!.vm!);
}

async function destroy(sb: Sandbox) {
  await store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
  await waitFor(async () => !(await get('Sandbox', sb.metadata.name, 'acme')), 'the sandbox gone', LONG);
}

describe('operator on the linux driver', () => {
  it(
    'reserve → warm create → delete → fresh clone → cold create → snapshot → restore → expiry, on real desktops',
    { timeout: 300_000 },
    async () => {
      const local = await waitFor(
        async () => {
          const m = await get<Mini>('Mini', 'local');
          return m?.status?.phase === 'available' ? m : undefined;
        },
        'the local Mac to register',
        LONG,
      );
      expect(local.spec).toMatchObject({
        address: '127.0.0.1',
        model: 'm4',
        driver: 'linux',
        defaultLayout: 'split',
      });
      await warmPool();

      const acct = await store.create<Account>({
        apiVersion: API_VERSION,
        kind: 'Account',
        metadata: { name: 'acme' },
        spec: { displayName: 'Acme', userId: '00000000-0000-4000-8000-000000000001' },
      });
      await store.updateStatus<Account>({ ...acct, status: { ledger: [], balanceCents: 10_000_000 } });
      await store.create<Reservation>({
        apiVersion: API_VERSION,
        kind: 'Reservation',
        metadata: { name: 'r1', namespace: 'acme' },
        spec: { hours: 24, miniCount: 1, macModel: 'm4', vmLayout: 'split' },
      });
      const r = await waitFor(
        async () => {
          const x = await get<Reservation>('Reservation', 'r1', 'acme');
          return x?.status?.phase === 'active' ? x : undefined;
        },
        'the reservation to activate',
        LONG,
      );
      expect(r.status?.miniIps).toEqual(['127.0.0.1']);

      // Warm create: a real desktop answers at once.
      const warm = await create();
      expect(warm.status).toMatchObject({ phase: 'running', boot: 'warm', cpu: 5, memoryGiB: 8 });
      expect(warm.status!.vmIp).toMatch(/^198\.19\./);
      expect((await guest(warm).exec('echo hi')).stdout.trim()).toBe('hi');
      await guest(warm).putFile('notes/secret.txt', Buffer.from('customer data'));
      const warmVm = warm.status!.vm!;

      // Delete: the dirty VM is thrown away and a fresh clone takes its slot.
      await destroy(warm);
      await warmPool();
      const fresh = (await get<VM>('VM', warmVm))!;
      expect(fresh.status?.phase).toBe('warm');
      const again = await create();
      expect(again.status?.vm).toBe(warmVm);
      const probe = await guest(again).exec('test -e notes/secret.txt && echo present || echo absent');
      expect(probe.stdout.trim()).toBe('absent');

      // Cold create of another size: the other warm VM is resized and booted.
      const cold = await create({ cpu: 3, memoryGiB: 6 });
      expect(cold.status).toMatchObject({ phase: 'running', boot: 'cold', cpu: 3, memoryGiB: 6 });
      expect((await guest(cold).exec('echo cold')).stdout.trim()).toBe('cold');

      // Snapshot the cold sandbox's disk delta, then restore it into a new sandbox.
      await guest(cold).putFile('work/result.txt', Buffer.from('42'));
      await store.create<Snapshot>({
        apiVersion: API_VERSION,
        kind: 'Snapshot',
        metadata: { name: 'v1', namespace: 'acme' },
        spec: { sourceSandbox: cold.metadata.name, name: 'after work' },
      });
      const snap = await waitFor(
        async () => {
          const s = await get<Snapshot>('Snapshot', 'v1', 'acme');
          return s?.status?.phase === 'ready' || s?.status?.phase === 'failed' ? s : undefined;
        },
        'the snapshot',
        LONG,
      );
      expect(snap.status).toMatchObject({ phase: 'ready', baseImage: 'base-macos-26', diskGiB: 50 });
      await destroy(again);
      await warmPool();
      const restored = await create({ snapshot: 'v1' });
      expect(restored.status).toMatchObject({ phase: 'running', boot: 'cold' });
      expect(await text(await guest(restored).getFile('work/result.txt'))).toBe('42');

      // Expiry: the sandboxes go, the key is revoked, the Mac is available and its pool warm again.
      clock.advance(Date.parse(r.status!.endAt!) - clock.now());
      const done = await waitFor(
        async () => {
          const x = await get<Reservation>('Reservation', 'r1', 'acme');
          return x?.status?.phase === 'completed' ? x : undefined;
        },
        'the reservation to complete',
        LONG,
      );
      expect((await store.list('Sandbox', { namespace: 'acme' })).items).toHaveLength(0);
      expect(
        (await store.get<{ spec: { revoked: boolean } } & Sandbox>({
          kind: 'ApiKey',
          name: done.status!.keyRef!,
        }))!.spec,
      ).toMatchObject({ revoked: true });
      expect((await get<Mini>('Mini', 'local'))!.status?.phase).toBe('available');
      await warmPool();
    },
  );
});
