// The path the Pulumi engine takes with a dynamic resource, without the engine: the provider object is
// serialized by Pulumi's closure serializer in a plain Node process running the program's modules, and
// the text is loaded the way Pulumi's dynamic-provider host loads it (require-from-string, `.handler()`)
// in another process, whose working directory is the project root, and used there.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function node(args: string[], input?: string): string {
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', input, timeout: 60_000 });
  if (run.status !== 0) throw new Error(`node exited ${run.status}: ${run.stderr}`);
  return run.stdout;
}

const SERIALIZE = `
import * as pulumi from '@pulumi/pulumi';
import { delegatingProvider } from './fleet/dynamic.ts';
const provider = delegatingProvider('fleet/lease-guard-provider.ts', 'LeaseGuardProvider');
const sf = await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true });
process.stdout.write(sf.text);
`;

const LOAD_AND_USE = `
// The copy Pulumi's own dynamic-provider host loads.
const requireFromString = require(require.resolve('require-from-string', { paths: [require.resolve('@pulumi/pulumi')] }));
const text = require('node:fs').readFileSync(0, 'utf8');
(async () => {
  const provider = requireFromString(text).handler();
  const inputs = { mac: 'aws-1', kind: 'aws-dedicated-host', host: { instanceType: 'mac-m4.metal' }, force: false };
  const created = await provider.create(inputs);
  let refusal = '';
  try {
    await provider.diff(created.id, created.outs, { ...inputs, host: { instanceType: 'mac-m4pro.metal' } });
  } catch (err) {
    refusal = err.message;
  }
  process.stdout.write(JSON.stringify({ created, refusal }));
})();
`;

// The entry Pulumi.yaml names, imported by plain Node 24 as Pulumi's run.js imports it (an ES module,
// TypeScript run natively), under mocks: every dynamic resource's provider is serialized on the way.
const RUN_ENTRY = `
import * as pulumi from '@pulumi/pulumi';
const serialized = [];
await pulumi.runtime.setMocks({
  newResource: (args) => {
    if (typeof args.inputs.__provider === 'string') serialized.push(args.type);
    return { id: args.name + '-id', state: { ...args.inputs, publicIp: '198.51.100.1' } };
  },
  call: () => ({ id: 'ami-1' }),
}, 'sandbay-fleet', 'dev', false);
pulumi.runtime.setAllConfig({
  'sandbay-fleet:fleet': JSON.stringify({
    adminUrl: 'http://127.0.0.1:8081',
    controlPlaneCidr: '203.0.113.10/32',
    controlPlanePublicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHh0ZXN0 cp',
    tartVersion: '2.30.0',
    baseImages: ['ghcr.io/cirruslabs/macos-tahoe-base:latest'],
    macs: [{ name: 'aws-1', source: 'aws', model: 'm4', availabilityZone: 'us-east-1a', macosVersion: '26' }],
  }),
  'sandbay-fleet:adminKey': 'k',
  'sandbay-fleet:fleetPrivateKey': 'p',
}, ['sandbay-fleet:adminKey', 'sandbay-fleet:fleetPrivateKey']);
const { minis } = await import('./fleet/index.ts');
const resolved = await new Promise((resolve) => pulumi.output(minis).apply(resolve));
process.stdout.write(JSON.stringify({ minis: resolved, serialized: serialized.sort() }));
`;

describe('dynamic providers as the engine runs them', () => {
  it('the program entry loads in plain Node 24 and serializes its dynamic providers', () => {
    const out = JSON.parse(node(['--input-type=module', '-e', RUN_ENTRY])) as unknown;
    expect(out).toEqual({
      minis: [
        {
          name: 'aws-1',
          address: '198.51.100.1',
          model: 'm4',
          source: 'aws',
          capacity: { cores: 10, memoryGiB: 16, diskGiB: 256, sandboxes: 2 },
        },
      ],
      serialized: ['pulumi-nodejs:dynamic/fleet:LeaseGuard', 'pulumi-nodejs:dynamic/fleet:Mini'],
    });
  });

  it('serialize to a closure that imports the provider module in the provider process', () => {
    const text = node(['--input-type=module', '-e', SERIALIZE]);
    expect(text).toContain('fleet/lease-guard-provider.ts');
    const { created, refusal } = JSON.parse(node(['-e', LOAD_AND_USE], text)) as {
      created: { id: string; outs: { allocatedAt: string } };
      refusal: string;
    };
    expect(created.id).toBe('aws-dedicated-host/aws-1');
    expect(Date.now() - Date.parse(created.outs.allocatedAt)).toBeLessThan(60_000);
    expect(refusal).toMatch(
      /^Mac "aws-1" \(changing instanceType replaces its host\): the aws-dedicated-host was allocated at/,
    );
  });
});
