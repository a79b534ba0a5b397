// Warm pools per Mac: the model/layout table, the slot table, stop-aside (behavior rule 6),
// legacy profiles (model rule 6) and layout edits (model rule 7), end to end on the sim driver.
import { afterEach, describe, expect, it } from 'vitest';
import {
  IMAGES,
  MAC_PROFILES,
  type Account,
  type MacModel,
  type Mini,
  type Reservation,
  type VM,
  type VmLayout,
} from '../crds/index.ts';
import { startReservedFleet, waitFor, type SimFleet } from './operator-fixtures.ts';
import { edit } from './support/edit.ts';

let f: SimFleet;
afterEach(async () => f?.cleanup());

const mini = (name: string) => f.store.get<Mini>({ kind: 'Mini', name });
const reservation = (name: string) =>
  f.store.get<Reservation>({ kind: 'Reservation', namespace: 'acme', name });

async function reserved(model: MacModel = 'm4', layout: VmLayout = 'split', minis = 1) {
  f = await startReservedFleet({ model, layout, minis, creditCents: 10_000_000 });
}

/** What runs on a sim Mac now, checked against the Mac (behavior rule 6). */
function runningOn(address: string) {
  const view = f.sim.inspect(address)!;
  const running = view.vms.filter(
    (v) => v.state === 'running' || v.state === 'starting' || v.state === 'stopping',
  );
  return {
    cpu: running.reduce((s, v) => s + v.cpu, 0),
    memoryGiB: running.reduce((s, v) => s + v.memoryGiB, 0),
    names: running.map((v) => v.name),
  };
}

async function create(spec: { cpu?: number; memoryGiB?: number } = {}) {
  const sb = await f.createSandbox('acme', { reservation: 'r1', ...spec });
  return f.sandboxSettled('acme', sb.metadata.name);
}

