import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMAGES } from '../../crds/index.ts';
import { FakeClock } from '../../operator/runtime/clock.ts';
import { DriverError, type HostRef } from '../driver.ts';
import { createSimDriver, type SimDriver } from './index.ts';

const M4: HostRef = { name: 'mini-1', address: '10.0.0.1', model: 'm4' };
const SPLIT = { image: IMAGES.split.name, cpu: 5, memoryGiB: 8 };
const instant = { cloneMs: 0, bootMs: 0, resizeMs: 0, stopMs: 0, deleteMs: 0, exportMs: 0, importMs: 0 };

async function rejection(p: Promise<unknown>): Promise<DriverError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof DriverError)) throw new Error(`expected a DriverError, got ${String(e)}`);
  return e;
}

/** Lets promise callbacks run (no time passes on any clock). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

let sim: SimDriver;
beforeEach(() => {
  sim = createSimDriver({ timings: instant });
});
afterEach(() => sim.close());

describe('sim host lifecycle', () => {
  it('reports the model capacity and both images', async () => {
    const info = await sim.host({ ...M4, model: 'm5-pro', address: '10.0.0.9' }).info();
    expect(info).toMatchObject({ model: 'm5-pro', cores: 15, memoryGiB: 24, maxVms: 2 });
    expect(info.images.map((i) => i.name).sort()).toEqual([IMAGES.split.name, IMAGES.whole.name]);
  });

  it('per-address overrides set the model and images', async () => {
    const custom = createSimDriver({
      hosts: { '10.0.0.7': { model: 'm4-pro', images: [{ name: 'legacy', diskGiB: 80 }] } },
    });
    const info = await custom.host({ ...M4, address: '10.0.0.7' }).info();
    expect(info).toMatchObject({ model: 'm4-pro', cores: 12, images: [{ name: 'legacy', diskGiB: 80 }] });
    await custom.close();
  });

  it('clones a VM stopped, boots it with an address, stops and deletes it', async () => {
    const host = sim.host(M4);
    expect(await host.createVm({ name: 'vm-a', ...SPLIT })).toMatchObject({ state: 'stopped', cpu: 5 });
    const running = await host.startVm('vm-a');
    expect(running.state).toBe('running');
    expect(running.ip).toMatch(/^192\.168\.64\.\d+$/);
    await host.stopVm('vm-a');
    expect((await host.listVms())[0]).toMatchObject({ name: 'vm-a', state: 'stopped' });
    await host.deleteVm('vm-a');
    expect(await host.listVms()).toEqual([]);
    await host.deleteVm('vm-a'); // idempotent, like the linux driver
  });

  it('refuses operations on a VM that does not exist', async () => {
    const host = sim.host(M4);
    expect((await rejection(host.startVm('nope'))).code).toBe('not_found');
    expect((await rejection(host.stopVm('nope'))).code).toBe('not_found');
    expect((await rejection(host.resizeVm('nope', { cpu: 2, memoryGiB: 4 }))).code).toBe('not_found');
    expect(() => host.guest('nope')).toThrow(DriverError);
  });

  it('checks names, images and sizes at create', async () => {
    const host = sim.host(M4);
    expect((await rejection(host.createVm({ name: 'Bad Name', ...SPLIT }))).code).toBe('invalid_argument');
    expect((await rejection(host.createVm({ name: 'vm-a', ...SPLIT, image: 'nope' }))).code).toBe(
      'not_found',
    );
    expect((await rejection(host.createVm({ name: 'vm-a', ...SPLIT, cpu: 11 }))).code).toBe(
      'invalid_argument',
    );
  });

  it('resizes only a stopped VM', async () => {
    const host = sim.host(M4);
    await host.createVm({ name: 'vm-a', ...SPLIT });
    await host.startVm('vm-a');
    expect((await rejection(host.resizeVm('vm-a', { cpu: 7, memoryGiB: 8 }))).code).toBe('invalid_argument');
    await host.stopVm('vm-a');
    await host.resizeVm('vm-a', { cpu: 7, memoryGiB: 8 });
    expect((await host.listVms())[0]).toMatchObject({ cpu: 7, memoryGiB: 8 });
  });

  it('create discards a VM of the same name first', async () => {
    const host = sim.host(M4);
    await host.createVm({ name: 'vm-a', ...SPLIT });
    await host.startVm('vm-a');
    await host.guest('vm-a').putFile('dirty.txt', Buffer.from('x'));
    await host.createVm({ name: 'vm-a', ...SPLIT });
    expect(sim.inspect(M4.address)?.vms).toEqual([
      expect.objectContaining({ name: 'vm-a', state: 'stopped', files: [] }),
    ]);
  });
});

describe('sim capacity', () => {
  it('running VMs never exceed the Mac: the capacity error', async () => {
    const host = sim.host(M4);
    for (const name of ['a', 'b']) await host.createVm({ name, ...SPLIT });
    await host.resizeVm('b', { cpu: 6, memoryGiB: 8 });
    await host.startVm('a');
    const err = await rejection(host.startVm('b'));
    expect(err.code).toBe('capacity');
    expect(err.message).toContain('11 of 10 cores');
    expect((await host.listVms()).find((v) => v.name === 'b')?.state).toBe('stopped');
    await host.resizeVm('b', { cpu: 5, memoryGiB: 8 });
    await host.startVm('b');
  });

  it('runs at most maxVms VMs at once', async () => {
    const host = sim.host(M4);
    for (const name of ['a', 'b', 'c'])
      await host.createVm({ name, image: IMAGES.split.name, cpu: 2, memoryGiB: 4 });
    await host.startVm('a');
    await host.startVm('b');
    expect((await rejection(host.startVm('c'))).code).toBe('capacity');
  });

  it('concurrent starts cannot oversubscribe the Mac', async () => {
    const slow = createSimDriver({ timings: { ...instant, bootMs: 5 } });
    const host = slow.host(M4);
    for (const name of ['a', 'b'])
      await host.createVm({ name, image: IMAGES.split.name, cpu: 6, memoryGiB: 8 });
    const results = await Promise.allSettled([host.startVm('a'), host.startVm('b')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await slow.close();
  });
});

describe('sim timings', () => {
  it('each operation takes its time on the injected clock', async () => {
    const clock = new FakeClock();
    const timed = createSimDriver({ clock, timings: { cloneMs: 300, bootMs: 800 } });
    const host = timed.host(M4);
    let cloned = false;
    const create = host.createVm({ name: 'vm-a', ...SPLIT }).then(() => (cloned = true));
    await settle();
    clock.advance(299);
    await settle();
    expect(cloned).toBe(false);
    clock.advance(1);
    await create;
    let booted = false;
    const start = host.startVm('vm-a').then(() => (booted = true));
    await settle();
    clock.advance(799);
    await settle();
    expect(booted).toBe(false);
    expect((await host.listVms())[0]?.state).toBe('stopped');
    clock.advance(1);
    await start;
    expect((await host.listVms())[0]?.state).toBe('running');
    await timed.close();
  });

  it('operations on one VM run one after another', async () => {
    const clock = new FakeClock();
    const timed = createSimDriver({ clock, timings: { ...instant, cloneMs: 100, bootMs: 100 } });
    const host = timed.host(M4);
    const create = host.createVm({ name: 'vm-a', ...SPLIT });
    const start = host.startVm('vm-a'); // queued behind the clone: the VM exists by its turn
    await settle();
    clock.advance(100);
    await create;
    await settle();
    clock.advance(100);
    expect((await start).state).toBe('running');
    await timed.close();
  });

  it('close rejects waiting operations and every later call', async () => {
    const clock = new FakeClock();
    const timed = createSimDriver({ clock });
    const host = timed.host(M4);
    const create = rejection(host.createVm({ name: 'vm-a', ...SPLIT }));
    await settle();
    await timed.close();
    expect((await create).code).toBe('unreachable');
    expect((await rejection(host.listVms())).code).toBe('unreachable');
  });
});

describe('sim failure injection', () => {
  it('a failed host throws unreachable until recovered', async () => {
    const host = sim.host(M4);
    await host.createVm({ name: 'vm-a', ...SPLIT });
    sim.failHost(M4.address);
    expect((await rejection(host.listVms())).code).toBe('unreachable');
    expect((await rejection(host.startVm('vm-a'))).code).toBe('unreachable');
    expect(() => host.guest('vm-a')).toThrow(/does not answer/);
    sim.recoverHost(M4.address);
    expect(await host.listVms()).toHaveLength(1);
  });

  it('a host failing mid-operation fails it, with no effect', async () => {
    const clock = new FakeClock();
    const timed = createSimDriver({ clock, timings: { ...instant, bootMs: 100 } });
    const host = timed.host(M4);
    await host.createVm({ name: 'vm-a', ...SPLIT });
    const start = rejection(host.startVm('vm-a'));
    await settle();
    timed.failHost(M4.address);
    clock.advance(100);
    expect((await start).code).toBe('unreachable');
    timed.recoverHost(M4.address);
    expect((await host.listVms())[0]?.state).toBe('stopped');
    await timed.close();
  });

  it('power loss stops every VM of the host', async () => {
    const host = sim.host(M4);
    await host.createVm({ name: 'vm-a', ...SPLIT });
    await host.startVm('vm-a');
    sim.failHost(M4.address, { powerLoss: true });
    sim.recoverHost(M4.address);
    expect((await host.listVms())[0]?.state).toBe('stopped');
  });

  it('failNext fails exactly the next call of that operation', async () => {
    const host = sim.host(M4);
    const other = sim.host({ ...M4, name: 'mini-2', address: '10.0.0.2' });
    sim.failNext('createVm', { address: M4.address, code: 'timeout' });
    await other.createVm({ name: 'vm-b', ...SPLIT });
    const err = await rejection(host.createVm({ name: 'vm-a', ...SPLIT }));
    expect(err).toMatchObject({ code: 'timeout', command: 'createVm' });
    await host.createVm({ name: 'vm-a', ...SPLIT });
  });
});

describe('sim disk deltas', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sim-delta-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('exports a real file with its bytes and sha256, and imports it on another Mac', async () => {
    const a = sim.host(M4);
    const b = sim.host({ ...M4, name: 'mini-2', address: '10.0.0.2' });
    await a.createVm({ name: 'src', ...SPLIT });
    await a.startVm('src');
    await a.guest('src').putFile('~/notes/todo.txt', Buffer.from('ship it'));
    const file = join(dir, 'delta');
    const info = await a.exportDelta('src', file);
    const bytes = readFileSync(file);
    expect(info).toEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });

    await b.createVm({ name: 'dst', ...SPLIT });
    await b.importDelta('dst', file);
    await b.startVm('dst');
    const out = await b.guest('dst').exec('cat notes/todo.txt');
    expect(out).toMatchObject({ stdout: 'ship it', return_code: 0 });
  });

  it('imports only onto a stopped VM of the same base image', async () => {
    const host = sim.host(M4);
    await host.createVm({ name: 'src', ...SPLIT });
    const file = join(dir, 'delta');
    await host.exportDelta('src', file);
    await host.createVm({ name: 'whole', image: IMAGES.whole.name, cpu: 2, memoryGiB: 4 });
    expect((await rejection(host.importDelta('whole', file))).message).toContain(
      'taken on image base-macos-26',
    );
    await host.startVm('src');
    expect((await rejection(host.importDelta('src', file))).code).toBe('invalid_argument');
    expect((await rejection(host.importDelta('whole', join(dir, 'missing')))).code).toBe('not_found');
  });
});
