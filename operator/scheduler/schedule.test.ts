import { describe, expect, it } from 'vitest';
import { IMAGES } from '../../crds/index.ts';
import { Fleet, mac, pool, vm } from './fixtures.ts';
import { schedule } from './schedule.ts';
import {
  isScheduleFailure,
  type ScheduleChoice,
  type ScheduleRequest,
  type ScheduleResult,
} from './types.ts';

function chosen(result: ScheduleResult): ScheduleChoice {
  if (isScheduleFailure(result)) throw new Error(`expected a choice, got ${result.error}: ${result.message}`);
  return result;
}

function fleetOf(...minis: ReturnType<typeof mac>[]): Fleet {
  const fleet = new Fleet(minis);
  for (const m of minis) fleet.vms.push(...pool(m));
  return fleet;
}

/** Schedules and claims like the sandbox reconciler; returns the choice. */
function create(fleet: Fleet, request: ScheduleRequest, name: string): ScheduleChoice {
  const choice = chosen(schedule(fleet.input(request)));
  fleet.claim(choice, name);
  return choice;
}

describe('sizes', () => {
  it('omitted size takes the model/layout warm size', () => {
    expect(create(fleetOf(mac('a', 'm4')), {}, 'x')).toMatchObject({ boot: 'warm', cpu: 5, memoryGiB: 8 });
    expect(create(fleetOf(mac('a', 'm4-pro')), {}, 'x')).toMatchObject({
      boot: 'warm',
      cpu: 6,
      memoryGiB: 12,
    });
    expect(create(fleetOf(mac('a', 'm4', 'whole')), {}, 'x')).toMatchObject({
      boot: 'warm',
      cpu: 10,
      memoryGiB: 16,
      image: IMAGES.whole.name,
    });
  });

  it('a warm VM of exactly the requested size boots warm, untouched', () => {
    const choice = create(fleetOf(mac('a', 'm4-pro')), { cpu: 6, memoryGiB: 12 }, 'x');
    expect(choice).toMatchObject({
      boot: 'warm',
      resize: false,
      fromStopped: false,
      reclone: false,
      stopAside: [],
    });
  });

  it('any other size boots cold on a resized warm VM', () => {
    const choice = create(fleetOf(mac('a', 'm4')), { cpu: 4, memoryGiB: 6 }, 'x');
    expect(choice).toMatchObject({ boot: 'cold', resize: true, cpu: 4, memoryGiB: 6, vm: 'a-0' });
  });

  it('one omitted field takes the warm size of the slot', () => {
    expect(create(fleetOf(mac('a', 'm4')), { memoryGiB: 12 }, 'x')).toMatchObject({
      boot: 'cold',
      cpu: 5,
      memoryGiB: 12,
    });
  });

  it('smallest sandbox is 2 vCPU / 4 GiB', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    expect(schedule(fleet.input({ cpu: 1 }))).toMatchObject({ error: 'invalid_size' });
    expect(schedule(fleet.input({ memoryGiB: 3 }))).toMatchObject({ error: 'invalid_size' });
    expect(schedule(fleet.input({ cpu: 2.5 }))).toMatchObject({ error: 'invalid_size' });
    expect(create(fleet, { cpu: 2, memoryGiB: 4 }, 'x')).toMatchObject({
      cpu: 2,
      memoryGiB: 4,
      boot: 'cold',
    });
  });

  it('disk_gib must equal the image disk size', () => {
    const split = fleetOf(mac('a', 'm4'));
    expect(schedule(split.input({ diskGiB: 80 }))).toMatchObject({ error: 'invalid_disk_size' });
    expect(schedule(split.input({ diskGiB: IMAGES.whole.diskGiB }))).toMatchObject({
      error: 'invalid_disk_size',
    });
    expect(chosen(schedule(split.input({ diskGiB: IMAGES.split.diskGiB })))).toMatchObject({ boot: 'warm' });
    const whole = fleetOf(mac('b', 'm4', 'whole'));
    expect(chosen(schedule(whole.input({ diskGiB: IMAGES.whole.diskGiB })))).toMatchObject({
      diskGiB: IMAGES.whole.diskGiB,
    });
  });
});

