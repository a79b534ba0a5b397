import Type, { type Static } from 'typebox';
import {
  doc,
  DateTime,
  DRIVERS,
  MacModelSchema,
  StatusBase,
  VmLayoutSchema,
  resourceSchema,
  type KindDefinition,
  type MacShape,
} from './meta.ts';
import { EgressSupportSchema } from './egress.ts';

export const MINI_PHASES = ['pending', 'available', 'reserved', 'down'] as const;

/** One VM size a Mac keeps warm, as the spec's model/layout table gives it. */
export const WarmSlot = Type.Object({
  cpu: doc('vCPUs of the warm VM.', Type.Integer({ minimum: 1 })),
  memoryGiB: doc('Memory of the warm VM, in GiB.', Type.Integer({ minimum: 1 })),
  image: doc('Guest image the warm VM is cloned from.', Type.String()),
  diskGiB: doc('Disk size of that image, in GiB.', Type.Integer({ minimum: 1 })),
});
export type WarmSlot = Static<typeof WarmSlot>;

export const HostImage = Type.Object({
  name: doc("Image name, as a create's `image` or a snapshot's base names it.", Type.String()),
  diskGiB: doc(
    "The image's disk size, in GiB (a sandbox's `disk_gib` must equal it).",
    Type.Integer({ minimum: 1 }),
  ),
});

export const MiniSpec = Type.Object(
  {
    address: doc(
      "user (operator/Pulumi): the Mac's address; for the linux driver, 127.0.0.1.",
      Type.String({ minLength: 1 }),
    ),
    model: doc('user: the hardware model; decides capacity and warm profiles.', MacModelSchema),
    driver: doc('user: which host driver reaches this Mac.', Type.Enum([...DRIVERS])),
    credentialsRef: doc(
      'user: name of the secret (SSH user and key) the tart driver logs in with.',
      Type.Optional(Type.String()),
    ),
    schedulable: doc(
      'user: false keeps new reservations off this Mac (maintenance).',
      Type.Boolean({ default: true }),
    ),
    pool: doc(
      'user: true makes this a pool Mac: it serves pool sandboxes (outside reservations) and is never bound by a reservation. Turning it off takes effect once no pool sandbox is left on it.',
      Type.Optional(Type.Boolean()),
    ),
    defaultLayout: doc(
      'user: layout used while no reservation sets one (the local linux Mac: `split` unless configured).',
      Type.Optional(VmLayoutSchema),
    ),
    vmSlots: doc(
      "user, beyond the spec, linux driver only: this Mac runs up to this many sandboxes of the smallest size (2 vCPU / 4 GiB) and keeps as many warm, instead of its model's two (a real Mac's macOS license allows two). Its capacity, as the scheduler counts it, is that many times the smallest sandbox. docs/capacity.md",
      Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    ),
  },
  {
    additionalProperties: false,
    // The same rule as `miniRules` below, for a real Kubernetes API server (CEL).
    'x-kubernetes-validations': [
      {
        rule: "!has(self.vmSlots) || self.driver == 'linux'",
        message: 'vmSlots applies to the linux driver only',
      },
    ],
  },
);
export type MiniSpec = Static<typeof MiniSpec>;

/** The Mac a Mini's spec describes: its model, and its `vmSlots` (honoured on the linux driver alone). */
export function macShape(spec: MiniSpec): MacShape {
  return {
    model: spec.model,
    ...(spec.driver === 'linux' && spec.vmSlots !== undefined && { vmSlots: spec.vmSlots }),
  };
}

/** Checks the schema cannot say: `vmSlots` belongs to a linux Mac (a real Mac runs two macOS VMs). */
function miniRules(obj: unknown): { path: string; message: string }[] {
  const spec = (obj as { spec?: Partial<MiniSpec> }).spec;
  if (spec?.vmSlots !== undefined && spec.driver !== 'linux')
    return [
      { path: 'spec.vmSlots', message: `applies to the linux driver only, not ${String(spec.driver)}` },
    ];
  return [];
}

export const MiniStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `available` (no reservation), `reserved`, `down` (host unreachable).',
    Type.Optional(Type.Enum([...MINI_PHASES])),
  ),
  capacity: doc(
    'reconciler: what the host reports.',
    Type.Optional(
      Type.Object({
        cores: doc('CPU cores of the host.', Type.Integer()),
        memoryGiB: doc('Memory of the host, in GiB.', Type.Integer()),
        diskGiB: doc('Disk of the host, in GiB.', Type.Integer()),
      }),
    ),
  ),
  images: doc(
    'reconciler: images present on the host with their disk sizes.',
    Type.Optional(Type.Array(HostImage)),
  ),
  reservation: doc(
    'reconciler: `namespace/name` of the reservation holding this Mac.',
    Type.Optional(Type.String()),
  ),
  layout: doc('reconciler: the layout in force on this Mac.', Type.Optional(VmLayoutSchema)),
  warmProfile: doc(
    'reconciler: the warm VM sizes this Mac keeps (kept from earlier profiles until the Mac is idle).',
    Type.Optional(Type.Array(WarmSlot)),
  ),
  heartbeat: doc('reconciler: last time the host answered.', Type.Optional(DateTime)),
  egress: doc(
    'reconciler: the egress policies the host enforces for its sandboxes, as its driver reports them.',
    Type.Optional(EgressSupportSchema),
  ),
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
  rules: miniRules,
  description: 'A physical Mac mini (or a local machine posing as one) that hosts sandbox VMs.',
  printerColumns: [
    { name: 'Address', type: 'string', jsonPath: '.spec.address' },
    { name: 'Model', type: 'string', jsonPath: '.spec.model' },
    { name: 'Driver', type: 'string', jsonPath: '.spec.driver' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Layout', type: 'string', jsonPath: '.status.layout' },
    { name: 'Pool', type: 'boolean', jsonPath: '.spec.pool', priority: 1 },
    { name: 'Reservation', type: 'string', jsonPath: '.status.reservation', priority: 1 },
  ],
};
