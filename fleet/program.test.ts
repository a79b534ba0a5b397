// The program's resource graph per source, and its configuration errors, under Pulumi's mocks (no CLI,
// no cloud): every resource the engine would be asked for is recorded with its inputs and options.
import * as pulumi from '@pulumi/pulumi';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FleetConfigError } from './config.ts';
import { fleetProgram, readFleetConfig } from './program.ts';
import { SCRIPTS } from './scripts.ts';

interface Recorded {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

let recorded: Recorded[];
let calls: { token: string; inputs: Record<string, unknown> }[];

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh0ZXN0a2V5Zm9yZXhhbXBsZW9ubHkxMjM0NTY3 cp';
const BASE = {
  adminUrl: 'http://127.0.0.1:8081',
  controlPlaneCidr: '203.0.113.10/32',
  controlPlanePublicKey: KEY,
  tartVersion: '2.30.0',
  baseImages: ['ghcr.io/cirruslabs/macos-tahoe-base:latest'],
};

async function useStack(fleet: unknown, secrets: Record<string, string> = {}): Promise<void> {
  recorded = [];
  calls = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        recorded.push({
          type: args.type,
          name: args.name,
          inputs: unwrapSecrets(args.inputs) as Record<string, unknown>,
        });
        const state: Record<string, unknown> = { ...args.inputs };
        if (args.type === 'aws:ec2/keyPair:KeyPair') state['keyName'] = `${args.name}-key`;
        if (args.type === 'aws:ec2/instance:Instance') state['publicIp'] = `198.51.100.${recorded.length}`;
        if (args.type === 'scaleway:applesilicon/server:Server') {
          Object.assign(state, { ip: '192.0.2.7', username: 'm1' });
        }
        return { id: `${args.name}-id`, state };
      },
      call: (args) => {
        calls.push({ token: args.token, inputs: args.inputs });
        return args.token === 'aws:ec2/getAmi:getAmi' ? { id: 'ami-0macos26' } : {};
      },
    },
    'sandbay-fleet',
    'dev',
    false,
  );
  pulumi.runtime.setAllConfig(
    {
      'sandbay-fleet:fleet': JSON.stringify(fleet),
      ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [`sandbay-fleet:${k}`, v])),
    },
    Object.keys(secrets).map((k) => `sandbay-fleet:${k}`),
  );
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
async function run(): Promise<Awaited<ReturnType<typeof resolveOutputs>>> {
  const { minis } = fleetProgram(readFleetConfig());
  return resolveOutputs(minis);
}

function resolveOutputs<T>(value: T): Promise<pulumi.Unwrap<T>> {
  return new Promise((resolve) => pulumi.output(value).apply(resolve));
}

const byType = (type: string) => recorded.filter((r) => r.type === type);
const secretsFor = { adminKey: 'sbk_admin', fleetPrivateKey: 'PRIVATE', studioKey: 'PRIVATE2' };

beforeEach(() => {
  recorded = [];
});
afterEach(() => {
  pulumi.runtime.setAllConfig({});
});

