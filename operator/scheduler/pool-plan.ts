// The pool's desired state for one Mac, as a pure function: which VMs should exist (one per slot of
// the warm profile), which to clone fresh or re-clone, which to discard, which warm VM to stop aside
// because the sandboxes leave too little room for it, and which stopped VM may return to the pool.
//
// Invariant kept (behavior rule 6): the VMs running on a Mac never add up to more than it has. The
// pool reconciler applies a plan in this order so that nothing starts before room is made:
//   1. discard, stopAside   2. clone (re-clones replace their VM)   3. returnToPool, start clones with run
// A busy Mac keeps its profile (spec rule 6: legacy profiles stay until the Mac is idle).
import { warmProfile, type VM, type WarmSlot } from '../../crds/index.ts';
import {
  ZERO,
  fits,
  isClaimed,
  isDirty,
  isRunningOrStarting,
  macCapacity,
  macLoad,
  minus,
  plus,
  runPreference,
  vmSize,
} from './capacity.ts';
import type { MiniView, SandboxUse, Size } from './types.ts';

export interface PoolPlanOptions {
  /** The model's current profile; adopted only while the Mac is idle (no sandboxes, no claimed VMs). */
  targetProfile?: WarmSlot[];
}

/** Why a VM is (re-)cloned. */
export type CloneReason = 'missing' | 'dirty' | 'down' | 'profile';

export interface CloneAction extends WarmSlot {
  slot: number;
  /** An existing VM to re-create under its own name (the driver discards it first). */
  replaces?: string;
  reason: CloneReason;
  /** Boot it once cloned (there is room); otherwise keep it stopped aside. */
  run: boolean;
}

export interface DesiredVm extends WarmSlot {
  slot: number;
  /** The VM serving the slot (kept or re-cloned); undefined: a new one is cloned. */
  vm?: string;
  run: boolean;
}

export interface PoolPlan {
  /** The profile in force after this plan; write it to `Mini.status.warmProfile`. */
  profile: WarmSlot[];
  profileChanged: boolean;
  /** The pool's VMs: one per slot not held by a sandbox. */
  desired: DesiredVm[];
  /** Surplus VMs (beyond the profile, or a second VM of one slot): delete them. */
  discard: string[];
  /** Warm (or cloning) VMs that no longer fit beside the sandboxes: stop, keep aside. */
  stopAside: string[];
  clone: CloneAction[];
  /** Stopped VMs that fit again: boot them back into the warm pool. */
  returnToPool: string[];
}

export function poolPlan(
  mini: MiniView,
  vms: VM[],
  sandboxes: SandboxUse[],
  opts: PoolPlanOptions = {},
): PoolPlan {
  const current = mini.warmProfile.length > 0 ? mini.warmProfile : warmProfile(mini, mini.layout);
  if (mini.down) return emptyPlan(current);
  const mine = vms.filter((vm) => vm.spec.mini === mini.name);
  const load = macLoad(mini.name, mine, sandboxes);
  const idle = load.sandboxes === 0;
  const target = opts.targetProfile;
  const profile = idle && target && !sameProfile(target, current) ? target : current;

  const { servers, discard, clone } = assignSlots(profile, mine);
  const recloned = new Set(clone.flatMap((c) => (c.replaces ? [c.replaces] : [])));
  const kept = [...servers.values()].filter((vm) => !recloned.has(vm.metadata.name)).sort(runPreference);
  const run = runDecisions(macCapacity(mini), load.sandboxUsed, mine, kept, clone, discard);

  const runByVm = new Map<string, boolean>();
  const stopAside: string[] = [];
  const returnToPool: string[] = [];
  kept.forEach((vm, i) => {
    const keep = run[i]!;
    runByVm.set(vm.metadata.name, keep);
    if (!keep && isRunningOrStarting(vm)) stopAside.push(vm.metadata.name);
    if (keep && vm.status?.phase === 'stopped') returnToPool.push(vm.metadata.name);
  });
  clone.forEach((c, i) => {
    c.run = run[kept.length + i]!;
  });

  const desired = profile.flatMap((slot, index): DesiredVm[] => {
    const server = servers.get(index);
    const cloned = clone.find((c) => c.slot === index);
    if (!server && !cloned) return []; // held by a sandbox
    const name = server?.metadata.name;
    const runs = cloned ? cloned.run : (runByVm.get(name!) ?? false);
    return [{ ...slot, slot: index, ...(name !== undefined && { vm: name }), run: runs }];
  });
  return { profile, profileChanged: profile !== current, desired, discard, stopAside, clone, returnToPool };
}

