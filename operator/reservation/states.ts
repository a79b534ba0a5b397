// Reservation status transitions. The spec lists the states and says "transitions: not shown";
// these are the ones we chose (docs/operator.md explains each).
import type { ReservationPhase } from '../../crds/index.ts';
import { stateMachine } from '../runtime/fsm.ts';

export const RESERVATION_EVENTS = [
  /** Paid, Macs bound, key issued. */
  'activate',
  /** The customer cancelled before activation (refunded). */
  'cancel',
  /** Too few Macs of the model were available (refunded). */
  'noMinis',
  /** The ledger could not cover the price. */
  'noCredit',
  /** More hours or a layout change (price kept). */
  'edit',
  /** `end_at` passed, or the reservation was deleted. */
  'expire',
  /** Every sandbox gone, key revoked, Macs released. */
  'cleaned',
] as const;
export type ReservationEvent = (typeof RESERVATION_EVENTS)[number];

export const RESERVATION_STATES: readonly ReservationPhase[] = [
  'pending',
  'active',
  'completing',
  'completed',
  'cancelled',
];

export const reservationMachine = stateMachine<ReservationPhase, ReservationEvent>(
  'Reservation',
  RESERVATION_STATES,
  RESERVATION_EVENTS,
  {
    pending: { activate: 'active', cancel: 'cancelled', noMinis: 'cancelled', noCredit: 'cancelled' },
    active: { edit: 'active', expire: 'completing' },
    completing: { cleaned: 'completed' },
    completed: {},
    cancelled: {},
  },
);
