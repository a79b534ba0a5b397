// The spec's Mac models and layouts table: host capacity and the warm VM profile of each layout.
// The one source of truth for these numbers; the scheduler, the pool reconciler and the API read it.
import type { MacModel, VmLayout } from './meta.ts';
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

export const DEFAULT_MAC_MODEL: MacModel = 'm4';
export const DEFAULT_VM_LAYOUT: VmLayout = 'split';

/** Sandboxes per Mac: 2 in split, 1 in whole (spec, Limits). */
export function maxSandboxesPerMac(layout: VmLayout): number {
  return layout === 'whole' ? 1 : 2;
}

/** The warm profile a new reservation of this model and layout gets. */
export function warmProfile(model: MacModel, layout: VmLayout): WarmSlot[] {
  return MAC_PROFILES[model].layouts[layout].map((s) => ({ ...s }));
}
