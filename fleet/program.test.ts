// The program's resource graph per source under Pulumi's mocks (no CLI, no cloud).
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPTS } from './scripts.ts';
import { BASE, byType, KEY, resetStack, run, secretsFor, stack, useStack } from './mock-stack.ts';

afterEach(resetStack);

describe('fleet program: resource graph', () => {
  it('an ssh Mac: its preparation commands over SSH (Softnet’s SUID bit among them), then a Mini with the declared model', async () => {
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
    expect(stack.recorded.map((r) => r.type).sort()).toEqual([
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
    // Softnet (tart run --net-softnet) gets its SUID bit right after Tart is installed.
    expect(commands[1]!.name).toBe('studio-1-install-softnet');
    expect(String(commands[1]!.inputs['create'])).toContain('chmod u+s');
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
    const ami = stack.calls.find((c) => c.token === 'aws:ec2/getAmi:getAmi')!;
    expect(ami.inputs).toMatchObject({ owners: ['amazon'], mostRecent: true });
    expect(JSON.stringify(ami.inputs['filters'])).toContain('amzn-ec2-macos-26');
    // The guard is diffed before the host (a young host is refused before it is replaced); the Mini
    // comes after the last preparation step, the preparation after the instance.
    expect(host!.dependsOn).toEqual(['aws-1-lease']);
    expect(instance!.dependsOn).toEqual(
      expect.arrayContaining(['aws-1', 'sandbay-fleet', 'sandbay-fleet-ssh']),
    );
    expect(byType('command:remote:Command')[0]!.dependsOn).toContain('aws-1');
    expect(byType('pulumi-nodejs:dynamic/fleet:Mini')[0]!.dependsOn).toContain('aws-1-pull-images');
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
    expect(server!.dependsOn.sort()).toEqual(['sandbay-fleet', 'scw-1-lease']);
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

describe('fleet program: adopting a Mini sandbay already has', () => {
  it('adopt: true imports the Mini by its name instead of creating it', async () => {
    const ssh = { source: 'ssh', user: 'admin', model: 'm4', privateKeySecret: 'studioKey' };
    await useStack(
      {
        ...BASE,
        macs: [
          { ...ssh, name: 'old', address: '10.0.0.5', adopt: true },
          { ...ssh, name: 'new', address: '10.0.0.6', schedulable: false },
        ],
      },
      secretsFor,
    );
    await run();
    const minis = byType('pulumi-nodejs:dynamic/fleet:Mini');
    expect(minis.map((m) => [m.name, m.id])).toEqual([
      ['old', 'old'],
      ['new', ''],
    ]);
    expect(minis.map((m) => m.inputs['schedulable'])).toEqual([true, false]);
  });
});
