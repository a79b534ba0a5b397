// The stack's description of the fleet: one schema (TypeBox) and one check that names the Mac and the
// fix for every problem, run before any resource is declared, so a bad stack creates nothing.
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { MAC_MODELS, MAC_PROFILES, type MacModel } from '../crds/index.ts';
import {
  AWS_INSTANCE_TYPES,
  SCALEWAY_SERVER_TYPES,
  awsTypeFor,
  modelsOffered,
  scalewayTypeFor,
} from './models.ts';

/** A Mini's name: a Kubernetes object name (DNS label), as sandbay's API requires. */
const MacName = Type.String({ pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' });

/** True: sandbay already has this Mac's Mini (registered by hand); the stack imports it. */
const Adopt = Type.Optional(Type.Boolean());
/** False keeps new reservations off the Mac (the Mini's spec.schedulable; `sandbay cordon` for a while). */
const Schedulable = Type.Optional(Type.Boolean());

const SshMac = Type.Object(
  {
    name: MacName,
    source: Type.Literal('ssh'),
    address: Type.String({ minLength: 1 }),
    user: Type.String({ minLength: 1 }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    model: Type.Enum([...MAC_MODELS]),
    /** Name of the stack's secret config key holding this Mac's private SSH key. */
    privateKeySecret: Type.String({ minLength: 1 }),
    adopt: Adopt,
    schedulable: Schedulable,
  },
  { additionalProperties: false },
);

const AwsMac = Type.Object(
  {
    name: MacName,
    source: Type.Literal('aws'),
    availabilityZone: Type.String({ minLength: 1 }),
    /** The instance type; or `model`, from which the type follows. */
    instanceType: Type.Optional(Type.String()),
    model: Type.Optional(Type.Enum([...MAC_MODELS])),
    /** The macOS major version of the AMI (`15`, `26`). */
    macosVersion: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)*$' }),
    subnetId: Type.Optional(Type.String()),
    adopt: Adopt,
    schedulable: Schedulable,
  },
  { additionalProperties: false },
);

const ScalewayMac = Type.Object(
  {
    name: MacName,
    source: Type.Literal('scaleway'),
    zone: Type.Optional(Type.String({ default: 'fr-par-1' })),
    /** The server type; or `model`, from which the type follows. */
    type: Type.Optional(Type.String()),
    model: Type.Optional(Type.Enum([...MAC_MODELS])),
    adopt: Adopt,
    schedulable: Schedulable,
  },
  { additionalProperties: false },
);

export const FleetSettings = Type.Object(
  {
    /** The admin listener of the sandbay the Macs register with. */
    adminUrl: Type.String({ pattern: '^https?://' }),
    /** PEM certificate to trust for an https adminUrl (sandbay's self-signed admin-tls.crt). */
    adminCa: Type.Optional(Type.String({ pattern: '-----BEGIN CERTIFICATE-----' })),
    /** CIDR of the control plane: the only source the cloud Macs' SSH admits. */
    controlPlaneCidr: Type.String({ pattern: '^[0-9.]+/[0-9]{1,2}$' }),
    /** The control plane's public SSH key (`ssh-ed25519 AAAA…`), installed on every Mac. */
    controlPlanePublicKey: Type.String({ pattern: '^ssh-[a-z0-9-]+ [A-Za-z0-9+/=]+' }),
    /** The Tart version every Mac runs (`2.30.0`). */
    tartVersion: Type.String({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$' }),
    /**
     * OCI references of the base images pulled onto every Mac. The first is the one the local images
     * the models clone (crds/mac-models.ts) are made from.
     */
    baseImages: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    /** Replace or destroy hosts younger than their 24-hour minimum anyway. */
    force: Type.Optional(Type.Boolean()),
    /** Tart is free up to 100 host cores in total; beyond that a paid licence is needed. */
    tartLicensed: Type.Optional(Type.Boolean()),
    macs: Type.Array(Type.Union([SshMac, AwsMac, ScalewayMac])),
  },
  { additionalProperties: false },
);
export type FleetSettings = Static<typeof FleetSettings>;

/** A Mac as the program builds it: source, the model and (cloud) the provider's type, resolved. */
export type MacDecl =
  | (Static<typeof SshMac> & { model: MacModel })
  | (Static<typeof AwsMac> & { model: MacModel; instanceType: string })
  | (Static<typeof ScalewayMac> & { model: MacModel; type: string; zone: string });

export interface FleetConfig extends Omit<FleetSettings, 'macs'> {
  macs: MacDecl[];
}

/** Every problem of a stack, one line each, each naming the Mac and the fix. */
export class FleetConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`the stack's fleet configuration is invalid:\n  - ${problems.join('\n  - ')}`);
    this.name = 'FleetConfigError';
    this.problems = problems;
  }
}

const TART_FREE_CORES = 100;
const checkSettings = Compile(FleetSettings);
const checkMac = { ssh: Compile(SshMac), aws: Compile(AwsMac), scaleway: Compile(ScalewayMac) };

/**
 * Checks the stack's settings. `hasSecret(key)` says whether the stack holds a secret config key
 * (the private keys are looked up by name and never pass through here).
 */
export function parseFleetConfig(raw: unknown, hasSecret: (key: string) => boolean): FleetConfig {
  if (!checkSettings.Check(raw)) throw new FleetConfigError(schemaProblems(raw));
  const problems: string[] = [];
  const macs = raw.macs.map((mac) => resolveMac(mac, problems));
  duplicates(macs.map((m) => m.name)).forEach((n) =>
    problems.push(`Mac "${n}": two Macs have this name; rename one`),
  );
  const addresses = macs.flatMap((m) => (m.source === 'ssh' ? [m.address] : []));
  for (const address of duplicates(addresses)) {
    const names = macs.filter((m) => m.source === 'ssh' && m.address === address).map((m) => m.name);
    problems.push(
      `Macs ${names.map((n) => `"${n}"`).join(' and ')}: both have address ${address}; a Mac is declared once`,
    );
  }
  for (const mac of macs) {
    if (mac.source === 'ssh' && !hasSecret(mac.privateKeySecret)) {
      problems.push(
        `Mac "${mac.name}": the secret "${mac.privateKeySecret}" is missing; run \`pulumi config set --secret ${mac.privateKeySecret} < key\``,
      );
    }
  }
  if (macs.some((m) => m.source !== 'ssh') && !hasSecret('fleetPrivateKey')) {
    problems.push(
      'cloud Macs are prepared with the fleet key: run `pulumi config set --secret fleetPrivateKey < key` (the private half of controlPlanePublicKey)',
    );
  }
  if (!hasSecret('adminKey'))
    problems.push('the sandbay admin key is missing: run `pulumi config set --secret adminKey KEY`');
  const cores = macs.reduce((sum, m) => sum + MAC_PROFILES[m.model].cores, 0);
  if (cores > TART_FREE_CORES && !raw.tartLicensed) {
    problems.push(
      `the fleet has ${cores} host cores; Tart is free up to ${TART_FREE_CORES}: buy a Tart licence and set tartLicensed: true, or remove Macs`,
    );
  }
  if (problems.length > 0) throw new FleetConfigError(problems);
  return { ...raw, macs };
}

function resolveMac(mac: FleetSettings['macs'][number], problems: string[]): MacDecl {
  if (mac.source === 'ssh') return mac;
  if (mac.source === 'aws') {
    const table: Record<string, MacModel> = AWS_INSTANCE_TYPES;
    const instanceType = mac.instanceType ?? (mac.model && awsTypeFor(mac.model));
    const model = instanceType === undefined ? undefined : table[instanceType];
    if (instanceType === undefined || model === undefined || (mac.model && mac.model !== model)) {
      problems.push(cloudProblem(mac.name, 'EC2 Mac', 'instanceType', instanceType, mac.model, table));
    }
    return { ...mac, instanceType: instanceType ?? '', model: model ?? 'm4' };
  }
  const table: Record<string, MacModel> = SCALEWAY_SERVER_TYPES;
  const type = mac.type ?? (mac.model && scalewayTypeFor(mac.model));
  const model = type === undefined ? undefined : table[type];
  if (type === undefined || model === undefined || (mac.model && mac.model !== model)) {
    problems.push(cloudProblem(mac.name, 'Scaleway Apple silicon', 'type', type, mac.model, table));
  }
  return { ...mac, type: type ?? '', model: model ?? 'm4', zone: mac.zone ?? 'fr-par-1' };
}

function cloudProblem(
  name: string,
  offer: string,
  field: string,
  type: string | undefined,
  model: MacModel | undefined,
  table: Record<string, MacModel>,
): string {
  const choices = Object.entries(table)
    .map(([t, m]) => `${t} (${m})`)
    .join(', ');
  if (type === undefined && model === undefined)
    return `Mac "${name}": give ${field} or model; ${offer} offers ${choices}`;
  if (type === undefined) {
    const note = model === 'm5-pro' ? ' (no provider rents an M5 Pro yet)' : '';
    return `Mac "${name}": ${offer} has no ${model}${note}; it offers ${modelsOffered(table)}: choose one of ${choices}, or declare a Mac you own with source ssh`;
  }
  if (table[type] === undefined)
    return `Mac "${name}": ${offer} has no ${field} "${type}"; choose one of ${choices}`;
  return `Mac "${name}": ${field} ${type} is an ${table[type]}, not an ${model}; drop model or choose one of ${choices}`;
}

function duplicates(values: string[]): string[] {
  return [...new Set(values.filter((v, i) => values.indexOf(v) !== i))];
}

/** What the schema refuses; each Mac is checked against its own source's schema, for plain messages. */
function schemaProblems(raw: unknown): string[] {
  const settings = raw as { macs?: unknown };
  const problems: string[] = [];
  const macs = Array.isArray(settings?.macs) ? (settings.macs as unknown[]) : [];
  macs.forEach((mac, i) => {
    const source = (mac as { source?: unknown } | null)?.source;
    const check = typeof source === 'string' ? checkMac[source as keyof typeof checkMac] : undefined;
    if (!check) {
      problems.push(
        `${macLabel(raw, i)}: source must be one of ssh, aws, scaleway (got ${JSON.stringify(source)})`,
      );
      return;
    }
    for (const e of check.Errors(mac))
      problems.push(describeSchemaError(raw, `/macs/${i}${e.instancePath}`, e.message));
  });
  if (problems.length === 0) {
    for (const e of checkSettings.Errors(raw)) {
      if (!e.instancePath.startsWith('/macs/'))
        problems.push(describeSchemaError(raw, e.instancePath, e.message));
    }
  }
  if (problems.length === 0) problems.push('the settings do not match the schema');
  return problems.slice(0, 12);
}

function macLabel(raw: unknown, index: number): string {
  const mac = (raw as { macs: { name?: unknown }[] }).macs[index];
  return typeof mac?.name === 'string' ? `Mac "${mac.name}"` : `Mac #${index + 1}`;
}

/** `/macs/2/model` → `Mac "mini-3": model …`: the schema's complaint, with the Mac it concerns. */
function describeSchemaError(raw: unknown, path: string, message: string): string {
  const match = /^\/macs\/(\d+)(\/.*)?$/.exec(path);
  if (!match) return `${path === '' ? 'the settings' : path.slice(1).replaceAll('/', '.')}: ${message}`;
  const who = macLabel(raw, Number(match[1]));
  const field = match[2] ? match[2].slice(1).replaceAll('/', '.') : 'entry';
  return `${who}: ${field} ${message}`;
}
