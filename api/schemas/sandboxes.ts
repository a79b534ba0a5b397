// Wire shapes of sandboxes: the spec's create request and response, sandbox info, viewer tokens, exec.
import Type, { type Static } from 'typebox';
import { DEFAULT_MAC_MODEL } from '../../crds/mac-models.ts';
import { MAC_MODELS } from '../../crds/meta.ts';
import { MIN_CPU, MIN_MEMORY_GIB, SANDBOX_PHASES } from '../../crds/sandbox.ts';
import { DateTimeString, Nullable, SandboxIdSchema } from './common.ts';
import { ReservationIdSchema } from './reservations.ts';
import { EgressInForceSchema, EgressRequestSchema } from './network.ts';

/** The one sandbox platform sandbay runs (the create's `type`). */
export const SANDBOX_TYPE = 'macos';

const SandboxType = Type.Literal(SANDBOX_TYPE, { description: 'The platform: `macos`, the only one.' });

export const SandboxCreateSchema = Type.Object(
  {
    type: Type.Optional({
      ...SandboxType,
      description:
        'The platform: `macos` (the default, and the only one sandbay runs). Any other type answers 501 `sandbox_type_not_supported`.',
    }),
    host: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        description:
          'Pins the sandbox to one Mac of the reservation: its Mini name or IP. A Mac outside it answers 422 `host_not_reserved`; with `pool` it is 400.',
      }),
    ),
    reservation_id: Type.Optional({
      ...ReservationIdSchema,
      description: 'The reservation to run in; optional when the key has exactly one active reservation.',
    }),
    // Numbers, not integers, on the wire: a size too small or fractional is the scheduler's 422
    // `invalid_size` (docs/capacity.md), not a 400 from the schema.
    cpu: Type.Optional(
      Type.Number({ maximum: 1024, description: `vCPUs: a whole number, at least ${MIN_CPU}.` }),
    ),
    memory_gib: Type.Optional(
      Type.Number({ maximum: 4096, description: `GiB: a whole number, at least ${MIN_MEMORY_GIB}.` }),
    ),
    disk_gib: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65536, description: "Must equal the image's disk size." }),
    ),
    snapshot: Type.Optional(
      Type.String({ minLength: 1, maxLength: 253, description: 'Snapshot version to restore.' }),
    ),
    ephemeral: Type.Optional(
      Type.Boolean({ description: 'true: destroyed after about 2 minutes without activity. Default false.' }),
    ),
    pool: Type.Optional(
      Type.Boolean({
        description:
          'true: a pool sandbox, outside reservations (account key only): paid per started hour from the credit, deleted 24 hours after creation.',
      }),
    ),
    mac_model: Type.Optional(
      Type.Enum([...MAC_MODELS], {
        description: `With pool: the Mac model (default ${DEFAULT_MAC_MODEL}); its Rate gives the price.`,
      }),
    ),
    egress: Type.Optional(EgressRequestSchema),
  },
  { additionalProperties: false },
);
export type SandboxCreate = Static<typeof SandboxCreateSchema>;

const NullableReservationId = Nullable(Type.String(), {
  description: 'The reservation the sandbox runs in; null for a pool sandbox.',
});

const PoolFields = {
  pool: Type.Boolean({ description: 'true for a pool sandbox (outside reservations).' }),
  end_at: Nullable(DateTimeString, {
    description: 'A pool sandbox is deleted at this time (24 hours after creation); null otherwise.',
  }),
};

const Urls = {
  vnc_url: Type.String({ description: 'Path of the VNC WebSocket, carrying a viewer token in `?token=`.' }),
  ssh_url: Type.String({ description: 'Path of the SSH WebSocket.' }),
};

const SandboxId = { ...SandboxIdSchema, description: 'The sandbox id (`sb-` and 32 hex digits).' };
const Placement = {
  type: SandboxType,
  host: Nullable(Type.String(), {
    description:
      'The Mac (Mini name) the sandbox runs on, as a create pins it with `host`; null until placed.',
  }),
};
const CreatedAt = { ...DateTimeString, description: 'When the sandbox was created.' };
const ForkOf = {
  fork_of: Nullable(Type.String(), {
    description: 'The sandbox this one was forked from (POST …/fork); null for any other sandbox.',
  }),
};
const VmIp = Type.String({ description: "The VM's address on its Mac's private network." });
const Ephemeral = Type.Boolean({
  description: 'true: destroyed after about 2 minutes without activity (requests, SSH or VNC).',
});

