// The scheduler: one pure function from (the reservation's Macs, their VMs and sandboxes, a request)
// to a choice of VM or a spec error code. No I/O, no clock: the API calls it to answer capacity errors
// at once, the sandbox reconciler calls it to bind (then claims the VM by a conditional write, so two
// creates deciding on the same read can never both win it).
//
// Rules (spec "Mac models and layouts", behavior rules 4–6), and where each lives:
// - omitted size fields take the warm size of the slot the sandbox lands in (`effectiveSize`);
// - a running warm VM of exactly that size is used as is (`boot: warm`); any other size, or a stopped
//   VM, or a restore boots cold (`candidateOn`);
// - per Mac at most 2 sandboxes (1 whole); together they may use all its cores and memory (`verdictOn`);
// - warm VMs that would no longer fit are stopped aside first (`stopAside`);
// - a pin (`host`) leaves only that Mac to choose from (`pinnedMacs`);
// - refusals are ranked so the caller hears the most hopeful reason (`ERROR_RANK`).
import {
  MIN_CPU,
  MIN_MEMORY_GIB,
  maxSandboxesPerMac,
  warmProfile,
  type VM,
  type WarmSlot,
} from '../../crds/index.ts';
import {
  fitInRoom,
  fits,
  formatSize,
  isClaimed,
  isDirty,
  isRunningOrStarting,
  macCapacity,
  macLoad,
  minus,
  runPreference,
  sameSize,
  vmSize,
  type MacLoad,
} from './capacity.ts';
import type { ScheduleErrorCode } from './errors.ts';
import type {
  MiniView,
  ScheduleChoice,
  ScheduleFailure,
  ScheduleInput,
  ScheduleRequest,
  ScheduleResult,
  Size,
} from './types.ts';

/** Why one Mac cannot take the request; the higher the rank, the closer it came. */
type Refusal = 'resources_exceed_mac' | 'sandbox_limit_reached' | 'insufficient_capacity' | 'no_warm_vm';
const ERROR_RANK: Record<Refusal, number> = {
  resources_exceed_mac: 0,
  sandbox_limit_reached: 1,
  insufficient_capacity: 2,
  no_warm_vm: 3,
};

interface Candidate extends ScheduleChoice {
  slot: number;
  sandboxesOnMac: number;
  /** On the Mac the request prefers (`near`). */
  near: boolean;
}

type Verdict =
  | { ok: true; candidates: Candidate[] }
  | { ok: false; refusal: Refusal; mini: MiniView; free: Size; reason: string };

export function schedule(input: ScheduleInput): ScheduleResult {
  const { request } = input;
  const invalid = validateRequest(request, input.minis);
  if (invalid) return invalid;
  if (input.minis.length === 0) {
    return failure('no_warm_vm', 'the reservation has no Macs bound yet; retry shortly');
  }
  const macs = request.host === undefined ? input.minis : pinnedMacs(input.minis, request.host);
  if (macs.length === 0) return pinRefused(input.minis, request.host!);
  const eligible = request.snapshot ? macsWithBase(macs, request.snapshot) : macs;
  if (eligible.length === 0) return baseUnavailable(macs, request.snapshot!);

  const verdicts = eligible
    .filter(
      (mini) =>
        request.snapshot ||
        request.diskGiB === undefined ||
        profileOf(mini).some((s) => s.diskGiB === request.diskGiB),
    )
    .map((mini) => verdictOn(mini, input));
  const candidates = verdicts.flatMap((v) => (v.ok ? v.candidates : []));
  if (candidates.length > 0) return choiceOf(candidates.sort(byPreference)[0]!);
  return refusalOf(
    verdicts.filter((v) => !v.ok),
    request,
  );
}

// ---- request validation (before anything about the fleet) ----

/**
 * The size check alone (`invalid_size`): it needs nothing about the fleet, so the API answers it
 * before looking for a reservation, as the docs order the checks.
 */
export function sizeFailure({ cpu, memoryGiB }: ScheduleRequest): ScheduleFailure | undefined {
  if (cpu !== undefined && (!Number.isInteger(cpu) || cpu < MIN_CPU)) {
    return failure(
      'invalid_size',
      `cpu must be an integer of at least ${MIN_CPU} (the smallest sandbox is ${MIN_CPU} vCPU / ${MIN_MEMORY_GIB} GiB); got ${cpu}`,
    );
  }
  if (memoryGiB !== undefined && (!Number.isInteger(memoryGiB) || memoryGiB < MIN_MEMORY_GIB)) {
    return failure(
      'invalid_size',
      `memory_gib must be an integer of at least ${MIN_MEMORY_GIB} (the smallest sandbox is ${MIN_CPU} vCPU / ${MIN_MEMORY_GIB} GiB); got ${memoryGiB}`,
    );
  }
  return undefined;
}

