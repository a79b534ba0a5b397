import Type, { type Static } from 'typebox';
import {
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
    /** user: length in hours; edits may only add hours. */
    hours: Type.Integer({ minimum: MIN_RESERVATION_HOURS, maximum: 24 * 366 }),
    /** user: number of Macs. */
    miniCount: Type.Integer({ minimum: 1, maximum: 1000 }),
    /** user: hardware model (default m4). */
    macModel: MacModelSchema,
    /** user: warm layout (default split); a change needs all sandboxes stopped. */
    vmLayout: VmLayoutSchema,
    /** user: true cancels a pending reservation (refunded). */
    cancelled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ReservationSpec = Static<typeof ReservationSpec>;

export const ReservationStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum([...RESERVATION_PHASES])),
  startAt: Type.Optional(DateTime),
  endAt: Type.Optional(DateTime),
  /** reconciler: names and addresses of the bound Minis. */
  minis: Type.Optional(Type.Array(Type.String())),
  miniIps: Type.Optional(Type.Array(Type.String())),
  /** API: hourly rate per Mac at purchase, kept through later edits. */
  rateCents: Type.Optional(Type.Integer({ minimum: 0 })),
  /** API: hours paid for so far (edits pay only the difference). */
  paidHours: Type.Optional(Type.Integer({ minimum: 0 })),
  totalCents: Type.Optional(Type.Integer({ minimum: 0 })),
  /** reconciler: layout in force on the Macs. */
  layout: Type.Optional(VmLayoutSchema),
  /** reconciler: name of the ApiKey holding the reservation key's hash. */
  keyRef: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
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