describe('fleet program: resource graph', () => {
  it('an ssh Mac: five preparation commands over SSH, then a Mini with the declared model', async () => {
    await useStack(
      {
        ...BASE,
        macs: [
          {
            name: 'studio-1',
            source: 'ssh',
            address: '198.51.100.20',
            user: 'admin',
            model: 'm5-pro',
            privateKeySecret: 'studioKey',
          },
        ],
      },
      secretsFor,
    );
    const minis = await run();
    expect(minis).toEqual([
      {
        name: 'studio-1',
        address: '198.51.100.20',
        model: 'm5-pro',
        source: 'ssh',
        capacity: { cores: 15, memoryGiB: 24, diskGiB: 512, sandboxes: 2 },
      },
    ]);
    expect(recorded.map((r) => r.type).sort()).toEqual([
      ...SCRIPTS.map(() => 'command:remote:Command'),
      'pulumi-nodejs:dynamic/fleet:Mini',
    ]);
    const commands = byType('command:remote:Command');
    expect(commands.map((c) => c.name)).toEqual(SCRIPTS.map((s) => `studio-1-${s}`));
    expect(commands[0]!.inputs['connection']).toMatchObject({
      host: '198.51.100.20',
      user: 'admin',
      port: 22,
      privateKey: 'PRIVATE2',
    });
    expect(String(commands[0]!.inputs['create'])).toContain("TART_VERSION='2.30.0'");
    const mini = byType('pulumi-nodejs:dynamic/fleet:Mini')[0]!;
    expect(mini.inputs).toMatchObject({
      name: 'studio-1',
      address: '198.51.100.20',
      model: 'm5-pro',
      driver: 'tart',
      adminKey: 'sbk_admin',
      force: false,
    });
    expect(mini.inputs['lease']).toBeUndefined();
    expect(typeof mini.inputs['__provider']).toBe('string');
  });

  it('an aws Mac: lease guard, dedicated host, instance on it with tenancy host, key pair, SSH from the control plane only', async () => {
    await useStack(
      {
        ...BASE,
        macs: [
          {
            name: 'aws-1',
            source: 'aws',
            model: 'm4-pro',
            availabilityZone: 'us-east-1a',
            macosVersion: '26',
          },
        ],
      },
      secretsFor,
    );
    const [mini] = await run();
    expect(mini).toMatchObject({
      name: 'aws-1',
      model: 'm4-pro',
      source: 'aws',
      address: expect.stringMatching(/^198\.51\.100\./),
    });
    const [host] = byType('aws:ec2/dedicatedHost:DedicatedHost');
    expect(host!.inputs).toMatchObject({
      instanceType: 'mac-m4pro.metal',
      availabilityZone: 'us-east-1a',
      autoPlacement: 'off',
    });
    const [instance] = byType('aws:ec2/instance:Instance');
    expect(instance!.inputs).toMatchObject({
      ami: 'ami-0macos26',
      instanceType: 'mac-m4pro.metal',
      hostId: 'aws-1-id',
      tenancy: 'host',
      keyName: 'sandbay-fleet-key',
      vpcSecurityGroupIds: ['sandbay-fleet-ssh-id'],
    });
    const [sg] = byType('aws:ec2/securityGroup:SecurityGroup');
    expect(sg!.inputs['ingress']).toEqual([
      expect.objectContaining({ protocol: 'tcp', fromPort: 22, toPort: 22, cidrBlocks: ['203.0.113.10/32'] }),
    ]);
    expect(byType('aws:ec2/keyPair:KeyPair')[0]!.inputs['publicKey']).toBe(KEY);
    const ami = calls.find((c) => c.token === 'aws:ec2/getAmi:getAmi')!;
    expect(ami.inputs).toMatchObject({ owners: ['amazon'], mostRecent: true });
    expect(JSON.stringify(ami.inputs['filters'])).toContain('amzn-ec2-macos-26');
    const guard = byType('pulumi-nodejs:dynamic/fleet:LeaseGuard')[0]!;
    expect(guard.inputs).toMatchObject({
      mac: 'aws-1',
      kind: 'aws-dedicated-host',
      host: { instanceType: 'mac-m4pro.metal', availabilityZone: 'us-east-1a' },
    });
    expect(byType('command:remote:Command')[0]!.inputs['connection']).toMatchObject({
      user: 'ec2-user',
      privateKey: 'PRIVATE',
    });
  });

  it('a scaleway Mac: lease guard, the stack SSH key, an applesilicon server; M4-XL is an m4-pro', async () => {
    await useStack({ ...BASE, macs: [{ name: 'scw-1', source: 'scaleway', type: 'M4-XL' }] }, secretsFor);
    const [mini] = await run();
    expect(mini).toMatchObject({
      name: 'scw-1',
      model: 'm4-pro',
      address: '192.0.2.7',
      capacity: { cores: 12 },
    });
    const [server] = byType('scaleway:applesilicon/server:Server');
    expect(server!.inputs).toMatchObject({ type: 'M4-XL', zone: 'fr-par-1', name: 'scw-1' });
    expect(byType('scaleway:iam/sshKey:SshKey')[0]!.inputs['publicKey']).toBe(KEY);
    expect(byType('pulumi-nodejs:dynamic/fleet:LeaseGuard')[0]!.inputs).toMatchObject({
      kind: 'scaleway-server',
      host: { type: 'M4-XL', zone: 'fr-par-1' },
    });
    expect(byType('command:remote:Command')[0]!.inputs['connection']).toMatchObject({
      host: '192.0.2.7',
      user: 'm1',
    });
  });
});

