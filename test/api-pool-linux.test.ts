// A pool sandbox on a real desktop: the local Mac (linux driver, real operator) marked a pool Mac
// serves a pool create, the sandbox answers commands, its viewer link ends at its end, the Mac is
// never for sale meanwhile, and a delete returns its VM to the pool. Then the operator gives the Mac
// N VM slots (Mini.spec.vmSlots, beyond the spec; docs/capacity.md): the pool keeps N warm desktops
// of the smallest size, N sandboxes run at once, each its own VM user and screen, and the one after
// them is refused as the Mac's limit says.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account, Mini, VM } from '../crds/index.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { seedAccount, startLinuxApiStack, waitFor, type LinuxApiStack } from './api-harness.ts';
import { apiCall, type ApiResponse } from './support/api-call.ts';

const SLOTS = 3;
let stack: LinuxApiStack;
let store: SqliteStore;
let base: string;
let key: string;

const api = (method: string, url: string, body?: unknown) => apiCall(base, key, method, url, body);
const json = (r: ApiResponse) => JSON.parse(r.bytes.toString('utf8'));

beforeAll(async () => {
  stack = await startLinuxApiStack('sandbay-pool-linux-');
  ({ store, base } = stack);
  await waitFor(async () => (await store.get<Mini>({ kind: 'Mini', name: 'local' })) !== undefined, 'local');
  await store.patch({ kind: 'Mini', name: 'local' }, { spec: { pool: true } });
  key = await seedAccount(store, 'desk', 100_000);
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

describe('a pool sandbox on the linux driver', () => {
  it('runs on the pool Mac, answers commands, ends its viewer link at its end, and returns its VM on delete', async () => {
    const created = await waitFor(
      async () => {
        const c = await api('POST', '/v1/sandboxes', { pool: true, ephemeral: false });
        return c.status === 201 ? json(c) : undefined;
      },
      'a warm VM of the pool Mac to take',
      90_000,
    );
    expect(created).toMatchObject({ boot: 'warm', pool: true, reservation_id: null });
    const id = created.sandbox_id as string;

    const shot = await api('GET', `/v1/sandboxes/${id}/screenshot`);
    expect([shot.status, shot.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(await sharp(shot.bytes).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    const exec = json(await api('POST', `/v1/sandboxes/${id}/exec`, { command: 'echo pooled' }));
    expect(exec).toMatchObject({ stdout: 'pooled\n', return_code: 0 });

    const token = json(await api('POST', `/v1/sandboxes/${id}/viewer-token`));
    expect(Date.parse(token.expires_at)).toBeLessThanOrEqual(Date.parse(created.end_at));
    const account = await store.get<Account>({ kind: 'Account', name: 'desk' });
    expect(account?.status?.ledger?.filter((e) => e.reason === 'pool')).toHaveLength(1);

    // The pool Mac is not for sale while it serves the pool.
    const m4 = json(await api('GET', '/v1/platforms')).models.find(
      (m: { mac_model: string }) => m.mac_model === 'm4',
    );
    expect(m4.available_minis).toBe(0);

    expect(created.vm_ip).not.toBe('');
    expect((await api('DELETE', `/v1/sandboxes/${id}`)).status).toBe(204);
    await waitFor(
      async () => {
        const { items } = await store.list<VM>('VM');
        return !items.some((v) => v.spec.sandbox === `desk/${id}`);
      },
      'the VM to be released',
      60_000,
    );
  }, 180_000);
});

describe('a linux Mac of N VM slots', () => {
  it('keeps N warm desktops of the smallest size, runs N sandboxes at once, and refuses the next', async () => {
    await store.patch({ kind: 'Mini', name: 'local' }, { spec: { vmSlots: SLOTS } });
    // The old profile's two VMs go once the Mac is idle (it is): N of the smallest size replace them.
    await waitFor(
      async () => {
        const vms = (await store.list<VM>('VM')).items.filter((v) => v.spec.mini === 'local');
        return (
          vms.length === SLOTS &&
          vms.every((v) => v.status?.phase === 'warm' && v.spec.cpu === 2 && v.spec.memoryGiB === 4)
        );
      },
      `${SLOTS} warm VMs of 2 vCPU / 4 GiB on the local Mac`,
      150_000,
    );

    const ids: string[] = [];
    for (let i = 0; i < SLOTS; i++) {
      const c = await api('POST', '/v1/sandboxes', { pool: true, ephemeral: false });
      expect(c.status).toBe(201);
      expect(json(c)).toMatchObject({ boot: 'warm', cpu: 2, memory_gib: 4 });
      ids.push(json(c).sandbox_id as string);
    }
    // All N answer at once, each as its own VM user on its own display.
    const who = await Promise.all(
      ids.map(async (id) => {
        const r = json(
          await api('POST', `/v1/sandboxes/${id}/exec`, { command: 'echo "$(id -un) $DISPLAY"' }),
        );
        expect(r).toMatchObject({ return_code: 0 });
        return r.stdout as string;
      }),
    );
    expect(new Set(who).size).toBe(SLOTS);

    const over = await api('POST', '/v1/sandboxes', { pool: true, ephemeral: false });
    expect([over.status, json(over).error]).toEqual([409, 'sandbox_limit_reached']);

    for (const id of ids) expect((await api('DELETE', `/v1/sandboxes/${id}`)).status).toBe(204);
  }, 240_000);
});
