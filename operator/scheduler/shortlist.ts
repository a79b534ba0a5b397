// Running the scheduler for one create over many Macs. The scheduler is one pure function over the
// Macs it is given; on a 50- or 500-Mac reservation a call costs a millisecond or more, and a burst
// of creates (the API's check and the reconciler's placement each run it) makes that the
// bottleneck. So a warm create asks it first about a shortlist: the few Macs that have a free warm
// VM of the asked size and the fewest claimed VMs (the ones the scheduler prefers anyway: warm
// before cold, then the Mac with fewer sandboxes). A warm choice there is a choice the scheduler
// made with every fact of those Macs; anything else (a refusal, a cold boot) is asked again over
// all of them, so refusals and cold placements are exactly the scheduler's.
import type { VM } from '../../crds/index.ts';
import type { ScheduleRequest, ScheduleResult } from './types.ts';

const SHORTLIST = 4;

/**
 * How the Macs to ask first are picked: `ranked`, the SHORTLIST with the fewest claimed VMs (what
 * the reconciler binds with: the scheduler's own preference); `first`, the first Mac in `names` with
 * a free warm VM (the API's check, which only needs to know whether the request can be placed: its
 * answer is the same, and it stops looking at the first hit instead of scanning every Mac).
 */
export type ShortlistMode = 'ranked' | 'first';

/**
 * `run(names)` runs the scheduler over those Macs; `vmsOf(name)` gives a Mac's VMs as the scheduler
 * will see them (claims in flight included).
 */
export function scheduleShortlisted(
  names: readonly string[],
  vmsOf: (mini: string) => readonly VM[],
  request: ScheduleRequest,
  run: (names: readonly string[]) => ScheduleResult,
  mode: ShortlistMode = 'ranked',
): ScheduleResult {
  // A restore boots cold anyway; a pinned request has one Mac to look at.
  const short =
    request.snapshot || request.host !== undefined
      ? []
      : mode === 'first'
        ? firstWithFreeWarm(names, vmsOf, request)
        : shortlist(names, vmsOf, request);
  if (short.length > 0 && short.length < names.length) {
    const choice = run(short);
    if (!('error' in choice) && choice.boot === 'warm') return choice;
  }
  return run(names);
}

/** A running warm VM that no sandbox holds, of the asked size where it asks one. */
function freeWarmFor(vm: VM, request: ScheduleRequest): boolean {
  return (
    vm.status?.phase === 'warm' &&
    !vm.spec.sandbox &&
    vm.status.sandbox === undefined &&
    !vm.metadata.deletionTimestamp &&
    (request.cpu === undefined || request.cpu === vm.spec.cpu) &&
    (request.memoryGiB === undefined || request.memoryGiB === vm.spec.memoryGiB) &&
    (request.diskGiB === undefined || request.diskGiB === vm.spec.diskGiB)
  );
}

/** Macs with a free warm VM that fits the request as is, fewest claimed VMs first. */
function shortlist(
  names: readonly string[],
  vmsOf: (mini: string) => readonly VM[],
  request: ScheduleRequest,
): string[] {
  const ranked: { name: string; claimed: number }[] = [];
  for (const name of names) {
    const vms = vmsOf(name);
    if (vms.some((vm) => freeWarmFor(vm, request)))
      ranked.push({ name, claimed: vms.filter((vm) => vm.spec.sandbox).length });
  }
  ranked.sort((a, b) => a.claimed - b.claimed || a.name.localeCompare(b.name));
  return ranked.slice(0, SHORTLIST).map((r) => r.name);
}

/** The first Mac with a free warm VM that fits the request as is. */
function firstWithFreeWarm(
  names: readonly string[],
  vmsOf: (mini: string) => readonly VM[],
  request: ScheduleRequest,
): string[] {
  for (const name of names) if (vmsOf(name).some((vm) => freeWarmFor(vm, request))) return [name];
  return [];
}