/**
 * Which VMs may run: the kept ones (running first, so nothing churns), then the clones, each while it
 * fits. Safe in any order of execution: a VM that is discarded or re-cloned still counts as running
 * until then, and a clone gets back the room of the VM it replaces only for itself.
 */
function runDecisions(
  capacity: Size,
  sandboxUsed: Size,
  vms: VM[],
  kept: VM[],
  clone: CloneAction[],
  discard: string[],
): boolean[] {
  const runningSize = (name: string | undefined): Size => {
    const vm = vms.find((v) => v.metadata.name === name);
    return vm && !isClaimed(vm) && isRunningOrStarting(vm) ? vmSize(vm) : ZERO;
  };
  let room = minus(capacity, sandboxUsed);
  for (const name of [...discard, ...clone.map((c) => c.replaces)]) room = minus(room, runningSize(name));
  const decide = (size: Size): boolean => {
    if (!fits(size, room)) return false;
    room = minus(room, size);
    return true;
  };
  const keptRuns = kept.map((vm) => decide(vmSize(vm)));
  const cloneRuns = clone.map((c) => {
    room = plus(room, runningSize(c.replaces));
    return decide(c);
  });
  return [...keptRuns, ...cloneRuns];
}

/**
 * Picks the VM serving each free slot: a clean VM before a dirty or down one, a running one before a
 * stopped one. Slots held by a claimed VM are not the pool's; VMs beyond the profile are surplus.
 */
function assignSlots(profile: WarmSlot[], vms: VM[]) {
  const held = new Set(vms.filter(isClaimed).map((vm) => vm.spec.slot));
  const servers = new Map<number, VM>();
  const discard: string[] = [];
  const clone: CloneAction[] = [];
  const unclaimed = vms
    .filter((vm) => !isClaimed(vm))
    .sort((a, b) => rank(needsReclone(a)) - rank(needsReclone(b)) || runPreference(a, b));
  for (const vm of unclaimed) {
    const slot = profile[vm.spec.slot];
    if (!slot || held.has(vm.spec.slot) || servers.has(vm.spec.slot)) {
      discard.push(vm.metadata.name);
      continue;
    }
    servers.set(vm.spec.slot, vm);
    const reason = needsReclone(vm) ?? (matches(vm, slot) ? undefined : 'profile');
    if (reason) clone.push({ ...slot, slot: vm.spec.slot, replaces: vm.metadata.name, reason, run: false });
  }
  profile.forEach((slot, index) => {
    if (!held.has(index) && !servers.has(index))
      clone.push({ ...slot, slot: index, reason: 'missing', run: false });
  });
  clone.sort((a, b) => a.slot - b.slot);
  return { servers, discard, clone };
}

function needsReclone(vm: VM): 'dirty' | 'down' | undefined {
  if (isDirty(vm)) return 'dirty';
  if (vm.status?.phase === 'down') return 'down';
  return undefined;
}

function rank(reason: string | undefined): number {
  return reason === undefined ? 0 : 1;
}

function matches(vm: VM, slot: WarmSlot): boolean {
  return sameSlot(vm.spec, slot);
}

function sameSlot(a: WarmSlot, b: WarmSlot): boolean {
  return a.cpu === b.cpu && a.memoryGiB === b.memoryGiB && a.image === b.image && a.diskGiB === b.diskGiB;
}

function sameProfile(a: WarmSlot[], b: WarmSlot[]): boolean {
  return a.length === b.length && a.every((slot, i) => b[i] !== undefined && sameSlot(slot, b[i]));
}

function emptyPlan(profile: WarmSlot[]): PoolPlan {
  return {
    profile,
    profileChanged: false,
    desired: [],
    discard: [],
    stopAside: [],
    clone: [],
    returnToPool: [],
  };
}
