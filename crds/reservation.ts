import Type, { type Static } from 'typebox';
import {
  doc,
  DateTime,
  MacModelSchema,
  StatusBase,
  VmLayoutSchema,
  resourceSchema,
  type KindDefinition,
} from './meta.ts';

export const RESERVATION_PHASES = ['pending', 'active', 'completing', 'completed', 'cancelled'] as const;
export type ReservationPhase = (typeof RESERVATION_PHASES)[number];

/** Minimum reservation length (spec, Limits). */
export const MIN_RESERVATION_HOURS = 24;

/** Namespace: the account. */
export const ReservationSpec = Type.Object(
  {
    hours: doc(
      'user: length in hours; edits may only add hours.',
      Type.Integer({ minimum: MIN_RESERVATION_HOURS, maximum: 24 * 366 }),
    ),
    miniCount: doc('user: number of Macs.', Type.Integer({ minimum: 1, maximum: 1000 })),
    macModel: doc('user: hardware model (default m4).', MacModelSchema),
    vmLayout: doc('user: warm layout (default split); a change needs all sandboxes stopped.', VmLayoutSchema),
    cancelled: doc('user: true cancels a pending reservation (refunded).', Type.Optional(Type.Boolean())),
  },
  { additionalProperties: false },
);
export type ReservationSpec = Static<typeof ReservationSpec>;

export const ReservationStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `pending` (waiting for Macs), `active`, `completing` (end_at passed, cleanup running), `completed`, `cancelled`.',
    Type.Optional(Type.Enum([...RESERVATION_PHASES])),
  ),
  startAt: doc('reconciler: when the reservation became active.', Type.Optional(DateTime)),
  endAt: doc('reconciler: when it ends: start plus the paid hours.', Type.Optional(DateTime)),
  minis: doc('reconciler: names and addresses of the bound Minis.', Type.Optional(Type.Array(Type.String()))),
  miniIps: doc(
    'reconciler: addresses of the bound Minis, in the order of `minis`.',
    Type.Optional(Type.Array(Type.String())),
  ),
  rateCents: doc(
    'API: hourly rate per Mac at purchase, kept through later edits.',
    Type.Optional(Type.Integer({ minimum: 0 })),
  ),
  paidHours: doc(
    'API: hours paid for so far (edits pay only the difference).',
    Type.Optional(Type.Integer({ minimum: 0 })),
  ),
  totalCents: doc(
    'API: everything charged for this reservation so far, in cents.',
    Type.Optional(Type.Integer({ minimum: 0 })),
  ),
  layout: doc('reconciler: layout in force on the Macs.', Type.Optional(VmLayoutSchema)),
  keyRef: doc(
    "reconciler: name of the ApiKey holding the reservation key's hash.",
    Type.Optional(Type.String()),
  ),
  message: doc('reconciler: why the reservation is in its phase, for people.', Type.Optional(Type.String())),
});
export type ReservationStatus = Static<typeof ReservationStatus>;

export const ReservationSchema = resourceSchema('Reservation', ReservationSpec, ReservationStatus);
export type Reservation = Static<typeof ReservationSchema>;

export const ReservationKind: KindDefinition = {
  kind: 'Reservation',
  plural: 'reservations',
  singular: 'reservation',
  shortNames: ['rsv'],
  scope: 'Namespaced',
  schema: ReservationSchema,
  description: 'Macs of one model leased to an account for at least 24 hours, paid up front.',
  printerColumns: [
    { name: 'Model', type: 'string', jsonPath: '.spec.macModel' },
    { name: 'Minis', type: 'integer', jsonPath: '.spec.miniCount' },
    { name: 'Hours', type: 'integer', jsonPath: '.spec.hours' },
    { name: 'Layout', type: 'string', jsonPath: '.spec.vmLayout' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'End', type: 'date', jsonPath: '.status.endAt' },
  ],
};