export const SandboxCreatedSchema = Type.Object({
  sandbox_id: SandboxId,
  created_at: CreatedAt,
  vm_ip: VmIp,
  ...Urls,
  boot: Type.Enum(['warm', 'cold'], {
    description: 'warm: a waiting VM was claimed; cold: a VM was cloned and booted for this request.',
  }),
  cpu: Type.Integer({ description: 'vCPUs of the VM.' }),
  memory_gib: Type.Integer({ description: 'Memory of the VM, GiB.' }),
  reservation_id: NullableReservationId,
  ephemeral: Ephemeral,
  ...PoolFields,
  ...Placement,
  egress: EgressInForceSchema,
  ...ForkOf,
});
export type SandboxCreated = Static<typeof SandboxCreatedSchema>;

/** The info's `state`: the sandbox's phase, or `deleting` once a delete started. */
export const SANDBOX_STATES = [...SANDBOX_PHASES, 'deleting'] as const;

export const SandboxInfoSchema = Type.Object({
  sandbox_id: SandboxId,
  created_at: CreatedAt,
  last_active: Nullable(Type.String({ format: 'date-time' }), {
    description: 'Last request, SSH or VNC activity on the sandbox; null before any.',
  }),
  vm_ip: VmIp,
  ...Urls,
  state: Type.Enum([...SANDBOX_STATES], {
    description:
      'pending (being placed), booting, running, paused (POST …/pause; its VM frozen), completing (its reservation or pool lifetime ended), failed, deleting.',
  }),
  reservation_id: NullableReservationId,
  boot: Nullable(Type.Enum(['warm', 'cold']), {
    description: 'warm or cold (see the create response); null until placed.',
  }),
  cpu: Nullable(Type.Integer(), { description: 'vCPUs of the VM; null until placed.' }),
  memory_gib: Nullable(Type.Integer(), { description: 'Memory of the VM, GiB; null until placed.' }),
  ephemeral: Ephemeral,
  ...PoolFields,
  ...Placement,
  egress: EgressInForceSchema,
  ...ForkOf,
  paused_at: Nullable(Type.String({ format: 'date-time' }), {
    description: 'When the sandbox was paused; null while it runs.',
  }),
});
export type SandboxInfo = Static<typeof SandboxInfoSchema>;

export const ViewerTokenSchema = Type.Object({
  vnc_url: Type.String({ description: 'Path of the VNC WebSocket with the token in `?token=`.' }),
  token: Type.String({ description: 'The viewer token: watches this sandbox only, until it expires.' }),
  expires_at: { ...DateTimeString, description: 'When the token stops opening connections.' },
});

/** Longest exec timeout, in seconds; the SDK's default is 120. */
export const MAX_EXEC_TIMEOUT_S = 3600;

export const ExecRequestSchema = Type.Object(
  {
    command: Type.String({
      minLength: 1,
      maxLength: 1_000_000,
      description: "A shell command line, run by the VM user's shell.",
    }),
    timeout: Type.Integer({
      minimum: 1,
      maximum: MAX_EXEC_TIMEOUT_S,
      default: 120,
      description: 'Seconds before the command is killed (return_code 124, timed_out true).',
    }),
    ax: Type.Boolean({
      default: false,
      description: "true runs under the in-VM control agent's session (the SDK's exec_ax).",
    }),
  },
  { additionalProperties: false },
);

export const ExecResultSchema = Type.Object({
  stdout: Type.String({ description: "The command's standard output (UTF-8)." }),
  stderr: Type.String({ description: "The command's standard error (UTF-8)." }),
  return_code: Type.Integer({ description: 'Exit status; 124 when the timeout killed it.' }),
  timed_out: Type.Boolean({ description: 'true when the timeout killed the command.' }),
});

export const KeepaliveSchema = Type.Object({
  sandbox_id: SandboxId,
  last_active: { ...DateTimeString, description: 'The activity this heartbeat recorded.' },
});

export const SshCredentialsSchema = Type.Object({
  ssh_url: Type.String({ description: 'Path of the SSH WebSocket.' }),
  username: Type.String({ description: "The VM user's login name." }),
  private_key: Type.String({ description: "OpenSSH private key of this VM's login; discarded with the VM." }),
});
