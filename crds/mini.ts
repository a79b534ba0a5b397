import Type, { type Static } from 'typebox';
import {
  DateTime,
  DRIVERS,
  MacModelSchema,
  StatusBase,
  VmLayoutSchema,
  resourceSchema,
  type KindDefinition,
} from './meta.ts';

export const MINI_PHASES = ['pending', 'available', 'reserved', 'down'] as const;

/** One VM size a Mac keeps warm, as the spec's model/layout table gives it. */
export const WarmSlot = Type.Object({
  cpu: Type.Integer({ minimum: 1 }),
  memoryGiB: Type.Integer({ minimum: 1 }),
  image: Type.String(),
  diskGiB: Type.Integer({ minimum: 1 }),
});
export type WarmSlot = Static<typeof WarmSlot>;

export const HostImage = Type.Object({
  name: Type.String(),
  diskGiB: Type.Integer({ minimum: 1 }),
});

export const MiniSpec = Type.Object(
  {
    /** user (operator/Pulumi): the Mac's address; for the linux driver, 127.0.0.1. */
    address: Type.String({ minLength: 1 }),
    /** user: the hardware model; decides capacity and warm profiles. */
    model: MacModelSchema,
    /** user: which host driver reaches this Mac. */
    driver: Type.Enum([...DRIVERS]),
    /** user: name of the secret (SSH user and key) the tart driver logs in with. */
    credentialsRef: Type.Optional(Type.String()),
    /** user: false keeps new reservations off this Mac (maintenance). */
    schedulable: Type.Boolean({ default: true }),
    /** user: layout used while no reservation sets one (the local linux Mac: `split` unless configured). */
    defaultLayout: Type.Optional(VmLayoutSchema),
  },
  { additionalProperties: false },
);
export type MiniSpec = Static<typeof MiniSpec>;

export const MiniStatus = Type.Object({
  ...StatusBase,
  /** reconciler: `available` (no reservation), `reserved`, `down` (host unreachable). */
  phase: Type.Optional(Type.Enum([...MINI_PHASES])),
  /** reconciler: what the host reports. */
  capacity: Type.Optional(
    Type.Object({ cores: Type.Integer(), memoryGiB: Type.Integer(), diskGiB: Type.Integer() }),
  ),
  /** reconciler: images present on the host with their disk sizes. */
  images: Type.Optional(Type.Array(HostImage)),
  /** reconciler: `namespace/name` of the reservation holding this Mac. */
  reservation: Type.Optional(Type.String()),
  /** reconciler: the layout in force on this Mac. */
  layout: Type.Optional(VmLayoutSchema),
  /** reconciler: the warm VM sizes this Mac keeps (kept from earlier profiles until the Mac is idle). */
  warmProfile: Type.Optional(Type.Array(WarmSlot)),
  /** reconciler: last time the host answered. */
  heartbeat: Type.Optional(DateTime),
});
export type MiniStatus = Static<typeof MiniStatus>;

export const MiniSchema = resourceSchema('Mini', MiniSpec, MiniStatus);
export type Mini = Static<typeof MiniSchema>;

export const MiniKind: KindDefinition = {
  kind: 'Mini',
  plural: 'minis',
  singular: 'mini',
  shortNames: ['mini'],
  scope: 'Cluster',
  schema: MiniSchema,
  description: 'A physical Mac mini (or a local machine posing as one) that hosts sandbox VMs.',
  printerColumns: [
    { name: 'Address', type: 'string', jsonPath: '.spec.address' },
    { name: 'Model', type: 'string', jsonPath: '.spec.model' },
    { name: 'Driver', type: 'string', jsonPath: '.spec.driver' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Layout', type: 'string', jsonPath: '.status.layout' },
    { name: 'Reservation', type: 'string', jsonPath: '.status.reservation', priority: 1 },
  ],
};
