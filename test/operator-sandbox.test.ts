// Sandboxes: placement by the scheduler with conditional claims, the Mac model rules, the
// lifecycle table (delete, idle timeout) and the refusals, end to end on the sim driver.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MacModel, Sandbox, VM, VmLayout } from '../crds/index.ts';
import {
  createInformers,
  sandboxKeyOf,
  DEFAULT_SETTINGS,
  type OperatorContext,
} from '../operator/context.ts';
import { createBlobStore } from '../operator/blob-store.ts';
import { HostRegistry } from '../operator/mini/hosts.ts';
import { sandboxReconciler } from '../operator/sandbox/reconciler.ts';
import { Client, Controller, silentLogger, systemClock, type Informer } from '../operator/runtime/index.ts';
import { isStoreError } from '../store/store.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';
import { FakeClock } from '../operator/runtime/clock.ts';
import {
  startReservedFleet,
  waitFor,
  type ReservedFleetOptions,
  type SimFleet,
} from './operator-fixtures.ts';

let f: SimFleet;
afterEach(async () => f?.cleanup());

async function reserved(
  model: MacModel = 'm4',
  layout: VmLayout = 'split',
  minis = 1,
  fleet: ReservedFleetOptions['fleet'] = {},
) {
  f = await startReservedFleet({ model, layout, minis, fleet });
}

async function create(spec: Partial<Sandbox['spec']> = {}) {
  const sb = await f.createSandbox('acme', { reservation: 'r1', ...spec });
  return f.sandboxSettled('acme', sb.metadata.name);
}

const gone = (name: string) =>
  waitFor(
    async () => !(await f.store.get({ kind: 'Sandbox', namespace: 'acme', name })),
    `sandbox ${name} gone`,
  );

