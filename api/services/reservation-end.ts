// A reservation's end in ms, parsed once per cached reservation object (an update replaces the
// object): authentication of reservation keys and every viewer link answered check it.
import type { Reservation } from '../../crds/index.ts';

const endAtMsOf = new WeakMap<Reservation, number>();

/** The reservation's end in ms (Infinity without one; NaN, never after `now`, when unparseable). */
export function endAtMs(reservation: Reservation): number {
  let ms = endAtMsOf.get(reservation);
  if (ms === undefined) {
    const endAt = reservation.status?.endAt;
    endAtMsOf.set(reservation, (ms = endAt === undefined ? Infinity : Date.parse(endAt)));
  }
  return ms;
}
