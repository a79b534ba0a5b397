import { describe, expect, it } from 'vitest';
import { IMAGES } from '../../crds/index.ts';
import { Fleet, mac, pool } from './fixtures.ts';
import { schedule } from './schedule.ts';
import { scheduleMany } from './schedule-many.ts';
import type { ScheduleChoice, ScheduleFailure, ScheduleRequest } from './types.ts';

const refused = (r: ScheduleChoice[] | ScheduleFailure): r is ScheduleFailure => !Array.isArray(r);

function fleetOf(...minis: ReturnType<typeof mac>[]): Fleet {
  const fleet = new Fleet(minis);
  for (const m of minis) fleet.vms.push(...pool(m));
  return fleet;
}

/** A fork's request: the source's size, its image as the base, its Mac preferred. */
const fork = (near: string): ScheduleRequest => ({
  cpu: 5,
  memoryGiB: 8,
  snapshot: { baseImage: IMAGES.split.name, diskGiB: IMAGES.split.diskGiB },
  near,
});

describe('a fork into N (scheduleMany)', () => {
  it('places N on distinct VMs, the source Mac first, then spreading', () => {
    const fleet = fleetOf(mac('a'), mac('b'), mac('c'));
    fleet.claim(schedule(fleet.input({})) as ScheduleChoice, 'ns/source'); // on a
    const choices = scheduleMany(fleet.input(fork('a')), 3);
    if (refused(choices)) throw new Error(choices.message);
    expect(choices.map((c) => c.mini)).toEqual(['a', 'b', 'c']);
    expect(new Set(choices.map((c) => c.vm)).size).toBe(3);
    expect(choices.every((c) => c.boot === 'cold')).toBe(true);
  });

  it('prefers the source Mac over a Mac with fewer sandboxes (near before spread)', () => {
    const fleet = fleetOf(mac('a'), mac('b'));
    fleet.claim(schedule(fleet.input({ host: 'a' })) as ScheduleChoice, 'ns/source');
    const choice = schedule(fleet.input(fork('a')));
    expect(choice).toMatchObject({ mini: 'a' });
    // Without the preference the emptier Mac wins.
    const { near: _near, ...plain } = fork('a');
    expect(schedule(fleet.input(plain))).toMatchObject({ mini: 'b' });
  });

  it('refuses all N with the first refusal when N do not fit, naming how many would', () => {
    const fleet = fleetOf(mac('a'));
    fleet.claim(schedule(fleet.input({})) as ScheduleChoice, 'ns/source');
    const result = scheduleMany(fleet.input(fork('a')), 2);
    expect(result).toMatchObject({ error: 'sandbox_limit_reached' });
    expect(refused(result) && result.message).toMatch(/^2 sandboxes do not fit, 1 would: /);
    // Nothing in the input changed: one still fits.
    expect(scheduleMany(fleet.input(fork('a')), 1)).toHaveLength(1);
  });

  it('counts each placed fork against its Mac: on whole-layout Macs, one sandbox each', () => {
    const fleet = fleetOf(mac('a', 'm4', 'whole'), mac('b', 'm4', 'whole'));
    fleet.claim(schedule(fleet.input({ cpu: 5, memoryGiB: 8 })) as ScheduleChoice, 'ns/source');
    const result = scheduleMany(fleet.input(fork('a')), 2);
    expect(refused(result)).toBe(true);
  });

  it('with a count of one is the scheduler itself', () => {
    const fleet = fleetOf(mac('a'), mac('b'));
    expect(scheduleMany(fleet.input(fork('b')), 1)).toEqual([schedule(fleet.input(fork('b')))]);
  });
});