describe('fleet program: configuration errors, before any resource', () => {
  async function problemsOf(fleet: unknown, secrets: Record<string, string> = secretsFor): Promise<string[]> {
    await useStack(fleet, secrets);
    try {
      readFleetConfig();
    } catch (err) {
      expect(err).toBeInstanceOf(FleetConfigError);
      expect(recorded).toEqual([]);
      return (err as FleetConfigError).problems;
    }
    throw new Error('the configuration was accepted');
  }

  it('refuses m5-pro on aws and scaleway: no provider rents one', async () => {
    const problems = await problemsOf({
      ...BASE,
      macs: [
        { name: 'a', source: 'aws', model: 'm5-pro', availabilityZone: 'us-east-1a', macosVersion: '26' },
        { name: 'b', source: 'scaleway', model: 'm5-pro' },
      ],
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^Mac "a": EC2 Mac has no m5-pro \(no provider rents an M5 Pro yet\).*mac-m4\.metal \(m4\)/,
      ),
      expect.stringMatching(/^Mac "b": Scaleway Apple silicon has no m5-pro .*M4-S \(m4\)/),
    ]);
  });

  it('refuses an unknown type, a type that contradicts the model, and an unknown model', async () => {
    const problems = await problemsOf({
      ...BASE,
      macs: [
        { name: 'a', source: 'aws', instanceType: 'mac2.metal', availabilityZone: 'z', macosVersion: '15' },
        { name: 'b', source: 'scaleway', type: 'M4-S', model: 'm4-pro' },
        { name: 'c', source: 'ssh', address: 'x', user: 'u', model: 'm3', privateKeySecret: 'studioKey' },
      ],
    });
    expect(problems[0]).toMatch(/^Mac "c": model /);
  });

  it('names each Mac with a bad type or contradicting model once the schema holds', async () => {
    const problems = await problemsOf({
      ...BASE,
      macs: [
        { name: 'a', source: 'aws', instanceType: 'mac2.metal', availabilityZone: 'z', macosVersion: '15' },
        { name: 'b', source: 'scaleway', type: 'M4-S', model: 'm4-pro' },
      ],
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^Mac "a": EC2 Mac has no instanceType "mac2\.metal"; choose one of mac-m4\.metal \(m4\), mac-m4pro\.metal \(m4-pro\)$/,
      ),
      expect.stringMatching(/^Mac "b": type M4-S is an m4, not an m4-pro/),
    ]);
  });

  it('refuses a duplicate address and a duplicate name', async () => {
    const ssh = { source: 'ssh', user: 'admin', model: 'm4', privateKeySecret: 'studioKey' };
    const problems = await problemsOf({
      ...BASE,
      macs: [
        { ...ssh, name: 'a', address: '10.0.0.5' },
        { ...ssh, name: 'b', address: '10.0.0.5' },
        { ...ssh, name: 'a', address: '10.0.0.6' },
      ],
    });
    expect(problems).toEqual([
      'Mac "a": two Macs have this name; rename one',
      'Macs "a" and "b": both have address 10.0.0.5; a Mac is declared once',
    ]);
  });

  it('refuses a missing secret, naming the Mac and the command that sets it', async () => {
    const problems = await problemsOf(
      {
        ...BASE,
        macs: [
          {
            name: 'studio-1',
            source: 'ssh',
            address: 'h',
            user: 'admin',
            model: 'm4',
            privateKeySecret: 'studioKey',
          },
          { name: 'scw-1', source: 'scaleway', type: 'M4-S' },
        ],
      },
      { adminKey: 'k' },
    );
    expect(problems).toEqual([
      'Mac "studio-1": the secret "studioKey" is missing; run `pulumi config set --secret studioKey < key`',
      expect.stringContaining('pulumi config set --secret fleetPrivateKey'),
    ]);
  });

  it('refuses a fleet past Tart’s 100 free cores without a licence', async () => {
    const macs = Array.from({ length: 11 }, (_, i) => ({ name: `s${i}`, source: 'scaleway', type: 'M4-S' }));
    const problems = await problemsOf({ ...BASE, macs });
    expect(problems).toEqual([
      expect.stringMatching(/^the fleet has 110 host cores; Tart is free up to 100/),
    ]);
    await useStack({ ...BASE, tartLicensed: true, macs }, secretsFor);
    expect(readFleetConfig().macs).toHaveLength(11);
  });
});