describe('Mac models and layouts', () => {
  it('M4 split: 7 + 3 vCPU coexist', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    const first = create(fleet, { cpu: 7 }, 'x');
    expect(first).toMatchObject({ boot: 'cold', cpu: 7, memoryGiB: 8, stopAside: ['a-1'] });
    const second = create(fleet, { cpu: 3 }, 'y');
    expect(second).toMatchObject({ mini: 'a', vm: 'a-1', cpu: 3, memoryGiB: 8, fromStopped: true });
  });

  it('M4 split: 4 + 12 GiB coexist', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    expect(create(fleet, { memoryGiB: 12 }, 'x')).toMatchObject({ memoryGiB: 12, stopAside: ['a-1'] });
    expect(create(fleet, { memoryGiB: 4 }, 'y')).toMatchObject({ memoryGiB: 4, cpu: 5, vm: 'a-1' });
  });

  it('M5 Pro split: default create reports 7 or 8 vCPU of the free slot', () => {
    const m = mac('a', 'm5-pro');
    const fleet = new Fleet([m]);
    fleet.vms.push(...pool(m, ['cloning', 'warm']));
    expect(create(fleet, {}, 'x')).toMatchObject({ boot: 'warm', vm: 'a-1', cpu: 7, memoryGiB: 12 });
    const both = fleetOf(mac('b', 'm5-pro'));
    const cpus = [create(both, {}, 'x').cpu, create(both, {}, 'y').cpu];
    expect(cpus.sort()).toEqual([7, 8]);
  });

  it('M5 Pro split: 7 and 8 vCPU explicit creates coexist', () => {
    const fleet = fleetOf(mac('a', 'm5-pro'));
    expect(create(fleet, { cpu: 7, memoryGiB: 12 }, 'x')).toMatchObject({ boot: 'warm', vm: 'a-1', cpu: 7 });
    expect(create(fleet, { cpu: 8, memoryGiB: 12 }, 'y')).toMatchObject({ boot: 'warm', vm: 'a-0', cpu: 8 });
  });

  it('a snapshot restore takes whichever slot is free and does not keep the source CPU count', () => {
    const fleet = fleetOf(mac('a', 'm5-pro'));
    create(fleet, { cpu: 8, memoryGiB: 12 }, 'x');
    const restore = create(
      fleet,
      { snapshot: { baseImage: IMAGES.split.name, diskGiB: IMAGES.split.diskGiB } },
      'y',
    );
    expect(restore).toMatchObject({ vm: 'a-1', cpu: 7, memoryGiB: 12, boot: 'cold', reclone: false });
  });

  it('whole runs one sandbox at a time', () => {
    const fleet = fleetOf(mac('a', 'm4', 'whole'));
    create(fleet, { cpu: 2, memoryGiB: 4 }, 'x');
    expect(schedule(fleet.input({ cpu: 2, memoryGiB: 4 }))).toMatchObject({ error: 'sandbox_limit_reached' });
  });

  it('together sandboxes may use all the Mac: 10 + 0 leaves nothing for a second', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    create(fleet, { cpu: 8, memoryGiB: 12 }, 'x');
    expect(create(fleet, { cpu: 2, memoryGiB: 4 }, 'y')).toMatchObject({ fromStopped: true });
    expect(fleet.sandboxes.reduce((n, s) => n + s.cpu, 0)).toBe(10);
  });
});

