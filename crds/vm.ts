import Type, { type Static } from 'typebox';
import { doc, DateTime, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

export const VM_PHASES = ['cloning', 'warm', 'occupied', 'stopped', 'down'] as const;
export type VmPhase = (typeof VM_PHASES)[number];

export const VMSpec = Type.Object(
  {
    mini: doc('reconciler (pool): the Mini this VM lives on.', Type.String({ minLength: 1 })),
    slot: doc(
      'reconciler: slot index on the Mini (0 or 1); decides e.g. the 8 vs 7 vCPU M5 Pro slot.',
      Type.Integer({ minimum: 0 }),
    ),
    cpu: doc('reconciler: vCPUs and memory the VM is sized to.', Type.Integer({ minimum: 1 })),
    memoryGiB: doc('reconciler: memory the VM is sized to, in GiB.', Type.Integer({ minimum: 1 })),
    image: doc('reconciler: the image the VM was cloned from and its disk size.', Type.String()),
    diskGiB: doc('reconciler: disk size of the image, in GiB.', Type.Integer({ minimum: 1 })),
    sandbox: doc(
      'scheduler: `namespace/name` of the sandbox that claimed this VM. Set by a conditional write (resourceVersion precondition) so that two creates can never claim one VM.',
      Type.Optional(Type.String()),
    ),
    snapshot: doc(
      'scheduler: snapshot version to apply before boot (restore).',
      Type.Optional(Type.String()),
    ),
    fork: doc(
      "scheduler: `namespace/name` of the sandbox whose disk this VM starts from (a fork): copied from that sandbox's VM before boot.",
      Type.Optional(Type.String()),
    ),
  },
  { additionalProperties: false },
);
export type VMSpec = Static<typeof VMSpec>;

export const VMStatus = Type.Object({
  ...StatusBase,
  phase: doc(
    'reconciler: `cloning`, `warm` (ready in the pool), `occupied` (a sandbox runs on it), `stopped` (kept aside to make room, the next sandbox boots from it), `down`.',
    Type.Optional(Type.Enum([...VM_PHASES])),
  ),
  vmName: doc("reconciler: the VM's name on the host.", Type.Optional(Type.String())),
  vmIp: doc("reconciler: the VM's address as the host reports it.", Type.Optional(Type.String())),
  sandbox: doc('reconciler: `namespace/name` of the sandbox running on it.', Type.Optional(Type.String())),
  lastActive: doc(
    "reconciler: last activity seen on the VM (the sandbox's `lastActive` is the one the API keeps).",
    Type.Optional(DateTime),
  ),
  cpu: doc('reconciler: the size the VM actually runs at (after a resize).', Type.Optional(Type.Integer())),
  memoryGiB: doc('reconciler: memory the running VM actually has, in GiB.', Type.Optional(Type.Integer())),
});
export type VMStatus = Static<typeof VMStatus>;

export const VMSchema = resourceSchema('VM', VMSpec, VMStatus);
export type VM = Static<typeof VMSchema>;

export const VMKind: KindDefinition = {
  kind: 'VM',
  plural: 'vms',
  singular: 'vm',
  shortNames: ['vm'],
  scope: 'Cluster',
  schema: VMSchema,
  description:
    'A VM slot on a Mini: warm in the pool, occupied by a sandbox, cloning, stopped aside or down.',
  printerColumns: [
    { name: 'Mini', type: 'string', jsonPath: '.spec.mini' },
    { name: 'CPU', type: 'integer', jsonPath: '.spec.cpu' },
    { name: 'Memory', type: 'integer', jsonPath: '.spec.memoryGiB' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'IP', type: 'string', jsonPath: '.status.vmIp' },
    { name: 'Sandbox', type: 'string', jsonPath: '.status.sandbox' },
  ],
};