function validateRequest(request: ScheduleRequest, minis: MiniView[]): ScheduleFailure | undefined {
  const { diskGiB, snapshot } = request;
  const size = sizeFailure(request);
  if (size || diskGiB === undefined) return size;
  const allowed = snapshot
    ? [snapshot.diskGiB]
    : [...new Set(minis.flatMap((m) => profileOf(m).map((s) => s.diskGiB)))];
  if (Number.isInteger(diskGiB) && (allowed.length === 0 || allowed.includes(diskGiB))) return undefined;
  const what = snapshot ? `the snapshot's base image ${snapshot.baseImage}` : 'the image';
  return failure(
    'invalid_disk_size',
    `disk_gib must equal ${what}'s disk size (${allowed.join(' or ')} GiB); disks are not resized at create; got ${diskGiB}`,
  );
}

// ---- a pin (the create's `host`): one Mac, by Mini name or address ----

function pinnedMacs(minis: MiniView[], host: string): MiniView[] {
  return minis.filter((m) => m.name === host || m.address === host);
}

/** How many of the caller's Macs a refused pin lists (a reservation may hold hundreds). */
const PIN_LISTED = 5;

function pinRefused(minis: MiniView[], host: string): ScheduleFailure {
  const named = minis.slice(0, PIN_LISTED).map((m) => (m.address ? `${m.name} (${m.address})` : m.name));
  const more = minis.length > PIN_LISTED ? ` and ${minis.length - PIN_LISTED} more` : '';
  return failure(
    'host_not_reserved',
    `body/host: ${JSON.stringify(host)} is not one of the Macs this sandbox may run on: ${named.join(', ')}${more}; pin one of them by Mini name or IP, or omit host`,
  );
}

// ---- snapshot base (decided before claiming anything) ----

/** The images a Mac has: those it reports, and the ones its warm VMs are cloned from. */
function imagesOf(mini: MiniView): { name: string; diskGiB: number }[] {
  return [...mini.images, ...profileOf(mini).map((s) => ({ name: s.image, diskGiB: s.diskGiB }))];
}

function macsWithBase(minis: MiniView[], base: { baseImage: string; diskGiB: number }): MiniView[] {
  return minis.filter((m) =>
    imagesOf(m).some((i) => i.name === base.baseImage && i.diskGiB === base.diskGiB),
  );
}

function baseUnavailable(minis: MiniView[], base: { baseImage: string; diskGiB: number }): ScheduleFailure {
  const sameName = minis.flatMap(imagesOf).find((i) => i.name === base.baseImage);
  const why = sameName
    ? `its disk size differs (snapshot ${base.diskGiB} GiB, Macs ${sameName.diskGiB} GiB)`
    : `no Mac of the reservation has the image ${base.baseImage}`;
  return failure('snapshot_base_unavailable', `the snapshot's base image cannot be restored here: ${why}`);
}

// ---- one Mac ----

function profileOf(mini: MiniView): WarmSlot[] {
  return mini.warmProfile.length > 0 ? mini.warmProfile : warmProfile(mini, mini.layout);
}

/** Omitted fields take the warm size of the slot the sandbox would land in. */
function effectiveSize(request: ScheduleRequest, slot: WarmSlot): Size {
  return { cpu: request.cpu ?? slot.cpu, memoryGiB: request.memoryGiB ?? slot.memoryGiB };
}

function verdictOn(mini: MiniView, input: ScheduleInput): Verdict {
  const { request } = input;
  const vms = input.vms.filter((vm) => vm.spec.mini === mini.name);
  const load = macLoad(mini.name, vms, input.sandboxes);
  const capacity = macCapacity(mini);
  const free = minus(capacity, load.sandboxUsed);
  const sizes = profileOf(mini).map((slot) => effectiveSize(request, slot));
  const refuse = (refusal: Refusal, reason: string): Verdict => ({ ok: false, refusal, mini, free, reason });

  if (sizes.every((s) => !fits(s, capacity)))
    return refuse('resources_exceed_mac', `${mini.name} (${mini.model}) has ${formatSize(capacity)}`);
  const max = maxSandboxesPerMac(mini.layout, mini.vmSlots);
  if (load.sandboxes >= max)
    return refuse('sandbox_limit_reached', `${mini.name} runs ${load.sandboxes} of ${max}`);
  if (sizes.every((s) => !fits(s, free)))
    return refuse('insufficient_capacity', `${mini.name} has ${formatSize(free)} free`);
  if (mini.down) return refuse('no_warm_vm', `${mini.name} is down`);

  const candidates = vms.flatMap((vm) => candidateOn(mini, vm, vms, load, request) ?? []);
  if (candidates.length === 0)
    return refuse('no_warm_vm', `no VM of ${mini.name} is free (cloning, busy or down)`);
  return { ok: true, candidates };
}

