// The stack's configuration errors, read as the program reads them (under Pulumi's mocks): each names
// the Mac and the fix, all are reported at once, and nothing is declared.
import { afterEach, describe, expect, it } from 'vitest';
import { FleetConfigError } from './config.ts';
import { BASE, resetStack, secretsFor, stack, useStack } from './mock-stack.ts';
import { readFleetConfig } from './program.ts';

afterEach(resetStack);

describe('fleet program: configuration errors, before any resource', () => {
  async function problemsOf(fleet: unknown, secrets: Record<string, string> = secretsFor): Promise<string[]> {
    await useStack(fleet, secrets);
    try {
      readFleetConfig();
    } catch (err) {
      expect(err).toBeInstanceOf(FleetConfigError);
      expect(stack.recorded).toEqual([]);
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
