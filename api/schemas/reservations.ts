// Wire shapes of reservations: the spec's Reservation object, the create and edit requests.
import Type, { type Static } from 'typebox';
import { MAC_MODELS, VM_LAYOUTS } from '../../crds/meta.ts';
import { DEFAULT_MAC_MODEL, DEFAULT_VM_LAYOUT } from '../../crds/mac-models.ts';
import { MIN_RESERVATION_HOURS, RESERVATION_PHASES, ReservationSpec } from '../../crds/reservation.ts';
import { Nullable, limitOf } from './common.ts';

const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const ReservationIdSchema = Type.String({ pattern: UUID_PATTERN });
export const ReservationParams = Type.Object({
  reservationID: { ...ReservationIdSchema, description: 'The reservation id.' },
});

const MAC_MODEL = 'The Mac model; its Rate gives the price per Mac-hour.';
const VM_LAYOUT = 'split: two warm VMs per Mac; whole: one VM with the whole Mac.';

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
    mac_model: Type.Enum([...MAC_MODELS], { default: DEFAULT_MAC_MODEL, description: MAC_MODEL }),
    vm_layout: Type.Enum([...VM_LAYOUTS], { default: DEFAULT_VM_LAYOUT, description: VM_LAYOUT }),
  },
  { additionalProperties: false },
);
export type ReservationCreate = Static<typeof ReservationCreateSchema>;

export const ReservationEditSchema = Type.Object(
  {
    hours: Type.Optional(Hours),
    vm_layout: Type.Optional(
      Type.Enum([...VM_LAYOUTS], {
        description: `${VM_LAYOUT} Changing it needs every sandbox of the reservation deleted first.`,
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ReservationEdit = Static<typeof ReservationEditSchema>;

export const ReservationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The reservation id.' }),
    user_id: Type.String({ format: 'uuid', description: "The account's user id." }),
    mini_count: Type.Integer({ description: 'Number of Macs reserved.' }),
    hours: Type.Integer({ description: 'Length in hours (edits that extend it included).' }),
    start_at: Nullable(Type.String({ format: 'date-time' }), {
      description: 'When the reservation became active; null while pending.',
    }),
    end_at: Nullable(Type.String({ format: 'date-time' }), {
      description: 'When it ends (start plus hours); null while pending.',
    }),
    total_cents: Type.Integer({
      description: 'Price of the whole reservation in cents, at the rate of its purchase.',
    }),
    status: Type.Enum([...RESERVATION_PHASES], {
      description: 'pending, active, completing (ended, sandboxes being removed), completed, cancelled.',
    }),
    mini_ips: Type.Array(Type.String(), { description: 'Addresses of the Macs bound to it.' }),
    mac_model: Type.Enum([...MAC_MODELS], { description: MAC_MODEL }),
    vm_layout: Type.Enum([...VM_LAYOUTS], { description: `${VM_LAYOUT} The layout in force.` }),
    created_at: Type.String({ format: 'date-time', description: 'When the reservation was made.' }),
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
