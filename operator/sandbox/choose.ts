// Running the scheduler for one sandbox. The scheduler is one pure function over the reservation's
// Macs; on a 500-Mac reservation a call costs a few milliseconds, and a burst of creates makes that
// the bottleneck. So a warm create asks it first about a shortlist: the few Macs that have a free
// warm VM of the asked size and the fewest sandboxes (the ones the scheduler prefers anyway: warm
// before cold, then the Mac with fewer sandboxes). A warm choice there is a choice the scheduler
// made with every fact of those Macs; anything else (a refusal, a cold boot) is asked again over
// the whole reservation, so refusals and cold placements are exactly the scheduler's.
import type { VM } from '../../crds/index.ts';
import { scheduleOn, type ScheduleRequest, type ScheduleResult } from '../scheduler/index.ts';
import { Indexes, type OperatorContext } from '../context.ts';
import type { ClaimsInFlight } from './claims.ts';

const SHORTLIST = 4;

export function chooseVm(
  ctx: OperatorContext,
  claims: ClaimsInFlight,
  sandbox: string,
  minis: string[],
  request: ScheduleRequest,
): ScheduleResult {
  const vmsByMini = new Map(
    minis.map((n) => [n, claims.overlay(ctx.informers.vms.byIndex(Indexes.vmByMini, n))]),
  );
  const short = request.snapshot ? [] : shortlist(vmsByMini, request);
  if (short.length > 0 && short.length < minis.length) {
    const choice = run(ctx, sandbox, short, vmsByMini, request);
    if (!('error' in choice) && choice.boot === 'warm') return choice;
  }
  return run(ctx, sandbox, minis, vmsByMini, request);
}

function run(
  ctx: OperatorContext,
  sandbox: string,
  names: string[],
  vmsByMini: Map<string, VM[]>,
  request: ScheduleRequest,
): ScheduleResult {
  const minis = names.flatMap((n) => ctx.informers.minis.get(n) ?? []);
  const sandboxes = names.flatMap((n) => ctx.informers.sandboxes.byIndex(Indexes.sandboxByMini, n));
  const vms = names.flatMap((n) => vmsByMini.get(n) ?? []);
  return scheduleOn(minis, vms, sandboxes, request, sandbox);
}

/** Macs with a free warm VM that fits the request as is, fewest claimed VMs first. */
function shortlist(vmsByMini: Map<string, VM[]>, request: ScheduleRequest): string[] {
  const ranked: { name: string; claimed: number }[] = [];
  for (const [name, vms] of vmsByMini) {
    const free = vms.some(
      (vm) =>
        vm.status?.phase === 'warm' &&
        !vm.spec.sandbox &&
        vm.status.sandbox === undefined &&
        !vm.metadata.deletionTimestamp &&
        (request.cpu === undefined || request.cpu === vm.spec.cpu) &&
        (request.memoryGiB === undefined || request.memoryGiB === vm.spec.memoryGiB) &&
        (request.diskGiB === undefined || request.diskGiB === vm.spec.diskGiB),
    );
    if (free) ranked.push({ name, claimed: vms.filter((vm) => vm.spec.sandbox).length });
  }
  ranked.sort((a, b) => a.claimed - b.claimed || a.name.localeCompare(b.name));
  return ranked.slice(0, SHORTLIST).map((r) => r.name);
}