describe('errors', () => {
  it('a third sandbox on a Mac is sandbox_limit_reached', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    create(fleet, { cpu: 2, memoryGiB: 4 }, 'x');
    create(fleet, { cpu: 2, memoryGiB: 4 }, 'y');
    expect(schedule(fleet.input({ cpu: 2, memoryGiB: 4 }))).toMatchObject({ error: 'sandbox_limit_reached' });
  });

  it('sandbox_limit_reached only when every Mac runs its max', () => {
    const fleet = fleetOf(mac('a', 'm4'), mac('b', 'm4'));
    create(fleet, {}, 'x');
    create(fleet, {}, 'y');
    create(fleet, {}, 'z');
    expect(create(fleet, {}, 'w')).toMatchObject({ boot: 'warm' });
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'sandbox_limit_reached' });
  });

  it('resources_exceed_mac: larger than the whole Mac', () => {
    const fleet = fleetOf(mac('a', 'm4'), mac('b', 'm4'));
    expect(schedule(fleet.input({ cpu: 11 }))).toMatchObject({ error: 'resources_exceed_mac' });
    expect(schedule(fleet.input({ memoryGiB: 17 }))).toMatchObject({ error: 'resources_exceed_mac' });
    expect(chosen(schedule(fleet.input({ cpu: 10, memoryGiB: 16 })))).toMatchObject({ boot: 'cold' });
  });

  it('insufficient_capacity: larger than what the other sandboxes leave free on every Mac', () => {
    const fleet = fleetOf(mac('a', 'm4'), mac('b', 'm4'));
    create(fleet, { cpu: 7 }, 'x');
    create(fleet, { cpu: 7 }, 'y');
    const refused = schedule(fleet.input({ cpu: 4 }));
    expect(refused).toMatchObject({ error: 'insufficient_capacity' });
    expect(isScheduleFailure(refused) && refused.message).toContain('3 vCPU / 8 GiB free');
  });

  it('no_warm_vm: it fits but every VM is cloning', () => {
    const m = mac('a', 'm4');
    const fleet = new Fleet([m]);
    fleet.vms.push(...pool(m, ['cloning', 'cloning']));
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'no_warm_vm' });
  });

  it('no_warm_vm: the only Mac with room is down', () => {
    const fleet = fleetOf(mac('a', 'm4'), mac('b', 'm4', 'split', { down: true }));
    create(fleet, {}, 'x');
    create(fleet, {}, 'y');
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'no_warm_vm' });
  });

  it('no_warm_vm: a released VM still runs until it is discarded', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    create(fleet, { cpu: 8 }, 'x');
    fleet.release('x');
    expect(schedule(fleet.input({ cpu: 5 }))).toMatchObject({ error: 'no_warm_vm' });
  });

  it('snapshot_base_unavailable: the Macs lack the base image', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    const result = schedule(fleet.input({ snapshot: { baseImage: 'base-macos-15', diskGiB: 64 } }));
    expect(result).toMatchObject({ error: 'snapshot_base_unavailable' });
  });

  it('snapshot_base_unavailable: the base disk size differs', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    const result = schedule(fleet.input({ snapshot: { baseImage: IMAGES.split.name, diskGiB: 80 } }));
    expect(result).toMatchObject({ error: 'snapshot_base_unavailable' });
    expect(isScheduleFailure(result) && result.message).toContain('disk size differs');
  });

  it('a Mac that reports no images yet still has the image of its warm VMs', () => {
    const fleet = fleetOf(mac('a', 'm4', 'split', { images: [] }));
    const base = { baseImage: IMAGES.split.name, diskGiB: IMAGES.split.diskGiB };
    expect(chosen(schedule(fleet.input({ snapshot: base })))).toMatchObject({ image: IMAGES.split.name });
    const whole = { baseImage: IMAGES.whole.name, diskGiB: IMAGES.whole.diskGiB };
    expect(schedule(fleet.input({ snapshot: whole }))).toMatchObject({ error: 'snapshot_base_unavailable' });
  });

  it('snapshot_base_unavailable is decided before capacity', () => {
    const fleet = fleetOf(mac('a', 'm4', 'whole'));
    create(fleet, {}, 'x');
    const result = schedule(fleet.input({ snapshot: { baseImage: 'base-macos-15', diskGiB: 64 } }));
    expect(result).toMatchObject({ error: 'snapshot_base_unavailable' });
  });
});

