import Type, { type Static } from 'typebox';
import { DateTime, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

export const VM_PHASES = ['cloning', 'warm', 'occupied', 'stopped', 'down'] as const;
export type VmPhase = (typeof VM_PHASES)[number];

export const VMSpec = Type.Object(
  {
    /** reconciler (pool): the Mini this VM lives on. */
    mini: Type.String({ minLength: 1 }),
    /** reconciler: slot index on the Mini (0 or 1); decides e.g. the 8 vs 7 vCPU M5 Pro slot. */
    slot: Type.Integer({ minimum: 0 }),
    /** reconciler: vCPUs and memory the VM is sized to. */
    cpu: Type.Integer({ minimum: 1 }),
    memoryGiB: Type.Integer({ minimum: 1 }),
    /** reconciler: the image the VM was cloned from and its disk size. */
    image: Type.String(),
    diskGiB: Type.Integer({ minimum: 1 }),
    /**
     * scheduler: `namespace/name` of the sandbox that claimed this VM. Set by a conditional write
     * (resourceVersion precondition) so that two creates can never claim one VM.
     */
    sandbox: Type.Optional(Type.String()),
    /** scheduler: snapshot version to apply before boot (restore). */
    snapshot: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type VMSpec = Static<typeof VMSpec>;

export const VMStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum([...VM_PHASES])),
  /** reconciler: the VM's name on the host. */
  vmName: Type.Optional(Type.String()),
  vmIp: Type.Optional(Type.String()),
  /** reconciler: `namespace/name` of the sandbox running on it. */
  sandbox: Type.Optional(Type.String()),
  lastActive: Type.Optional(DateTime),
  /** reconciler: the size the VM actually runs at (after a resize). */
  cpu: Type.Optional(Type.Integer()),
  memoryGiB: Type.Optional(Type.Integer()),
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
