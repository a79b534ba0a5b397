import { describe, expect, it } from 'vitest';
import { IMAGES, warmProfile } from '../../crds/index.ts';
import { Fleet, mac, pool, vm } from './fixtures.ts';
import { poolPlan } from './pool-plan.ts';
import { schedule } from './schedule.ts';
import { isScheduleFailure, type ScheduleRequest } from './types.ts';

function create(fleet: Fleet, request: ScheduleRequest, name: string): void {
  const choice = schedule(fleet.input(request));
  if (isScheduleFailure(choice)) throw new Error(choice.message);
  fleet.claim(choice, name);
}

describe('poolPlan', () => {
  it('a fresh Mac clones one running VM per slot of its profile', () => {
    const plan = poolPlan(mac('a', 'm5-pro'), [], []);
    expect(plan.clone).toEqual([
      expect.objectContaining({ slot: 0, cpu: 8, memoryGiB: 12, reason: 'missing', run: true }),
      expect.objectContaining({ slot: 1, cpu: 7, memoryGiB: 12, reason: 'missing', run: true }),
    ]);
    expect(plan.desired.map((d) => d.run)).toEqual([true, true]);
  });

  it('a full pool needs nothing', () => {
    const a = mac('a', 'm4');
    const plan = poolPlan(a, pool(a), []);
    expect(plan).toMatchObject({
      clone: [],
      discard: [],
      stopAside: [],
      returnToPool: [],
      profileChanged: false,
    });
    expect(plan.desired.map((d) => d.vm)).toEqual(['a-0', 'a-1']);
  });

  it('a released VM is discarded and a fresh one cloned in its place', () => {
    const fleet = new Fleet([mac('a', 'm4')]);
    fleet.vms.push(...pool(fleet.minis[0]!));
    create(fleet, { cpu: 4 }, 'x');
    fleet.release('x');
    const plan = poolPlan(fleet.minis[0]!, fleet.vms, fleet.sandboxes);
    expect(plan.clone).toEqual([
      expect.objectContaining({ slot: 0, replaces: 'a-0', reason: 'dirty', cpu: 5, run: true }),
    ]);
  });

  it('a warm VM that no longer fits beside the sandboxes is stopped aside', () => {
    const a = mac('a', 'm4');
    const vms = [
      vm('a-0', 'a', 0, { cpu: 7, memoryGiB: 8, phase: 'occupied', sandbox: 'ns/x' }),
      ...pool(a).slice(1),
    ];
    expect(poolPlan(a, vms, []).stopAside).toEqual(['a-1']);
  });

  it('a stopped VM returns to the pool once there is room', () => {
    const a = mac('a', 'm4');
    const vms = [
      vm('a-0', 'a', 0, { cpu: 5, memoryGiB: 8, phase: 'occupied', sandbox: 'ns/x' }),
      vm('a-1', 'a', 1, { cpu: 5, memoryGiB: 8, phase: 'stopped' }),
    ];
    expect(poolPlan(a, vms, []).returnToPool).toEqual(['a-1']);
    const tight = [vm('a-0', 'a', 0, { cpu: 6, memoryGiB: 8, phase: 'occupied', sandbox: 'ns/x' }), vms[1]!];
    expect(poolPlan(a, tight, []).returnToPool).toEqual([]);
  });

  it('a fresh clone is kept stopped while there is no room for it', () => {
    const a = mac('a', 'm4');
    const vms = [
      vm('a-0', 'a', 0, { cpu: 9, memoryGiB: 8, phase: 'occupied', sandbox: 'ns/x' }),
      vm('a-1', 'a', 1, { cpu: 5, memoryGiB: 8, phase: 'occupied', ranSandbox: 'ns/y' }),
    ];
    expect(poolPlan(a, vms, []).clone).toEqual([
      expect.objectContaining({ slot: 1, replaces: 'a-1', run: false }),
    ]);
  });

  it('VMs beyond the profile, or a second VM of one slot, are discarded', () => {
    const a = mac('a', 'm4', 'whole');
    const vms = [
      vm('a-0', 'a', 0, { cpu: 10, memoryGiB: 16, image: IMAGES.whole.name, diskGiB: IMAGES.whole.diskGiB }),
      vm('a-0b', 'a', 0, {
        cpu: 10,
        memoryGiB: 16,
        image: IMAGES.whole.name,
        diskGiB: IMAGES.whole.diskGiB,
        phase: 'stopped',
      }),
      vm('a-1', 'a', 1, { cpu: 5, memoryGiB: 8 }),
    ];
    expect(poolPlan(a, vms, []).discard.sort()).toEqual(['a-0b', 'a-1']);
  });

  it('legacy profile kept while the Mac is busy', () => {
    const legacy = mac('a', 'm4-pro', 'split', { profile: warmProfile({ model: 'm4' }, 'split') });
    const vms = [
      vm('a-0', 'a', 0, { cpu: 5, memoryGiB: 8, phase: 'occupied', sandbox: 'ns/x' }),
      ...pool(legacy).slice(1),
    ];
    const plan = poolPlan(legacy, vms, [], { targetProfile: warmProfile({ model: 'm4-pro' }, 'split') });
    expect(plan).toMatchObject({ profileChanged: false, clone: [], discard: [] });
    expect(plan.profile).toEqual(warmProfile({ model: 'm4' }, 'split'));
  });

  it('an idle Mac adopts the new profile and re-clones the VMs that do not match it', () => {
    const legacy = mac('a', 'm4-pro', 'split', { profile: warmProfile({ model: 'm4' }, 'split') });
    const plan = poolPlan(legacy, pool(legacy), [], {
      targetProfile: warmProfile({ model: 'm4-pro' }, 'split'),
    });
    expect(plan.profileChanged).toBe(true);
    expect(plan.clone).toEqual([
      expect.objectContaining({
        slot: 0,
        replaces: 'a-0',
        reason: 'profile',
        cpu: 6,
        memoryGiB: 12,
        run: true,
      }),
      expect.objectContaining({
        slot: 1,
        replaces: 'a-1',
        reason: 'profile',
        cpu: 6,
        memoryGiB: 12,
        run: true,
      }),
    ]);
  });

  it('a down Mac gets no plan', () => {
    const a = mac('a', 'm4', 'split', { down: true });
    expect(poolPlan(a, [], [])).toMatchObject({ clone: [], discard: [], stopAside: [], returnToPool: [] });
  });

  it('a down VM on a reachable Mac is re-cloned', () => {
    const a = mac('a', 'm4');
    const plan = poolPlan(a, pool(a, ['down', 'warm']), []);
    expect(plan.clone).toEqual([expect.objectContaining({ slot: 0, replaces: 'a-0', reason: 'down' })]);
  });

  it('applying a plan and planning again changes nothing', () => {
    const fleet = new Fleet([mac('a', 'm4')]);
    fleet.reconcilePool('a');
    fleet.finishClones('a');
    create(fleet, { cpu: 7 }, 'x');
    fleet.reconcilePool('a');
    const again = poolPlan(fleet.minis[0]!, fleet.vms, fleet.sandboxes);
    expect(again).toMatchObject({ clone: [], discard: [], stopAside: [], returnToPool: [] });
  });
});
