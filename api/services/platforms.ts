// The /v1/platforms catalog: every model with its layouts, price and Macs available now; and for
// the caller's reservation, the images and the free capacity on its Macs right now.
import {
  MAC_MODELS,
  MAC_PROFILES,
  macProfile,
  macShape,
  maxSandboxesPerMac,
  type Mini,
  type Rate,
  type Reservation,
  type WarmSlot,
} from '../../crds/index.ts';
import { holdsPlace, miniView, sandboxUse } from '../../operator/scheduler/index.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import { isMiniForSale } from '../../operator/reservation/minis.ts';
import { findReservation, isActive, isOccupied, listReservations } from './reservations.ts';

function slotWire(s: WarmSlot) {
  return { cpu: s.cpu, memory_gib: s.memoryGiB, image: s.image, disk_gib: s.diskGiB };
}

/** Every model for sale: its layouts, its rate, and how many of its Macs are free to reserve now. */
export function platformModels(
  minis: readonly Mini[],
  rates: readonly Rate[],
  occupied: (mini: Mini) => boolean,
) {
  return MAC_MODELS.map((model) => {
    const profile = MAC_PROFILES[model];
    return {
      mac_model: model,
      cores: profile.cores,
      memory_gib: profile.memoryGiB,
      layouts: { split: profile.layouts.split.map(slotWire), whole: profile.layouts.whole.map(slotWire) },
      // Free to reserve now, by the rule the reconciler binds by (a pool Mac is never for sale).
      available_minis: minis.filter((m) => isMiniForSale(m, model, occupied(m))).length,
      cents_per_hour: rates.find((r) => r.spec.macModel === model)?.spec.centsPerHour ?? null,
      pool_cents_per_sandbox_hour:
        rates.find((r) => r.spec.macModel === model)?.spec.poolCentsPerSandboxHour ?? null,
    };
  });
}

export async function platforms(ctx: ApiContext, principal: Principal, reservationId: string | undefined) {
  const [minis, rates] = await Promise.all([ctx.store.list<Mini>('Mini'), ctx.store.list<Rate>('Rate')]);
  const models = platformModels(minis.items, rates.items, (m) => isOccupied(ctx, m));
  const reservation = await reservationOf(ctx, principal, reservationId);
  return {
    models,
    reservation: reservation ? reservationCatalog(ctx, reservation, minis.items) : null,
  };
}

/** The reservation named, the key's own, or the account's only active one; none is fine. */
async function reservationOf(
  ctx: ApiContext,
  principal: Principal,
  id: string | undefined,
): Promise<Reservation | undefined> {
  if (id !== undefined || principal.reservation !== undefined)
    return findReservation(ctx, principal, (id ?? principal.reservation)!);
  const active = (await listReservations(ctx, principal)).filter((r) => isActive(r, ctx.clock.now()));
  if (active.length > 1) throw new ApiError('reservation_id_required');
  return active[0];
}

function reservationCatalog(ctx: ApiContext, reservation: Reservation, allMinis: Mini[]) {
  const names = new Set(reservation.status?.minis ?? []);
  const minis = allMinis.filter((m) => names.has(m.metadata.name));
  const fleet = ctx.reads.fleetOf(names);
  // The scheduler's rule of who holds a place: a failed or deleted sandbox frees its room.
  const uses = fleet.sandboxes.flatMap((s) => (holdsPlace(s) ? (sandboxUse(s) ?? []) : []));
  const images = new Map<string, number>();
  const miniWire = minis.map((m) => {
    const view = miniView(m);
    for (const img of view.images) images.set(img.name, img.diskGiB);
    const profile = macProfile(macShape(m.spec));
    const onMac = uses.filter((u) => u.mini === m.metadata.name);
    const usedCpu = onMac.reduce((n, u) => n + u.cpu, 0);
    const usedMem = onMac.reduce((n, u) => n + u.memoryGiB, 0);
    const warm = fleet.vms.filter(
      (vm) => vm.spec.mini === m.metadata.name && vm.status?.phase === 'warm' && !vm.spec.sandbox,
    );
    return {
      ip: m.spec.address,
      cores: profile.cores,
      memory_gib: profile.memoryGiB,
      sandboxes: onMac.length,
      max_sandboxes: maxSandboxesPerMac(view.layout, view.vmSlots),
      free_cpu: Math.max(0, profile.cores - usedCpu),
      free_memory_gib: Math.max(0, profile.memoryGiB - usedMem),
      warm_vms: warm.map((vm) =>
        slotWire({
          cpu: vm.spec.cpu,
          memoryGiB: vm.spec.memoryGiB,
          image: vm.spec.image,
          diskGiB: vm.spec.diskGiB,
        }),
      ),
    };
  });
  return {
    id: reservation.metadata.name,
    mac_model: reservation.spec.macModel,
    vm_layout: reservation.status?.layout ?? reservation.spec.vmLayout,
    images: [...images].map(([name, disk_gib]) => ({ name, disk_gib })),
    minis: miniWire,
  };
}
