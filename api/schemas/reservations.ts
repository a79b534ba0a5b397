// Wire shapes of reservations: the spec's Reservation object, the create and edit requests.
import Type, { type Static } from 'typebox';
import { MAC_MODELS, VM_LAYOUTS } from '../../crds/meta.ts';
import { DEFAULT_MAC_MODEL, DEFAULT_VM_LAYOUT } from '../../crds/mac-models.ts';
import { MIN_RESERVATION_HOURS, RESERVATION_PHASES, ReservationSpec } from '../../crds/reservation.ts';
import { NullableDateTime, limitOf } from './common.ts';

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const ReservationIdSchema = Type.String({ pattern: UUID_PATTERN });
export const ReservationParams = Type.Object({ reservationID: ReservationIdSchema });

const Hours = Type.Integer({
  minimum: MIN_RESERVATION_HOURS,
  maximum: limitOf(ReservationSpec.properties.hours, 'maximum'),
  description: `Length in hours; at least ${MIN_RESERVATION_HOURS}.`,
});

export const ReservationCreateSchema = Type.Object(
  {
    hours: Hours,
    mini_count: Type.Integer({
      minimum: 1,
      maximum: limitOf(ReservationSpec.properties.miniCount, 'maximum'),
      default: 1,
      description: 'Number of Macs.',
    }),
    mac_model: Type.Enum([...MAC_MODELS], { default: DEFAULT_MAC_MODEL }),
    vm_layout: Type.Enum([...VM_LAYOUTS], { default: DEFAULT_VM_LAYOUT }),
  },
  { additionalProperties: false },
);
export type ReservationCreate = Static<typeof ReservationCreateSchema>;

export const ReservationEditSchema = Type.Object(
  {
    hours: Type.Optional(Hours),
    vm_layout: Type.Optional(Type.Enum([...VM_LAYOUTS])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ReservationEdit = Static<typeof ReservationEditSchema>;

export const ReservationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    user_id: Type.String({ format: 'uuid' }),
    mini_count: Type.Integer(),
    hours: Type.Integer(),
    start_at: NullableDateTime,
    end_at: NullableDateTime,
    total_cents: Type.Integer(),
    status: Type.Enum([...RESERVATION_PHASES]),
    mini_ips: Type.Array(Type.String()),
    mac_model: Type.Enum([...MAC_MODELS]),
    vm_layout: Type.Enum([...VM_LAYOUTS]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { description: 'A reservation of Macs.' },
);
export type ReservationWire = Static<typeof ReservationSchema>;

export const ReservationCreatedSchema = Type.Object({
  ...ReservationSchema.properties,
  key: Type.String({
    description: 'The reservation key, shown once: only its SHA-256 hash is stored.',
  }),
});
