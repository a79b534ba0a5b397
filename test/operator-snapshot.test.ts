// Snapshots (spec "Snapshots" rules 1–4, model rule 1 for restores), end to end on the sim driver.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  API_VERSION,
  IMAGES,
  type MacModel,
  type Reservation,
  type Sandbox,
  type Snapshot,
  type VM,
  type VmLayout,
} from '../crds/index.ts';
import type { SimDriverOptions } from '../hosts/sim/index.ts';
import { startReservedFleet, startSimFleet, waitFor, type SimFleet } from './operator-fixtures.ts';
import { edit } from './support/edit.ts';

let f: SimFleet;
afterEach(async () => f?.cleanup());

async function reserved(
  model: MacModel = 'm4',
  layout: VmLayout = 'split',
  minis = 1,
  sim?: SimDriverOptions,
) {
  f = await startReservedFleet({ model, layout, minis, fleet: sim ? { sim } : {} });
}

async function create(spec: Partial<Sandbox['spec']> = {}, reservation = 'r1') {
  const sb = await f.createSandbox('acme', { reservation, ...spec });
  return f.sandboxSettled('acme', sb.metadata.name);
}

function guestOf(sb: Sandbox) {
  const mini = sb.status!.mini!;
  return f.sim.host({ name: mini, address: f.addressOf(mini), model: 'm4' }).guest(sb.status!.vm!);
}

function filesOf(sb: Sandbox): string[] {
  return f.sim.inspect(f.addressOf(sb.status!.mini!))!.vms.find((v) => v.name === sb.status!.vm)!.files;
}

async function snapshot(source: Sandbox, version: string): Promise<Snapshot> {
  await f.store.create<Snapshot>({
    apiVersion: API_VERSION,
    kind: 'Snapshot',
    metadata: { name: version, namespace: 'acme' },
    spec: { sourceSandbox: source.metadata.name, name: `snap of ${source.metadata.name}` },
  });
  return waitFor(async () => {
    const s = await f.store.get<Snapshot>({ kind: 'Snapshot', namespace: 'acme', name: version });
    return s?.status?.phase === 'ready' || s?.status?.phase === 'failed' ? s : undefined;
  }, `snapshot ${version}`);
}