function candidateOn(
  mini: MiniView,
  vm: VM,
  vms: VM[],
  load: MacLoad,
  request: ScheduleRequest,
): Candidate | undefined {
  const phase = vm.status?.phase;
  if ((phase !== 'warm' && phase !== 'stopped') || isClaimed(vm) || isDirty(vm)) return undefined;
  const slot = profileOf(mini)[vm.spec.slot];
  if (!slot) return undefined; // beyond the profile: the pool discards it
  const size = effectiveSize(request, slot);
  // Dirty VMs still running count here: until they are discarded the Mac really has less.
  if (!fits(size, minus(macCapacity(mini), load.used))) return undefined;
  const image = request.snapshot
    ? { name: request.snapshot.baseImage, diskGiB: request.snapshot.diskGiB }
    : { name: slot.image, diskGiB: slot.diskGiB };
  if (request.diskGiB !== undefined && request.diskGiB !== image.diskGiB) return undefined;
  const reclone = vm.spec.image !== image.name || vm.spec.diskGiB !== image.diskGiB;
  const resize = !sameSize(vmSize(vm), size);
  const warm = phase === 'warm' && !resize && !reclone && !request.snapshot;
  return {
    mini: mini.name,
    vm: vm.metadata.name,
    boot: warm ? 'warm' : 'cold',
    cpu: size.cpu,
    memoryGiB: size.memoryGiB,
    resize,
    fromStopped: phase === 'stopped',
    image: image.name,
    diskGiB: image.diskGiB,
    reclone,
    stopAside: stopAside(mini, vm, vms, minus(minus(macCapacity(mini), load.used), size)),
    slot: vm.spec.slot,
    sandboxesOnMac: load.sandboxes,
    near: request.near === mini.name,
  };
}

/** The other unclaimed VMs that would run (warm, or cloning and about to boot) but no longer fit. */
function stopAside(mini: MiniView, chosen: VM, vms: VM[], room: Size): string[] {
  const others = vms
    .filter((vm) => vm !== chosen && !isClaimed(vm) && !isDirty(vm) && vm.spec.mini === mini.name)
    .filter((vm) => vm.status?.phase !== 'down' && isRunningOrStarting(vm))
    .sort(runPreference);
  const keep = fitInRoom(others.map(vmSize), room);
  return others.filter((_, i) => !keep[i]).map((vm) => vm.metadata.name);
}

// ---- choosing ----

/**
 * Tie-breaks, in order: warm before cold; the Mac the request prefers (a fork's source Mac: its disk
 * is copied there without being moved); the Mac with fewer sandboxes (spread); a stopped-aside VM
 * before a running one (it boots next, and the warm one stays warm); no re-clone, no resize; fewer
 * warm VMs stopped aside; then Mac name, slot and VM name, so the choice is deterministic.
 */
function byPreference(a: Candidate, b: Candidate): number {
  return (
    rank(a.boot === 'cold') - rank(b.boot === 'cold') ||
    rank(!a.near) - rank(!b.near) ||
    a.sandboxesOnMac - b.sandboxesOnMac ||
    rank(!a.fromStopped) - rank(!b.fromStopped) ||
    rank(a.reclone) - rank(b.reclone) ||
    rank(a.resize) - rank(b.resize) ||
    a.stopAside.length - b.stopAside.length ||
    a.mini.localeCompare(b.mini) ||
    a.slot - b.slot ||
    a.vm.localeCompare(b.vm)
  );
}

function rank(flag: boolean): number {
  return flag ? 1 : 0;
}

function choiceOf(c: Candidate): ScheduleChoice {
  const { slot: _slot, sandboxesOnMac: _count, near: _near, ...choice } = c;
  return choice;
}

function refusalOf(verdicts: Verdict[], request: ScheduleRequest): ScheduleFailure {
  const refused = verdicts.flatMap((v) => (v.ok ? [] : [v]));
  if (refused.length === 0)
    return failure('no_warm_vm', 'no Mac of the reservation can take this request right now');
  const best = refused.reduce((a, b) => (ERROR_RANK[b.refusal] > ERROR_RANK[a.refusal] ? b : a));
  const asked = describeRequest(request);
  const reasons = refused
    .filter((v) => v.refusal === best.refusal)
    .map((v) => v.reason)
    .join('; ');
  const messages: Record<Refusal, string> = {
    resources_exceed_mac: `${asked} is larger than the whole Mac (${reasons})`,
    sandbox_limit_reached: `every Mac of the reservation already runs its maximum of sandboxes (${reasons}); delete one first`,
    insufficient_capacity: `${asked} is larger than what your other sandboxes leave free (${reasons}); delete one or ask for less`,
    no_warm_vm: `${asked} fits, but no VM is available right now (${reasons}); retry shortly`,
  };
  return failure(best.refusal, messages[best.refusal]);
}

function describeRequest(r: ScheduleRequest): string {
  const cpu = r.cpu === undefined ? 'default vCPU' : `${r.cpu} vCPU`;
  const mem = r.memoryGiB === undefined ? 'default memory' : `${r.memoryGiB} GiB`;
  return `the requested ${cpu} / ${mem}`;
}

function failure(error: ScheduleErrorCode, message: string): ScheduleFailure {
  return { error, message };
}
