import Type, { type Static } from 'typebox';
import { EgressPolicySchema } from './egress.ts';
import { doc, DateTime, MacModelSchema, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

/**
 * A sandbox id: `sb-` and 32 hex digits (128 random bits, api/services/sandboxes.ts). The one
 * definition: schemas take the pattern, routes and proxies the RegExp, paths compose the body.
 */
export const SANDBOX_ID_BODY = 'sb-[0-9a-f]{32}';
export const SANDBOX_ID_PATTERN = `^${SANDBOX_ID_BODY}$`;
export const SANDBOX_ID = new RegExp(SANDBOX_ID_PATTERN);
export const SANDBOX_PHASES = ['pending', 'booting', 'running', 'paused', 'completing', 'failed'] as const;
export type SandboxPhase = (typeof SANDBOX_PHASES)[number];

/** Smallest sandbox (spec, Limits). */
export const MIN_CPU = 2;
export const MIN_MEMORY_GIB = 4;

/** Namespace: the account. Name: the sandbox id (`sb-` + 32 hex). */
export const SandboxSpec = Type.Object(
  {
    reservation: doc(
      'API: the reservation (inferred when the account has exactly one active one); absent for a pool sandbox.',
      Type.Optional(Type.String({ minLength: 1 })),
    ),
    pool: doc(
      'API: true for a pool sandbox (on a pool Mac, outside reservations, paid per started hour, at most 24 hours).',
      Type.Optional(Type.Boolean()),
    ),
    macModel: doc(
      "API: the Mac model a pool sandbox runs on (its price is that model's Rate).",
      Type.Optional(MacModelSchema),
    ),
    cpu: doc(
      'user: size; omitted fields take the model/layout warm size.',
      Type.Optional(Type.Integer({ minimum: MIN_CPU })),
    ),
    memoryGiB: doc(
      "user: memory in GiB (at least 4; default: the warm size of the reservation's layout).",
      Type.Optional(Type.Integer({ minimum: MIN_MEMORY_GIB })),
    ),
    diskGiB: doc(
      "user: disk in GiB; must equal the image's disk size (disks are not resized).",
      Type.Optional(Type.Integer({ minimum: 1 })),
    ),
    snapshot: doc('user: snapshot version to restore.', Type.Optional(Type.String())),
    host: doc(
      'user: pins the sandbox to one Mac of its reservation, named by its Mini name or address; the scheduler places it there or refuses.',
      Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    ),
    ephemeral: doc(
      'user: true opts into the idle reaper (about 2 minutes without activity).',
      Type.Boolean({ default: false }),
    ),
    egress: doc(
      "user: where the VM may connect to (crds/egress.ts); absent: its host's default. Changed while it runs through `PATCH …/network`.",
      Type.Optional(EgressPolicySchema),
    ),
    forkOf: doc(
      "API: a fork (POST …/fork): the name of the account's sandbox whose disk this one starts from, copied as it is when this sandbox's VM is made.",
      Type.Optional(Type.String({ pattern: SANDBOX_ID_PATTERN })),
    ),
    paused: doc(
      'user: true pauses the sandbox (its VM frozen where it is, its memory kept, no CPU used); false or absent runs it.',
      Type.Optional(Type.Boolean()),
    ),
  },
  { additionalProperties: false },
);
export type SandboxSpec = Static<typeof SandboxSpec>;

export const SandboxStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `pending` (not placed yet), `booting`, `running`, `paused` (its VM frozen, as `spec.paused` asks), `completing` (reservation ended, cleanup running), `failed`.',
    Type.Optional(Type.Enum([...SANDBOX_PHASES])),
  ),
  boot: doc(
    'reconciler: `warm` (a warm VM from the pool) or `cold` (a VM cloned and booted for it).',
    Type.Optional(Type.Enum(['warm', 'cold'])),
  ),
  vm: doc('reconciler: name of the VM resource the sandbox runs on.', Type.Optional(Type.String())),
  mini: doc('reconciler: name of the Mini that VM lives on.', Type.Optional(Type.String())),
  vmIp: doc(
    "reconciler: the VM's address (what the API's proxies connect to).",
    Type.Optional(Type.String()),
  ),
  cpu: doc(
    'reconciler: the size the sandbox actually got (M5 Pro split: 7 or 8).',
    Type.Optional(Type.Integer()),
  ),
  memoryGiB: doc('reconciler: memory the sandbox actually has, in GiB.', Type.Optional(Type.Integer())),
  lastActive: doc(
    'API/reconciler: last HTTP request, SSH session or VNC connection.',
    Type.Optional(DateTime),
  ),
  reason: doc(
    'reconciler: a spec error code (`insufficient_capacity`, …) or failure reason.',
    Type.Optional(Type.String()),
  ),
  message: doc('reconciler: what went wrong, for people, when `failed`.', Type.Optional(Type.String())),
  endAt: doc(
    'reconciler: a pool sandbox ends here (creation + 24 h); it then completes and is deleted.',
    Type.Optional(DateTime),
  ),
  poolCentsPerHour: doc(
    "reconciler: a pool sandbox's price per started hour, kept from its placement.",
    Type.Optional(Type.Integer({ minimum: 0 })),
  ),
  egress: doc(
    'reconciler: the egress policy in force on the VM, and the generation of the spec it was applied for.',
    Type.Optional(
      Type.Object({
        ...EgressPolicySchema.properties,
        generation: doc('reconciler: `metadata.generation` when it was applied.', Type.Integer()),
      }),
    ),
  ),
  egressFailure: doc(
    "reconciler: why the spec's egress policy of `generation` is not in force (the VM keeps `egress`).",
    Type.Optional(
      Type.Object({
        generation: doc('reconciler: `metadata.generation` of the policy that failed.', Type.Integer()),
        reason: doc('reconciler: `invalid_egress`, `egress_not_allowed` or `egress_failed`.', Type.String()),
        message: doc('reconciler: what went wrong, for people.', Type.String()),
      }),
    ),
  ),
  pausedAt: doc('reconciler: when the sandbox was paused; absent while it runs.', Type.Optional(DateTime)),
  ranAt: doc(
    'reconciler: when the sandbox first ran; a pool sandbox that ends without it gets back what it paid.',
    Type.Optional(DateTime),
  ),
});
export type SandboxStatus = Static<typeof SandboxStatus>;

export const SandboxSchema = resourceSchema('Sandbox', SandboxSpec, SandboxStatus);
export type Sandbox = Static<typeof SandboxSchema>;

export const SandboxKind: KindDefinition = {
  kind: 'Sandbox',
  plural: 'sandboxes',
  singular: 'sandbox',
  shortNames: ['sb'],
  scope: 'Namespaced',
  schema: SandboxSchema,
  description: 'A computer-use sandbox: one VM claimed inside a reservation, or on a pool Mac.',
  printerColumns: [
    { name: 'Reservation', type: 'string', jsonPath: '.spec.reservation' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Boot', type: 'string', jsonPath: '.status.boot' },
    { name: 'CPU', type: 'integer', jsonPath: '.status.cpu' },
    { name: 'IP', type: 'string', jsonPath: '.status.vmIp' },
    { name: 'VM', type: 'string', jsonPath: '.status.vm', priority: 1 },
  ],
};