describe('sandboxes', () => {
  it('model rule 1: on a split M5 Pro a default create takes whichever slot is free and reports its vCPU (8 or 7) and 12 GiB', async () => {
    await reserved('m5-pro');
    const a = await create();
    const b = await create();
    expect([a.status?.cpu, b.status?.cpu].sort()).toEqual([7, 8]);
    expect([a.status?.memoryGiB, b.status?.memoryGiB]).toEqual([12, 12]);
    expect([a.status?.boot, b.status?.boot]).toEqual(['warm', 'warm']);
  });

  it('model rule 1: explicit 7 vCPU / 12 GiB and 8 vCPU / 12 GiB creates coexist on one split M5 Pro', async () => {
    await reserved('m5-pro');
    const seven = await create({ cpu: 7, memoryGiB: 12 });
    const eight = await create({ cpu: 8, memoryGiB: 12 });
    expect(seven.status).toMatchObject({ phase: 'running', cpu: 7, memoryGiB: 12, mini: 'mini-1' });
    expect(eight.status).toMatchObject({ phase: 'running', cpu: 8, memoryGiB: 12, mini: 'mini-1' });
  });

  it('model rule 2 and limit: a whole Mac runs one sandbox at a time', async () => {
    await reserved('m4', 'whole');
    const one = await create();
    expect(one.status).toMatchObject({ phase: 'running', cpu: 10, memoryGiB: 16, boot: 'warm' });
    const two = await create({ cpu: 2, memoryGiB: 4 });
    expect(two.status).toMatchObject({ phase: 'failed', reason: 'sandbox_limit_reached' });
  });

  it('model rule 3: at most two sandboxes per Mac, together using all of it (7 + 3 vCPU; 4 + 12 GiB)', async () => {
    await reserved('m4');
    const a = await create({ cpu: 7, memoryGiB: 8 });
    const b = await create({ cpu: 3, memoryGiB: 8 });
    expect([a.status?.phase, b.status?.phase]).toEqual(['running', 'running']);
    const third = await create({ cpu: 2, memoryGiB: 4 });
    expect(third.status).toMatchObject({ phase: 'failed', reason: 'sandbox_limit_reached' });
    for (const sb of [a, b, third])
      await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
    await f.poolsReady();
    const c = await create({ cpu: 5, memoryGiB: 4 });
    const d = await create({ cpu: 5, memoryGiB: 12 });
    expect([c.status?.memoryGiB, d.status?.memoryGiB, c.status?.phase, d.status?.phase]).toEqual([
      4,
      12,
      'running',
      'running',
    ]);
  });

  it('model rule 4: the smallest sandbox is 2 vCPU / 4 GiB, and disk_gib must equal the image disk size', async () => {
    await reserved('m4');
    const tooSmall = await f.createSandbox('acme', { reservation: 'r1', cpu: 1 }).catch((e: unknown) => e);
    expect(isStoreError(tooSmall, 'Invalid')).toBe(true);
    const smallest = await create({ cpu: 2, memoryGiB: 4 });
    expect(smallest.status).toMatchObject({ phase: 'running', cpu: 2, memoryGiB: 4 });
    const wrongDisk = await create({ diskGiB: 80 });
    expect(wrongDisk.status).toMatchObject({ phase: 'failed', reason: 'invalid_disk_size' });
    const rightDisk = await create({ diskGiB: 50 });
    expect(rightDisk.status?.phase).toBe('running');
  });

  it('model rule 5: refusals carry resources_exceed_mac, insufficient_capacity and sandbox_limit_reached', async () => {
    await reserved('m4');
    expect((await create({ cpu: 11, memoryGiB: 8 })).status?.reason).toBe('resources_exceed_mac');
    const big = await create({ cpu: 8, memoryGiB: 8 });
    expect(big.status?.phase).toBe('running');
    const over = await create({ cpu: 3, memoryGiB: 4 });
    expect(over.status).toMatchObject({ phase: 'failed', reason: 'insufficient_capacity' });
    expect(over.status?.message).toMatch(/free/);
    await create({ cpu: 2, memoryGiB: 4 });
    expect((await create({ cpu: 2, memoryGiB: 4 })).status?.reason).toBe('sandbox_limit_reached');
  });

  it('a refused sandbox changes nothing: no VM is claimed for it', async () => {
    await reserved('m4');
    const before = (await f.vms()).map((vm) => [vm.metadata.name, vm.spec.sandbox ?? null]);
    const refused = await create({ cpu: 12, memoryGiB: 8 });
    expect(refused.status?.phase).toBe('failed');
    expect((await f.vms()).map((vm) => [vm.metadata.name, vm.spec.sandbox ?? null])).toEqual(before);
  });

  it('limit: answers no_warm_vm when every VM of the reservation is taken or not yet warm', async () => {
    await reserved('m4', 'split', 1);
    await create();
    await create({ cpu: 2, memoryGiB: 4 });
    // Free one, but keep its re-clone from finishing: the slot is cloning when the next create comes.
    f.sim.failHost(f.addressOf('mini-1'));
    const sandboxes = (await f.store.list<Sandbox>('Sandbox', { namespace: 'acme' })).items;
    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sandboxes[0]!.metadata.name });
    await gone(sandboxes[0]!.metadata.name);
    const next = await create({ cpu: 2, memoryGiB: 4 });
    expect(next.status).toMatchObject({ phase: 'failed', reason: 'no_warm_vm' });
    f.sim.recoverHost(f.addressOf('mini-1'));
  });

  it('fails a sandbox whose reservation is not active (reservation_not_active)', async () => {
    await reserved('m4');
    const sb = await f.createSandbox('acme', { reservation: 'nope' });
    expect((await f.sandboxSettled('acme', sb.metadata.name)).status).toMatchObject({
      phase: 'failed',
      reason: 'reservation_not_active',
    });
  });

  it('lifecycle: DELETE of a running sandbox releases its VM (finalizer) and the sandbox is gone', async () => {
    await reserved('m4');
    const sb = await create();
    expect(sb.metadata.finalizers).toContain('sandbay.io/release-vm');
    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
    await gone(sb.metadata.name);
    const vm = (await f.store.get<VM>({ kind: 'VM', name: sb.status!.vm! }))!;
    expect(vm.spec.sandbox).toBeUndefined();
    await f.poolsReady();
  });

  it('lifecycle: an ephemeral sandbox idle about 2 minutes is destroyed and its slot re-cloned', async () => {
    await reserved('m4');
    const sb = await create({ ephemeral: true });
    const keep = await create({ ephemeral: false });
    await waitFor(() => f.clock.pendingTimers() > 0, 'reaper armed');
    f.clock.advance(119_000);
    await f.op.controllers.sandbox.queue.whenIdle();
    expect(await f.store.get({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name })).toBeDefined();
    f.clock.advance(1_000);
    await gone(sb.metadata.name);
    await f.poolsReady();
    f.clock.advance(10 * 60_000);
    await f.op.controllers.sandbox.queue.whenIdle();
    expect(
      (await f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: keep.metadata.name }))?.status
        ?.phase,
    ).toBe('running');
  });

  it('limit: activity recorded by the API (status.lastActive) keeps an ephemeral sandbox alive', async () => {
    await reserved('m4');
    const sb = await create({ ephemeral: true });
    const ref = { kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name };
    for (let i = 0; i < 4; i++) {
      f.clock.advance(60_000);
      await f.store.patch(
        ref,
        { status: { lastActive: new Date(f.clock.now()).toISOString() } },
        { subresource: 'status' },
      );
    }
    await f.op.controllers.sandbox.queue.whenIdle();
    f.clock.advance(100_000);
    await f.op.controllers.sandbox.queue.whenIdle();
    expect(await f.store.get(ref)).toBeDefined();
    f.clock.advance(20_000);
    await gone(sb.metadata.name);
  });

  it('limit: activity the guest saw (e.g. an SSH session) keeps an ephemeral sandbox alive', async () => {
    // The sim guest stamps activity with the wall clock: business time starts at the wall clock too,
    // so lining the two up never jumps business time past the reservation's end_at (expiry would
    // then race the reaper for the sandbox).
    await reserved('m4', 'split', 1, { clock: new FakeClock(Date.now()) });
    const sb = await create({ ephemeral: true });
    const ref = { kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name };
    f.clock.advance(100_000);
    const guest = f.sim
      .host({ name: 'mini-1', address: f.addressOf('mini-1'), model: 'm4' })
      .guest(sb.status!.vm!);
    await guest.exec('true');
    const at = (await guest.lastActivity())!.getTime();
    f.clock.advance(Math.max(0, at - f.clock.now()) + 20_000);
    await waitFor(
      async () => (await f.store.get<Sandbox>(ref))?.status?.lastActive === new Date(at).toISOString(),
      'lastActive from the guest',
    );
    expect(await f.store.get(ref)).toBeDefined();
  });

  it('a VM is never claimed twice, even by sandbox reconcilers of two processes on one store file', async () => {
    await reserved('m4', 'split', 4);
    // A second process: its own store connection, informers, client and sandbox controller.
    const store2 = await openSqliteStore({
      file: path.join(f.dir, 'store.db'),
      synchronous: 'NORMAL',
      pollIntervalMs: 5,
    });
    const informers = createInformers(store2, silentLogger);
    const ctx: OperatorContext = {
      store: store2,
      client: new Client(store2, Object.values(informers) as Informer[]),
      informers,
      clock: f.clock,
      logger: silentLogger,
      hosts: new HostRegistry({ sim: f.sim }),
      blobs: createBlobStore(path.join(f.dir, 'blobs')),
      settings: DEFAULT_SETTINGS,
      enqueue: {
        pool: () => {},
        sandbox: () => {},
        reservation: () => {},
        mini: () => {},
        evaluationRun: () => {},
        evaluationAttempt: () => {},
      },
    };
    const other = new Controller({
      name: 'sandbox-2',
      for: informers.sandboxes as unknown as Informer,
      watches: [
        { informer: informers.vms as unknown as Informer, map: (o) => [(o as VM).spec.sandbox ?? ''] },
      ],
      reconcile: sandboxReconciler(ctx),
      concurrency: 8,
      backoffClock: systemClock,
    });
    // Like startOperator: every cache of the second process synced before it reconciles anything
    // (a sandbox reconciled against an empty reservation cache is refused reservation_not_active).
    await Promise.all((Object.values(informers) as Informer[]).map((inf) => inf.start()));
    await other.start();
    try {
      const made = await Promise.all(Array.from({ length: 8 }, () => create()));
      expect(made.every((sb) => sb.status?.phase === 'running')).toBe(true);
      const vms = await f.vms();
      const claims = vms.flatMap((vm) => (vm.spec.sandbox ? [vm.spec.sandbox] : []));
      expect(new Set(claims).size).toBe(claims.length);
      expect(claims.sort()).toEqual(made.map(sandboxKeyOf).sort());
      expect(new Set(made.map((sb) => sb.status!.vm)).size).toBe(8);
    } finally {
      await other.stop();
      for (const inf of Object.values(informers) as Informer[]) inf.stop();
      await store2.close();
    }
  });

  it('a claim whose sandbox status was lost to a crash is adopted on restart with the boot that was chosen', async () => {
    await reserved('m4');
    await f.stopOperator();
    const sb = await f.createSandbox('acme', { reservation: 'r1' });
    const vm = (await f.vms('mini-1')).find((v) => v.status?.phase === 'warm')!;
    // What place() writes before its status write: the conditional claim with the chosen boot.
    await f.store.update<VM>({
      ...vm,
      metadata: { ...vm.metadata, annotations: { 'sandbay.io/boot': 'warm' } },
      spec: { ...vm.spec, sandbox: `acme/${sb.metadata.name}` },
    });
    const { startOperator } = await import('../operator/index.ts');
    f.op = await startOperator({
      store: f.store,
      drivers: { sim: f.sim },
      blobDir: `${f.dir}/blobs`,
      clock: f.clock,
    });
    const running = await f.sandboxSettled('acme', sb.metadata.name);
    expect(running.status).toMatchObject({
      phase: 'running',
      boot: 'warm',
      vm: vm.metadata.name,
      cpu: 5,
      memoryGiB: 8,
    });
    const claims = (await f.vms()).filter((v) => v.spec.sandbox === `acme/${sb.metadata.name}`);
    expect(claims).toHaveLength(1);
  });
});
