// Binding and releasing a reservation's Macs. A Mini is bound by a conditional write of its status
// (reservation, phase, layout, warm profile), so two reservations can never take the same Mac.
import {
  DEFAULT_VM_LAYOUT,
  macShape,
  warmProfile,
  type Mini,
  type Reservation,
  type VmLayout,
} from '../../crds/index.ts';
import { Indexes, type OperatorContext } from '../context.ts';
import { miniMachine } from '../mini/states.ts';

/**
 * A Mac of `model` free for a new reservation: schedulable, not a pool Mac, not being deleted,
 * available, bound to no reservation, and holding no sandbox (`occupied`: a pool sandbox still on a
 * Mac whose `pool` was just turned off). The API checks a purchase against the same rule the
 * reconciler binds by.
 */
export function isMiniForSale(m: Mini, model: string, occupied: boolean): boolean {
  return (
    m.spec.model === model &&
    m.spec.schedulable !== false &&
    m.spec.pool !== true &&
    !occupied &&
    !m.metadata.deletionTimestamp &&
    m.status?.phase === 'available' &&
    m.status.reservation === undefined
  );
}

/** Macs of `model` free for a new reservation, in name order. */
export function availableMinis(ctx: OperatorContext, model: string): Mini[] {
  const occupied = (m: Mini) =>
    ctx.informers.sandboxes.byIndex(Indexes.sandboxByMini, m.metadata.name).length > 0;
  return ctx.informers.minis
    .list()
    .filter((m) => isMiniForSale(m, model, occupied(m)))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

export function boundMinis(ctx: OperatorContext, reservationKey: string): Mini[] {
  return ctx.informers.minis
    .byIndex(Indexes.miniByReservation, reservationKey)
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

/** Binds a free Mac: a new reservation gets the model's current profile for its layout. */
export async function bindMini(
  ctx: OperatorContext,
  mini: Mini,
  reservation: string,
  layout: VmLayout,
): Promise<void> {
  await ctx.client.patch<Mini>(
    { kind: 'Mini', name: mini.metadata.name },
    {
      status: {
        reservation,
        phase: miniMachine.transition('available', 'bind'),
        layout,
        warmProfile: warmProfile(macShape(mini.spec), layout),
      },
    },
    { subresource: 'status', resourceVersion: mini.metadata.resourceVersion! },
  );
}

/** Sets a new layout on a bound, idle Mac (a layout edit; all its sandboxes are stopped). */
export async function relayoutMini(ctx: OperatorContext, mini: Mini, layout: VmLayout): Promise<void> {
  if (mini.status?.layout === layout) return;
  await ctx.client.patch<Mini>(
    { kind: 'Mini', name: mini.metadata.name },
    { status: { layout, warmProfile: warmProfile(macShape(mini.spec), layout) } },
    { subresource: 'status', resourceVersion: mini.metadata.resourceVersion! },
  );
}

/** Returns every Mac of the reservation to the available pool with its default layout. */
export async function releaseMinis(ctx: OperatorContext, reservationKey: string): Promise<void> {
  for (const mini of boundMinis(ctx, reservationKey)) {
    const layout = mini.spec.defaultLayout ?? DEFAULT_VM_LAYOUT;
    const from = mini.status?.phase === 'down' ? 'down' : 'reserved';
    await ctx.client.patch<Mini>(
      { kind: 'Mini', name: mini.metadata.name },
      {
        status: {
          reservation: null,
          phase: miniMachine.transition(from, 'release'),
          layout,
          warmProfile: warmProfile(macShape(mini.spec), layout),
        },
      },
      { subresource: 'status', resourceVersion: mini.metadata.resourceVersion! },
    );
  }
}

export function miniIpsOf(minis: Mini[]): string[] {
  return minis.map((m) => m.spec.address);
}

export function reservationKey(r: Reservation): string {
  return `${r.metadata.namespace ?? ''}/${r.metadata.name}`;
}
