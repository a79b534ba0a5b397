// A stack under Pulumi's mocks for the program's tests (no CLI, no cloud): every resource the engine
// would be asked for is recorded with its inputs, every provider function call with its arguments.
import * as pulumi from '@pulumi/pulumi';
import { fleetProgram, readFleetConfig } from './program.ts';

export interface Recorded {
  type: string;
  name: string;
  /** Names of the resources it depends on (the engine orders its steps by these). */
  dependsOn: string[];
  /** The id the program asks to import; empty for a resource to create. */
  id: string | undefined;
  inputs: Record<string, unknown>;
}

/** What the engine was asked for since the last useStack(). */
export const stack = {
  recorded: [] as Recorded[],
  calls: [] as { token: string; inputs: Record<string, unknown> }[],
};

export const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh0ZXN0a2V5Zm9yZXhhbXBsZW9ubHkxMjM0NTY3 cp';
export const BASE = {
  adminUrl: 'http://127.0.0.1:8081',
  controlPlaneCidr: '203.0.113.10/32',
  controlPlanePublicKey: KEY,
  tartVersion: '2.30.0',
  baseImages: ['ghcr.io/cirruslabs/macos-tahoe-base:latest'],
};

/** A fresh mocked stack with the `fleet` setting and the given secrets. */
export async function useStack(fleet: unknown, secrets: Record<string, string> = {}): Promise<void> {
  stack.recorded = [];
  stack.calls = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        stack.recorded.push({
          type: args.type,
          name: args.name,
          id: args.id,
          dependsOn: [],
          inputs: unwrapSecrets(args.inputs) as Record<string, unknown>,
        });
        const state: Record<string, unknown> = { ...args.inputs };
        if (args.type === 'aws:ec2/keyPair:KeyPair') state['keyName'] = `${args.name}-key`;
        if (args.type === 'aws:ec2/instance:Instance')
          state['publicIp'] = `198.51.100.${stack.recorded.length}`;
        if (args.type === 'scaleway:applesilicon/server:Server') {
          Object.assign(state, { ip: '192.0.2.7', username: 'm1' });
        }
        return { id: `${args.name}-id`, state };
      },
      call: (args) => {
        stack.calls.push({ token: args.token, inputs: args.inputs });
        return args.token === 'aws:ec2/getAmi:getAmi' ? { id: 'ami-0macos26' } : {};
      },
    },
    'sandbay-fleet',
    'dev',
    false,
  );
  recordDependencies();
  pulumi.runtime.setAllConfig(
    {
      'sandbay-fleet:fleet': JSON.stringify(fleet),
      ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [`sandbay-fleet:${k}`, v])),
    },
    Object.keys(secrets).map((k) => `sandbay-fleet:${k}`),
  );
}

interface RegisterRequest {
  getName(): string;
  getDependenciesList(): string[];
}

/**
 * The mocks hand newResource no dependencies; the mock monitor's requests carry them. Wrapping its
 * registerResource (a test-only look at Pulumi's mock monitor) records each resource's dependencies.
 */
function recordDependencies(): void {
  const monitor = pulumi.runtime.getMonitor() as unknown as {
    registerResource(req: RegisterRequest, callback: unknown): Promise<void>;
  };
  const register = monitor.registerResource.bind(monitor);
  monitor.registerResource = async (req, callback) => {
    await register(req, callback);
    const entry = stack.recorded.findLast((r) => r.name === req.getName());
    if (entry) entry.dependsOn = req.getDependenciesList().map((urn) => urn.split('::').at(-1) ?? urn);
  };
}

const SECRET_SIG = '4dabf18193072939515e22adb298388d';

/** The mocks see secrets as `{<sig>: …, value}`: the plain values, for assertions. */
function unwrapSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  if (SECRET_SIG in record) return unwrapSecrets(record['value']);
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, unwrapSecrets(v)]));
}

/** Runs the program and waits until every output (and so every registration) has resolved. */
export async function run(): Promise<Awaited<ReturnType<typeof resolveOutputs>>> {
  const { minis } = fleetProgram(readFleetConfig());
  return resolveOutputs(minis);
}

function resolveOutputs<T>(value: T): Promise<pulumi.Unwrap<T>> {
  return new Promise((resolve) => pulumi.output(value).apply(resolve));
}

export const byType = (type: string) => stack.recorded.filter((r) => r.type === type);
export const secretsFor = { adminKey: 'sbk_admin', fleetPrivateKey: 'PRIVATE', studioKey: 'PRIVATE2' };

/** Clears the stack configuration between tests. */
export function resetStack(): void {
  stack.recorded = [];
  pulumi.runtime.setAllConfig({});
}