describe('snapshots', () => {
  it('rule 1: capturing pulls the disk delta from the source Mac into the blob store under its version', async () => {
    await reserved();
    const src = await create();
    await guestOf(src).putFile('/Users/admin/notes.txt', Buffer.from('hello'));
    const snap = await snapshot(src, 'v1');
    expect(snap.status).toMatchObject({
      phase: 'ready',
      version: 'v1',
      baseImage: IMAGES.split.name,
      diskGiB: IMAGES.split.diskGiB,
      macModel: 'm4',
    });
    const file = path.join(f.dir, 'blobs', snap.status!.artifact!.location);
    const bytes = await readFile(file);
    expect(snap.status!.artifact!.location).toBe('snapshots/acme/v1.delta');
    expect(bytes.length).toBe(snap.status!.artifact!.bytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(snap.status!.artifact!.sha256);
  });

  it('rule 1–2: a restore pushes the delta to the Mac that claims the VM and uses the recorded base, not the warm pool image; snapshots of a restored sandbox keep that base', async () => {
    await reserved('m4', 'split', 2);
    const src = await create();
    await guestOf(src).putFile('/Users/admin/notes.txt', Buffer.from('hello'));
    const v1 = await snapshot(src, 'v1');
    const restored = await create({ snapshot: 'v1' });
    expect(restored.status).toMatchObject({ phase: 'running', boot: 'cold', cpu: 5, memoryGiB: 8 });
    expect(filesOf(restored)).toContain('/Users/admin/notes.txt');
    expect((await f.store.get<VM>({ kind: 'VM', name: restored.status!.vm! }))!.spec).toMatchObject({
      image: v1.status!.baseImage,
      snapshot: 'v1',
    });
    const v2 = await snapshot(restored, 'v2');
    expect(v2.status?.baseImage).toBe(v1.status?.baseImage);
    expect(v2.status?.diskGiB).toBe(v1.status?.diskGiB);

    // A whole-layout reservation's pool runs base-macos-26-whole; a restore there still runs the split base.
    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: src.metadata.name });
    await f.store.delete({ kind: 'Sandbox', namespace: 'acme', name: restored.metadata.name });
    await edit<Reservation>(f.store, { kind: 'Reservation', namespace: 'acme', name: 'r1' }, (r1) => ({
      ...r1,
      spec: { ...r1.spec, vmLayout: 'whole' },
    }));
    await waitFor(
      async () =>
        (await f.vms()).every((vm) => vm.spec.image === IMAGES.whole.name && vm.status?.phase === 'warm'),
      'whole pools',
    );
    const onWhole = await create({ snapshot: 'v2' });
    expect(onWhole.status?.phase).toBe('running');
    expect((await f.store.get<VM>({ kind: 'VM', name: onWhole.status!.vm! }))!.spec.image).toBe(
      IMAGES.split.name,
    );
    expect(filesOf(onWhole)).toContain('/Users/admin/notes.txt');
  });

  it('rule 3: snapshot_base_unavailable before claiming a VM when the reservation’s Macs lack the base', async () => {
    f = await startSimFleet([{ name: 'mini-1' }, { name: 'mini-2' }], {
      sim: {
        hosts: { '10.0.0.2': { images: [{ name: IMAGES.whole.name, diskGiB: IMAGES.whole.diskGiB }] } },
      },
    });
    await f.account('acme', 100_000_000);
    await f.reserve('acme', 'r1', { miniCount: 1 });
    await f.reservationSettled('acme', 'r1');
    await f.reserve('acme', 'r2', { miniCount: 1, vmLayout: 'whole' });
    expect((await f.reservationSettled('acme', 'r2')).status?.minis).toEqual(['mini-2']);
    await f.poolsReady();
    const s = await create();
    const v = await snapshot(s, 'v1');
    expect(v.status?.phase).toBe('ready');
    const before = (await f.vms('mini-2')).map((vm) => vm.spec.sandbox ?? null);
    const restore = await create({ snapshot: 'v1' }, 'r2');
    expect(restore.status).toMatchObject({ phase: 'failed', reason: 'snapshot_base_unavailable' });
    expect((await f.vms('mini-2')).map((vm) => vm.spec.sandbox ?? null)).toEqual(before);
  });

  it('rule 4: a corrupt or missing artifact fails the restore with snapshot_transfer_failed, and the VM is re-cloned', async () => {
    await reserved();
    const src = await create();
    const v1 = await snapshot(src, 'v1');
    await writeFile(path.join(f.dir, 'blobs', v1.status!.artifact!.location), 'not the delta');
    const restore = await create({ snapshot: 'v1' });
    expect(restore.status).toMatchObject({ phase: 'failed', reason: 'snapshot_transfer_failed' });
    await f.released('acme', restore.metadata.name);
    await f.poolsReady();
  });

  it('rule 4: a delta the Mac cannot apply fails with snapshot_apply_failed; one that does not start with snapshot_startup_failed', async () => {
    await reserved();
    const src = await create();
    await snapshot(src, 'v1');
    f.sim.failNext('importDelta');
    const apply = await create({ snapshot: 'v1' });
    expect(apply.status).toMatchObject({ phase: 'failed', reason: 'snapshot_apply_failed' });
    await f.released('acme', apply.metadata.name);
    await f.poolsReady();
    f.sim.failNext('startVm');
    const startup = await create({ snapshot: 'v1' });
    expect(startup.status).toMatchObject({ phase: 'failed', reason: 'snapshot_startup_failed' });
    await f.released('acme', startup.metadata.name);
    await f.poolsReady();
    expect((await create({ snapshot: 'v1' })).status?.phase).toBe('running');
  });

  it('model rule 1: an M5 Pro restore takes whichever split slot is free and reports its vCPU', async () => {
    await reserved('m5-pro');
    const eight = await create({ cpu: 8, memoryGiB: 12 });
    await snapshot(eight, 'v8');
    const restored = await create({ snapshot: 'v8' });
    expect(restored.status).toMatchObject({ phase: 'running', cpu: 7, memoryGiB: 12 });
  });

  it('deleting a snapshot removes its artifact', async () => {
    await reserved();
    const src = await create();
    const v1 = await snapshot(src, 'v1');
    const file = path.join(f.dir, 'blobs', v1.status!.artifact!.location);
    await f.store.delete({ kind: 'Snapshot', namespace: 'acme', name: 'v1' });
    await waitFor(
      async () => !(await f.store.get({ kind: 'Snapshot', namespace: 'acme', name: 'v1' })),
      'snapshot gone',
    );
    await expect(readFile(file)).rejects.toThrow();
  });

  it('a blob a killed capture put before its status write goes with its snapshot (failed or deleted)', async () => {
    await reserved();
    // What a capture killed between its put and its status write leaves: a blob at the
    // snapshot's location that no status names (test/crash.test.ts found such orphans).
    const file = path.join(f.dir, 'blobs', 'snapshots', 'acme', 'v9.delta');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, 'delta of a dead capture');
    // The retried capture fails (its source is gone): the orphan goes with it.
    const failed = await snapshot({ metadata: { name: 'sb-gone' } } as Sandbox, 'v9');
    expect(failed.status).toMatchObject({ phase: 'failed' });
    expect(failed.status?.artifact).toBeUndefined();
    await expect(readFile(file)).rejects.toThrow();
    // Written again before the failed snapshot is deleted: the delete removes it too.
    await writeFile(file, 'delta of a dead capture');
    await f.store.delete({ kind: 'Snapshot', namespace: 'acme', name: 'v9' });
    await waitFor(
      async () => !(await f.store.get({ kind: 'Snapshot', namespace: 'acme', name: 'v9' })),
      'snapshot gone',
    );
    await expect(readFile(file)).rejects.toThrow();
  });
});