describe('warm pools', () => {
  const cells = (['m4', 'm4-pro', 'm5-pro'] as const).flatMap((model) =>
    (['split', 'whole'] as const).map((layout) => ({ model, layout })),
  );
  it.each(cells)(
    'model table: an $model Mac in $layout layout keeps exactly the warm VMs the table gives',
    async ({ model, layout }) => {
      await reserved(model, layout);
      const want = MAC_PROFILES[model].layouts[layout];
      const vms = (await f.vms('mini-1')).sort((a, b) => a.spec.slot - b.spec.slot);
      expect(vms.map((vm) => [vm.spec.cpu, vm.spec.memoryGiB, vm.spec.image, vm.status?.phase])).toEqual(
        want.map((s) => [s.cpu, s.memoryGiB, IMAGES[layout].name, 'warm']),
      );
      const onHost = f.sim.inspect(f.addressOf('mini-1'))!.vms;
      expect(onHost.map((v) => [v.name, v.state, v.image]).sort()).toEqual(
        vms.map((vm) => [vm.metadata.name, 'running', IMAGES[layout].name]).sort(),
      );
    },
  );

  it('limit: a reservation holds N × 2 VMs in split and N × 1 in whole', async () => {
    await reserved('m4', 'split', 2);
    expect((await f.vms()).length).toBe(4);
    await f.cleanup();
    await reserved('m4', 'whole', 2);
    expect((await f.vms()).length).toBe(2);
  });

  it('rule 4: a create without a size, or with the warm size, takes a warm VM as is, marks it occupied and boots warm', async () => {
    await reserved();
    const before = await f.vms('mini-1');
    const a = await create();
    const b = await create({ cpu: 5, memoryGiB: 8 });
    for (const sb of [a, b]) {
      expect(sb.status).toMatchObject({ phase: 'running', boot: 'warm', cpu: 5, memoryGiB: 8 });
      expect(before.map((vm) => vm.metadata.name)).toContain(sb.status!.vm);
      const vm = await waitFor(async () => {
        const v = await f.store.get<VM>({ kind: 'VM', name: sb.status!.vm! });
        return v?.status?.phase === 'occupied' ? v : undefined;
      }, 'the VM marked occupied');
      expect(vm.status?.sandbox).toBe(`acme/${sb.metadata.name}`);
      expect(sb.status?.vmIp).toBe(before.find((v) => v.metadata.name === sb.status!.vm)!.status!.vmIp);
    }
  });

  it('rule 4: any other size resizes a warm VM and boots it cold', async () => {
    await reserved();
    const sb = await create({ cpu: 4, memoryGiB: 6 });
    expect(sb.status).toMatchObject({ phase: 'running', boot: 'cold', cpu: 4, memoryGiB: 6 });
    const onHost = f.sim.inspect(f.addressOf('mini-1'))!.vms.find((v) => v.name === sb.status!.vm)!;
    expect([onHost.cpu, onHost.memoryGiB, onHost.state]).toEqual([4, 6, 'running']);
  });

  it('slot table: warm → occupied on create, occupied → cloning on delete (dirty VM thrown away), cloning → warm', async () => {
    await reserved();
    const phases: string[] = [];
    const sb = await create();
    const vmName = sb.status!.vm!;
    const watch = f.store.watch<VM>('VM', {}, (e) => {
      if (e.object.metadata.name === vmName && e.object.status?.phase) phases.push(e.object.status.phase);
    });
    await waitFor(
      async () => (await f.store.get<VM>({ kind: 'VM', name: vmName }))?.status?.phase === 'occupied',
      'occupied',
    );
    const guest = f.sim.host({ name: 'mini-1', address: f.addressOf('mini-1'), model: 'm4' }).guest(vmName);
    await guest.putFile('/Users/admin/secret.txt', Buffer.from('customer data'));
    expect(
      f.sim.inspect(f.addressOf('mini-1'))!.vms.find((v) => v.name === vmName)!.files.length,
    ).toBeGreaterThan(0);

    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
    await f.poolsReady();
    watch.stop();
    const vm = (await f.store.get<VM>({ kind: 'VM', name: vmName }))!;
    expect(vm.status?.phase).toBe('warm');
    expect(vm.spec.sandbox).toBeUndefined();
    expect(phases.slice(phases.indexOf('cloning'))).toEqual(['cloning', 'warm']);
    expect(f.sim.inspect(f.addressOf('mini-1'))!.vms.find((v) => v.name === vmName)!.files).toEqual([]);
  });

  it('rule 6: a warm VM that no longer fits beside the sandboxes is stopped aside; the next sandbox boots from it; it returns once there is room', async () => {
    await reserved();
    const address = f.addressOf('mini-1');
    let worst = 0;
    const watch = f.store.watch('VM', {}, () => {
      worst = Math.max(worst, runningOn(address).cpu);
    });
    const big = await create({ cpu: 7, memoryGiB: 8 });
    expect(big.status).toMatchObject({ boot: 'cold', cpu: 7 });
    const aside = await waitFor(
      async () => (await f.vms('mini-1')).find((vm) => vm.status?.phase === 'stopped'),
      'a VM stopped aside',
    );
    expect(aside.metadata.name).not.toBe(big.status!.vm);
    expect(runningOn(address).names).toEqual([big.status!.vm]);

    const next = await create({ cpu: 3, memoryGiB: 8 });
    expect(next.status).toMatchObject({ phase: 'running', boot: 'cold', vm: aside.metadata.name, cpu: 3 });
    expect(runningOn(address)).toMatchObject({ cpu: 10, memoryGiB: 16 });

    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: next.metadata.name });
    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: big.metadata.name });
    await f.poolsReady();
    watch.stop();
    expect((await f.vms('mini-1')).map((vm) => vm.status?.phase)).toEqual(['warm', 'warm']);
    expect(worst).toBeLessThanOrEqual(MAC_PROFILES.m4.cores);
  });

  it('rule 6: the VMs running on a Mac never add up to more than it has, through a storm of creates and deletes', async () => {
    await reserved('m4', 'split', 2);
    const caps = MAC_PROFILES.m4;
    let worst = { cpu: 0, memoryGiB: 0 };
    const sample = () => {
      for (const m of ['mini-1', 'mini-2']) {
        const r = runningOn(f.addressOf(m));
        worst = { cpu: Math.max(worst.cpu, r.cpu), memoryGiB: Math.max(worst.memoryGiB, r.memoryGiB) };
      }
    };
    const watch = f.store.watch('VM', {}, sample);
    const sizes = [
      {},
      { cpu: 7, memoryGiB: 8 },
      { cpu: 3, memoryGiB: 8 },
      { cpu: 2, memoryGiB: 4 },
      { cpu: 6, memoryGiB: 12 },
      {},
    ];
    for (let round = 0; round < 3; round++) {
      const made = await Promise.all(sizes.map((s) => create(s)));
      sample();
      for (const sb of made)
        await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
    }
    await f.poolsReady();
    watch.stop();
    expect(worst.cpu).toBeLessThanOrEqual(caps.cores);
    expect(worst.memoryGiB).toBeLessThanOrEqual(caps.memoryGiB);
  });

  it('model rule 6: a busy Mac keeps an earlier warm profile until it is idle; then it takes the current one', async () => {
    await reserved('m4-pro');
    const sb = await create();
    const legacy = MAC_PROFILES.m4.layouts.split; // M4-sized pool on an M4 Pro
    const m = (await mini('mini-1'))!;
    await f.store.patch(
      { kind: 'Mini', name: 'mini-1' },
      { status: { warmProfile: legacy } },
      { subresource: 'status', resourceVersion: m.metadata.resourceVersion! },
    );
    const free = await waitFor(async () => {
      const vm = (await f.vms('mini-1')).find((v) => !v.spec.sandbox);
      return vm?.status?.phase === 'warm' && vm.spec.cpu === 5 ? vm : undefined;
    }, 'the free slot re-cloned to the legacy 5 vCPU size');
    expect(free.spec.memoryGiB).toBe(8);
    expect((await mini('mini-1'))!.status?.warmProfile).toEqual(legacy);

    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
    await waitFor(
      async () =>
        JSON.stringify((await mini('mini-1'))!.status?.warmProfile) ===
        JSON.stringify(MAC_PROFILES['m4-pro'].layouts.split),
      'the current profile once idle',
    );
    await f.poolsReady();
    expect((await f.vms('mini-1')).map((vm) => [vm.spec.cpu, vm.spec.memoryGiB])).toEqual([
      [6, 12],
      [6, 12],
    ]);
  });

  it('model rule 7: a layout change waits until every sandbox is stopped, keeps the price, and rebuilds the pool', async () => {
    await reserved();
    const sb = await create();
    const balance = async () =>
      (await f.store.get<Account>({ kind: 'Account', name: 'acme' }))!.status!.balanceCents;
    const paid = await balance();
    const r = (await reservation('r1'))!;
    await edit<Reservation>(f.store, { kind: 'Reservation', namespace: 'acme', name: 'r1' }, (x) => ({
      ...x,
      spec: { ...x.spec, vmLayout: 'whole' },
    }));
    const waiting = await waitFor(async () => {
      const x = await reservation('r1');
      return x?.status?.conditions?.find((c) => c.type === 'LayoutApplied' && c.reason === 'SandboxesRunning')
        ? x
        : undefined;
    }, 'the layout change to wait for the sandbox');
    expect(waiting.status?.layout).toBe('split');
    expect((await mini('mini-1'))!.status?.layout).toBe('split');

    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: sb.metadata.name });
    await waitFor(async () => (await reservation('r1'))?.status?.layout === 'whole', 'the layout applied');
    await f.poolsReady();
    const vms = await f.vms('mini-1');
    expect(vms.map((vm) => [vm.spec.cpu, vm.spec.memoryGiB, vm.spec.image])).toEqual([
      [10, 16, IMAGES.whole.name],
    ]);
    expect(await balance()).toBe(paid);
    expect((await reservation('r1'))!.status?.totalCents).toBe(r.status?.totalCents);
    const whole = await create();
    expect(whole.status).toMatchObject({ boot: 'warm', cpu: 10, memoryGiB: 16 });
  });
});