describe('choosing', () => {
  it('a restore boots cold on the snapshot base image, re-cloning a VM of another image', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    const choice = create(
      fleet,
      { snapshot: { baseImage: IMAGES.whole.name, diskGiB: IMAGES.whole.diskGiB } },
      'x',
    );
    expect(choice).toMatchObject({
      boot: 'cold',
      reclone: true,
      image: IMAGES.whole.name,
      diskGiB: IMAGES.whole.diskGiB,
      cpu: 5,
    });
  });

  it('prefers warm over cold, even on a busier Mac', () => {
    const a = mac('a', 'm4');
    const b = mac('b', 'm4');
    const fleet = new Fleet([a, b]);
    fleet.vms.push(...pool(a), ...pool(b, ['stopped', 'stopped']));
    fleet.claim(chosen(schedule({ ...fleet.input({ cpu: 2, memoryGiB: 4 }), minis: [a] })), 'x');
    expect(create(fleet, {}, 'y')).toMatchObject({ mini: 'a', boot: 'warm' });
    expect(fleet.sandboxes.map((s) => s.mini)).toEqual(['a', 'a']);
  });

  it('spreads: prefers the Mac with fewer sandboxes', () => {
    const fleet = fleetOf(mac('a', 'm4'), mac('b', 'm4'));
    expect(create(fleet, {}, 'x').mini).toBe('a');
    expect(create(fleet, {}, 'y').mini).toBe('b');
  });

  it('ties break by Mac name, then slot', () => {
    const fleet = fleetOf(mac('b', 'm4'), mac('a', 'm4'));
    expect(chosen(schedule(fleet.input({})))).toMatchObject({ mini: 'a', vm: 'a-0' });
  });

  it('stopped-aside VM boots next', () => {
    const fleet = fleetOf(mac('a', 'm4'), mac('b', 'm4'));
    create(fleet, { cpu: 7 }, 'x');
    create(fleet, { cpu: 7 }, 'y');
    expect(fleet.find('a-1').status?.phase).toBe('stopped');
    expect(create(fleet, { cpu: 3 }, 'z')).toMatchObject({
      mini: 'a',
      vm: 'a-1',
      fromStopped: true,
      boot: 'cold',
    });
  });

  it('a cold create stops the other warm VM aside when it no longer fits', () => {
    const fleet = fleetOf(mac('a', 'm4-pro'));
    expect(create(fleet, { cpu: 6, memoryGiB: 13 }, 'x').stopAside).toEqual(['a-1']);
    const roomy = fleetOf(mac('b', 'm4-pro'));
    expect(create(roomy, { cpu: 4, memoryGiB: 8 }, 'x').stopAside).toEqual([]);
  });

  it('down VMs and VMs on down Macs are never chosen', () => {
    const a = mac('a', 'm4', 'split', { down: true });
    const b = mac('b', 'm4');
    const fleet = new Fleet([a, b]);
    fleet.vms.push(...pool(a), ...pool(b, ['down', 'warm']));
    expect(create(fleet, {}, 'x')).toMatchObject({ mini: 'b', vm: 'b-1' });
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'no_warm_vm' });
  });

  it('claimed and dirty VMs are never chosen', () => {
    const a = mac('a', 'm4-pro');
    const fleet = new Fleet([a]);
    fleet.vms.push(
      vm('a-0', 'a', 0, { cpu: 6, memoryGiB: 12, phase: 'warm', sandbox: 'ns/x' }),
      vm('a-1', 'a', 1, { cpu: 6, memoryGiB: 12, phase: 'warm', ranSandbox: 'ns/old' }),
    );
    expect(schedule(fleet.input({ cpu: 2, memoryGiB: 4 }))).toMatchObject({ error: 'no_warm_vm' });
  });

  it('legacy profile kept: an M4 Pro with an M4-sized pool hands out M4-sized warm VMs', () => {
    const legacy = mac('a', 'm4-pro', 'split', { profile: mac('x', 'm4').warmProfile });
    const fleet = fleetOf(legacy);
    expect(create(fleet, {}, 'x')).toMatchObject({ boot: 'warm', cpu: 5, memoryGiB: 8 });
    // The Mac's own capacity still applies: 7 + 5 vCPU fit on 12 cores.
    expect(create(fleet, { cpu: 7 }, 'y')).toMatchObject({ cpu: 7, boot: 'cold' });
  });

  it('uses a sandbox size reported larger than its VM (the status may lead the VM)', () => {
    const fleet = fleetOf(mac('a', 'm4'));
    create(fleet, {}, 'x');
    fleet.sandboxes[0]!.cpu = 8;
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'insufficient_capacity' });
  });

  it('a reservation with no Macs bound yet is no_warm_vm', () => {
    expect(schedule({ minis: [], vms: [], sandboxes: [], request: {} })).toMatchObject({
      error: 'no_warm_vm',
    });
  });
});

