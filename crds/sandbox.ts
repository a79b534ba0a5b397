import Type, { type Static } from 'typebox';
import { DateTime, StatusBase, resourceSchema, type KindDefinition } from './meta.ts';

export const SANDBOX_ID_PATTERN = '^sb-[0-9a-f]{32}$';
export const SANDBOX_PHASES = ['pending', 'booting', 'running', 'completing', 'failed'] as const;
export type SandboxPhase = (typeof SANDBOX_PHASES)[number];

/** Smallest sandbox (spec, Limits). */
export const MIN_CPU = 2;
export const MIN_MEMORY_GIB = 4;

/** Namespace: the account. Name: the sandbox id (`sb-` + 32 hex). */
export const SandboxSpec = Type.Object(
  {
    /** API: the reservation (inferred when the account has exactly one active one). */
    reservation: Type.String({ minLength: 1 }),
    /** user: size; omitted fields take the model/layout warm size. */
    cpu: Type.Optional(Type.Integer({ minimum: MIN_CPU })),
    memoryGiB: Type.Optional(Type.Integer({ minimum: MIN_MEMORY_GIB })),
    diskGiB: Type.Optional(Type.Integer({ minimum: 1 })),
    /** user: snapshot version to restore. */
    snapshot: Type.Optional(Type.String()),
    /** user: true opts into the idle reaper (about 2 minutes without activity). */
    ephemeral: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);
export type SandboxSpec = Static<typeof SandboxSpec>;

export const SandboxStatus = Type.Object({
  ...StatusBase,
  phase: Type.Optional(Type.Enum([...SANDBOX_PHASES])),
  boot: Type.Optional(Type.Enum(['warm', 'cold'])),
  vm: Type.Optional(Type.String()),
  mini: Type.Optional(Type.String()),
  vmIp: Type.Optional(Type.String()),
  /** reconciler: the size the sandbox actually got (M5 Pro split: 7 or 8). */
  cpu: Type.Optional(Type.Integer()),
  memoryGiB: Type.Optional(Type.Integer()),
  /** API/reconciler: last HTTP request, SSH session or VNC connection. */
  lastActive: Type.Optional(DateTime),
  /** reconciler: a spec error code (`insufficient_capacity`, …) or failure reason. */
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
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
  description: 'A computer-use sandbox: one VM claimed inside a reservation.',
  printerColumns: [
    { name: 'Reservation', type: 'string', jsonPath: '.spec.reservation' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Boot', type: 'string', jsonPath: '.status.boot' },
    { name: 'CPU', type: 'integer', jsonPath: '.status.cpu' },
    { name: 'IP', type: 'string', jsonPath: '.status.vmIp' },
    { name: 'VM', type: 'string', jsonPath: '.status.vm', priority: 1 },
  ],
};
