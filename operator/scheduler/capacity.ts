// Capacity arithmetic shared by `schedule` and `poolPlan`: what a Mac has, what its sandboxes (and
// dirty VMs not yet discarded) hold, and which unclaimed VMs may keep running in what is left.
//
// Consistency model: the inputs are one read of the store. A VM counts against the Mac from the
// moment it is claimed (`spec.sandbox` set by a conditional write) until it is discarded; unclaimed
// warm VMs never count against a request, because they are stopped aside to make room for it.
import { macProfile, type VM } from '../../crds/index.ts';
import type { MiniView, SandboxUse, Size } from './types.ts';

export const ZERO: Size = { cpu: 0, memoryGiB: 0 };

export function macCapacity(mini: MiniView): Size {
  const profile = macProfile(mini);
  return { cpu: profile.cores, memoryGiB: profile.memoryGiB };
}

export function fits(size: Size, room: Size): boolean {
  return size.cpu <= room.cpu && size.memoryGiB <= room.memoryGiB;
}

export function plus(a: Size, b: Size): Size {
  return { cpu: a.cpu + b.cpu, memoryGiB: a.memoryGiB + b.memoryGiB };
}

export function minus(a: Size, b: Size): Size {
  return { cpu: a.cpu - b.cpu, memoryGiB: a.memoryGiB - b.memoryGiB };
}

export function sameSize(a: Size, b: Size): boolean {
  return a.cpu === b.cpu && a.memoryGiB === b.memoryGiB;
}

export function formatSize(s: Size): string {
  return `${s.cpu} vCPU / ${s.memoryGiB} GiB`;
}

/** The size a VM is set to (spec: what the reconciler sized it to; a claim writes the new size). */
export function vmSize(vm: VM): Size {
  return { cpu: vm.spec.cpu, memoryGiB: vm.spec.memoryGiB };
}

export function isClaimed(vm: VM): boolean {
  return vm.spec.sandbox !== undefined;
}

/** Released by its sandbox but not yet discarded: it must be thrown away, never handed out again. */
export function isDirty(vm: VM): boolean {
  return !isClaimed(vm) && (vm.status?.sandbox !== undefined || vm.status?.phase === 'occupied');
}

/** Running, or about to run without asking the pool again (a clone boots when it finishes). */
export function isRunningOrStarting(vm: VM): boolean {
  const phase = vm.status?.phase ?? 'cloning';
  return phase === 'warm' || phase === 'occupied' || phase === 'cloning';
}

export interface MacLoad {
  /** Distinct sandboxes placed on the Mac (claimed VMs and listed sandboxes). */
  sandboxes: number;
  /** What those sandboxes hold, plus dirty VMs still running. */
  used: Size;
  /** What the sandboxes alone hold (the room they leave is what a request is checked against). */
  sandboxUsed: Size;
}

/**
 * What a Mac carries. A sandbox counts once, at the larger of its reported size and its claimed VM's
 * size (the claim writes the target size before the sandbox status catches up).
 */
export function macLoad(mini: string, vms: VM[], sandboxes: SandboxUse[]): MacLoad {
  const claimedBy = new Map<string, Size>();
  let dirty = ZERO;
  for (const vm of vms) {
    if (vm.spec.mini !== mini) continue;
    if (vm.spec.sandbox !== undefined) claimedBy.set(vm.spec.sandbox, vmSize(vm));
    else if (isDirty(vm) && isRunningOrStarting(vm)) dirty = plus(dirty, vmSize(vm));
  }
  const bySandbox = new Map<string, Size>(claimedBy);
  for (const sb of sandboxes) {
    if (sb.mini !== mini) continue;
    const vm = bySandbox.get(sb.name) ?? ZERO;
    bySandbox.set(sb.name, {
      cpu: Math.max(vm.cpu, sb.cpu),
      memoryGiB: Math.max(vm.memoryGiB, sb.memoryGiB),
    });
  }
  let sandboxUsed = ZERO;
  for (const size of bySandbox.values()) sandboxUsed = plus(sandboxUsed, size);
  return { sandboxes: bySandbox.size, used: plus(sandboxUsed, dirty), sandboxUsed };
}

const RUN_ORDER: Record<string, number> = { warm: 0, cloning: 1, stopped: 2 };

/** Orders unclaimed VMs for keeping: running ones first (no churn), then by slot and name. */
export function runPreference(a: VM, b: VM): number {
  const pa = RUN_ORDER[a.status?.phase ?? 'cloning'] ?? 3;
  const pb = RUN_ORDER[b.status?.phase ?? 'cloning'] ?? 3;
  return pa - pb || a.spec.slot - b.spec.slot || a.metadata.name.localeCompare(b.metadata.name);
}

/**
 * Greedy fit: keeps each size running while it fits in `room`, in the given order; the rest are
 * parked. Returns the indexes to run.
 */
export function fitInRoom(sizes: Size[], room: Size): boolean[] {
  let left = room;
  return sizes.map((size) => {
    if (!fits(size, left)) return false;
    left = minus(left, size);
    return true;
  });
}
