// The spec's Mac models and layouts table: host capacity and the warm VM profile of each layout.
// The one source of truth for these numbers; the scheduler, the pool reconciler and the API read it.
import type { MacModel, MacShape, VmLayout } from './meta.ts';
import type { WarmSlot } from './mini.ts';

/**
 * Guest images of the 26.2 generation, with the disk size every VM cloned from them gets (Tart's
 * GB, 10^9 bytes, as `tart list` reports it). Split VMs run Cirrus Labs' base image as it is pulled
 * (its raw disk is 50 GB); whole VMs, which get a whole Mac, the same image grown to 100 GB (`tart
 * set --disk-size` only grows a disk). The fleet's `pull-images` step makes both (docs/fleet.md).
 */
export const IMAGES = {
  split: { name: 'base-macos-26', diskGiB: 50 },
  whole: { name: 'base-macos-26-whole', diskGiB: 100 },
} as const satisfies Record<VmLayout, { name: string; diskGiB: number }>;

export interface MacProfile {
  cores: number;
  memoryGiB: number;
  /** Nominal SSD size. */
  diskGiB: number;
  /** Warm VMs per layout, in slot order. */
  layouts: Record<VmLayout, WarmSlot[]>;
}

const split = (cpu: number, memoryGiB: number): WarmSlot => ({ cpu, memoryGiB, ...imageOf('split') });
const whole = (cpu: number, memoryGiB: number): WarmSlot => ({ cpu, memoryGiB, ...imageOf('whole') });
function imageOf(layout: VmLayout) {
  return { image: IMAGES[layout].name, diskGiB: IMAGES[layout].diskGiB };
}

export const MAC_PROFILES: Record<MacModel, MacProfile> = {
  m4: {
    cores: 10,
    memoryGiB: 16,
    diskGiB: 256,
    layouts: { split: [split(5, 8), split(5, 8)], whole: [whole(10, 16)] },
  },
  'm4-pro': {
    cores: 12,
    memoryGiB: 24,
    diskGiB: 512,
    layouts: { split: [split(6, 12), split(6, 12)], whole: [whole(12, 24)] },
  },
  'm5-pro': {
    cores: 15,
    memoryGiB: 24,
    diskGiB: 512,
    layouts: { split: [split(8, 12), split(7, 12)], whole: [whole(15, 24)] },
  },
};

/** The smallest sandbox (spec, Limits): the size of each slot of a Mac given `vmSlots`. */
export const SMALLEST_SANDBOX = { cpu: 2, memoryGiB: 4 } as const;

/**
 * The profile the scheduler, the pool and the host count with. A Mac of N `vmSlots` has N times the
 * smallest sandbox (so that N of them fit, and no more), keeps N of them warm in `split`, and one
 * VM of all of it in `whole`.
 */
export function macProfile(mac: MacShape): MacProfile {
  const base = MAC_PROFILES[mac.model];
  if (mac.vmSlots === undefined) return base;
  const cores = mac.vmSlots * SMALLEST_SANDBOX.cpu;
  const memoryGiB = mac.vmSlots * SMALLEST_SANDBOX.memoryGiB;
  return {
    cores,
    memoryGiB,
    diskGiB: base.diskGiB,
    layouts: {
      split: Array.from({ length: mac.vmSlots }, () =>
        split(SMALLEST_SANDBOX.cpu, SMALLEST_SANDBOX.memoryGiB),
      ),
      whole: [whole(cores, memoryGiB)],
    },
  };
}

export const DEFAULT_MAC_MODEL: MacModel = 'm4';
export const DEFAULT_VM_LAYOUT: VmLayout = 'split';

/** Sandboxes per Mac: 2 in split, 1 in whole (spec, Limits); a linux Mac's `vmSlots` in split. */
export function maxSandboxesPerMac(layout: VmLayout, vmSlots?: number): number {
  return layout === 'whole' ? 1 : (vmSlots ?? 2);
}

/** The warm profile a new reservation of this Mac and layout gets. */
export function warmProfile(mac: MacShape, layout: VmLayout): WarmSlot[] {
  return macProfile(mac).layouts[layout].map((s) => ({ ...s }));
}