describe('a pin (the create’s host)', () => {
  const at = (m: ReturnType<typeof mac>, address: string) => ({ ...m, address });

  it('places the sandbox on the pinned Mac, by Mini name or by address, against the usual preference', () => {
    const fleet = fleetOf(at(mac('a'), '10.0.0.1'), at(mac('b'), '10.0.0.2'));
    // Without a pin the tie breaks to `a`; pinned, `b` takes it.
    expect(chosen(schedule(fleet.input({}))).mini).toBe('a');
    expect(create(fleet, { host: 'b' }, 'x')).toMatchObject({ mini: 'b', boot: 'warm' });
    expect(create(fleet, { host: '10.0.0.2' }, 'y')).toMatchObject({ mini: 'b', boot: 'warm' });
  });

  it('host_not_reserved: a pin naming none of the Macs, with the Macs it may name', () => {
    const fleet = fleetOf(at(mac('a'), '10.0.0.1'));
    const refused = schedule(fleet.input({ host: 'mm009' }));
    expect(refused).toMatchObject({ error: 'host_not_reserved' });
    expect((refused as { message: string }).message).toContain('body/host: "mm009"');
    expect((refused as { message: string }).message).toContain('a (10.0.0.1)');
  });

  it('the pinned Mac’s own refusal, even when another Mac has room', () => {
    const fleet = fleetOf(mac('a'), mac('b'));
    create(fleet, { host: 'a' }, 'x');
    create(fleet, { host: 'a' }, 'y');
    expect(schedule(fleet.input({ host: 'a' }))).toMatchObject({ error: 'sandbox_limit_reached' });
    expect(create(fleet, {}, 'z')).toMatchObject({ mini: 'b' });
  });

  it('a pinned restore needs the base image on that Mac', () => {
    const bare = mac('b', 'm4', 'split', {
      images: [],
      profile: [{ cpu: 5, memoryGiB: 8, image: 'other', diskGiB: 64 }],
    });
    const fleet = fleetOf(mac('a'), bare);
    const snapshot = { baseImage: IMAGES.split.name, diskGiB: IMAGES.split.diskGiB };
    expect(schedule(fleet.input({ host: 'b', snapshot }))).toMatchObject({
      error: 'snapshot_base_unavailable',
    });
    expect(create(fleet, { host: 'a', snapshot }, 'x')).toMatchObject({ mini: 'a', boot: 'cold' });
  });
});

describe('a linux Mac of N VM slots (Mini.spec.vmSlots, beyond the spec)', () => {
  it('holds N warm sandboxes of the smallest size, and refuses the next with sandbox_limit_reached', () => {
    const fleet = fleetOf(mac('dense', 'm4', 'split', { vmSlots: 5 }));
    expect(fleet.vms).toHaveLength(5);
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      expect(create(fleet, {}, name)).toMatchObject({ boot: 'warm', cpu: 2, memoryGiB: 4 });
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'sandbox_limit_reached' });
  });

  it('counts its capacity as N smallest sandboxes: larger ones take the room of several', () => {
    const fleet = fleetOf(mac('dense', 'm4', 'split', { vmSlots: 4 }));
    // 4 slots: 8 vCPU / 16 GiB in all.
    expect(schedule(fleet.input({ cpu: 10, memoryGiB: 16 }))).toMatchObject({
      error: 'resources_exceed_mac',
    });
    create(fleet, { cpu: 6, memoryGiB: 12 }, 'big');
    expect(create(fleet, {}, 'small')).toMatchObject({ cpu: 2, memoryGiB: 4 });
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'insufficient_capacity' });
  });

  it('has one VM of all of it in the whole layout', () => {
    const fleet = fleetOf(mac('dense', 'm4', 'whole', { vmSlots: 3 }));
    expect(create(fleet, {}, 'x')).toMatchObject({ boot: 'warm', cpu: 6, memoryGiB: 12 });
    expect(schedule(fleet.input({}))).toMatchObject({ error: 'sandbox_limit_reached' });
  });
});
