// Property: for random fleets and random sequences of creates, deletes, pool reconciles, finished
// clones and host failures, the VMs running on any Mac never add up to more than the Mac has, and
// no Mac runs more sandboxes than its layout allows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IMAGES,
  MAC_MODELS,
  MAC_PROFILES,
  VM_LAYOUTS,
  maxSandboxesPerMac,
  warmProfile,
  type MacModel,
  type VmLayout,
  type WarmSlot,
} from '../../crds/index.ts';
import { Fleet, mac } from './fixtures.ts';
import { schedule } from './schedule.ts';
import { scheduleShortlisted } from './shortlist.ts';
import { isScheduleFailure, type MiniView, type ScheduleRequest } from './types.ts';

const macArb = fc
  .record({
    model: fc.constantFrom(...MAC_MODELS),
    layout: fc.constantFrom(...VM_LAYOUTS),
    legacy: fc.boolean(),
  })
  .map(({ model, layout, legacy }) => ({
    model,
    layout,
    profile: legacy ? legacyProfile(model, layout) : undefined,
  }));

/** Earlier profiles the spec names: M4-sized pools on a bigger Mac, whole VMs with 12 GiB. */
function legacyProfile(model: MacModel, layout: VmLayout): WarmSlot[] {
  if (layout === 'split') return warmProfile({ model: 'm4' }, 'split');
  return [
    {
      cpu: MAC_PROFILES[model].cores,
      memoryGiB: 12,
      image: IMAGES.whole.name,
      diskGiB: IMAGES.whole.diskGiB,
    },
  ];
}

const opArb = fc.oneof(
  fc.record({
    op: fc.constant('create' as const),
    cpu: fc.option(fc.integer({ min: 2, max: 16 }), { nil: undefined }),
    memoryGiB: fc.option(fc.integer({ min: 4, max: 26 }), { nil: undefined }),
    restore: fc.boolean(),
  }),
  fc.record({ op: fc.constant('delete' as const), index: fc.nat() }),
  fc.record({ op: fc.constantFrom('finish' as const, 'down' as const, 'up' as const), mini: fc.nat() }),
  // A pool reconcile that applies its actions in any order, or only some of them.
  fc.record({
    op: fc.constant('pool' as const),
    mini: fc.nat(),
    order: fc.array(fc.nat({ max: 7 }), { maxLength: 8 }),
  }),
);

/**
 * The shortlisted scheduler (ranked, as the reconciler places; first fit, as the API checks) against
 * the scheduler over every Mac: the same refusal, and warm exactly when it is warm.
 */
function checkShortlist(fleet: Fleet, request: ScheduleRequest): void {
  const full = schedule(fleet.input(request));
  const names = fleet.minis.map((m) => m.name);
  const run = (on: readonly string[]) =>
    schedule({
      minis: fleet.minis.filter((m) => on.includes(m.name)),
      vms: fleet.vms.filter((v) => on.includes(v.spec.mini)),
      sandboxes: fleet.sandboxes.filter((s) => on.includes(s.mini)),
      request,
    });
  for (const mode of ['ranked', 'first'] as const) {
    const short = scheduleShortlisted(
      names,
      (mini) => fleet.vms.filter((v) => v.spec.mini === mini),
      request,
      run,
      mode,
    );
    if (isScheduleFailure(full)) expect(short, mode).toEqual(full);
    else {
      expect(isScheduleFailure(short), `${mode}: ${JSON.stringify(short)}`).toBe(false);
      if (!isScheduleFailure(short)) expect(short.boot, mode).toBe(full.boot);
    }
  }
}

function checkInvariants(fleet: Fleet): void {
  for (const mini of fleet.minis) {
    const capacity = MAC_PROFILES[mini.model];
    const running = fleet.vms.filter(
      (v) => v.spec.mini === mini.name && (v.status?.phase === 'warm' || v.status?.phase === 'occupied'),
    );
    const cpu = running.reduce((n, v) => n + v.spec.cpu, 0);
    const memory = running.reduce((n, v) => n + v.spec.memoryGiB, 0);
    expect(cpu, `running vCPU on ${mini.name}`).toBeLessThanOrEqual(capacity.cores);
    expect(memory, `running GiB on ${mini.name}`).toBeLessThanOrEqual(capacity.memoryGiB);
    const sandboxes = fleet.sandboxes.filter((s) => s.mini === mini.name);
    expect(sandboxes.length).toBeLessThanOrEqual(maxSandboxesPerMac(mini.layout));
  }
}

describe('scheduler and pool together', () => {
  it('the sum of running VM sizes on any Mac never exceeds the Mac; the shortlist refuses and goes warm as the whole fleet would', () => {
    fc.assert(
      fc.property(
        fc.array(macArb, { minLength: 1, maxLength: 4 }),
        fc.array(opArb, { maxLength: 60 }),
        (macs, ops) => {
          const minis: MiniView[] = macs.map((m, i) =>
            mac(`m${i}`, m.model, m.layout, m.profile ? { profile: m.profile } : {}),
          );
          const fleet = new Fleet(minis);
          for (const m of minis) {
            fleet.reconcilePool(m.name);
            fleet.finishClones(m.name);
          }
          checkInvariants(fleet);
          let next = 0;
          for (const step of ops) {
            const mini = 'mini' in step ? minis[step.mini % minis.length]! : undefined;
            if (step.op === 'create') {
              const { cpu, memoryGiB } = step;
              const snapshot = step.restore
                ? { baseImage: IMAGES.split.name, diskGiB: IMAGES.split.diskGiB }
                : undefined;
              checkShortlist(fleet, { cpu, memoryGiB, snapshot });
              const result = schedule(fleet.input({ cpu, memoryGiB, snapshot }));
              if (!isScheduleFailure(result)) {
                const vm = fleet.find(result.vm);
                expect(vm.spec.sandbox).toBeUndefined();
                if (result.boot === 'warm') expect(vm.status?.phase).toBe('warm');
                fleet.claim(result, `ns/sb${next++}`);
              }
            } else if (step.op === 'delete' && fleet.sandboxes.length > 0) {
              fleet.release(fleet.sandboxes[step.index % fleet.sandboxes.length]!.name);
            } else if (step.op === 'pool' && !mini!.down) {
              const order = step.order;
              fleet.reconcilePool(
                mini!.name,
                { targetProfile: warmProfile(mini!, mini!.layout) },
                () => order,
              );
            } else if (step.op === 'finish' && !mini!.down) {
              fleet.finishClones(mini!.name);
            } else if (step.op === 'down') {
              mini!.down = true;
              for (const v of fleet.vms)
                if (v.spec.mini === mini!.name) v.status = { ...v.status, phase: 'down' };
            } else if (step.op === 'up') {
              mini!.down = false;
            }
            checkInvariants(fleet);
            // Requests that fit warm VMs as they are (random sizes seldom do): any size, and each
            // warm VM's own.
            checkShortlist(fleet, {});
            for (const v of fleet.vms.filter((x) => x.status?.phase === 'warm'))
              checkShortlist(fleet, { cpu: v.spec.cpu, memoryGiB: v.spec.memoryGiB });
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
