// The LeaseGuard's decisions: when a change of a rented host's replacing inputs is refused, allowed as a
// replacement, or only an update. (Its serialized form, as the engine runs it: dynamic.test.ts.)
import { describe, expect, it } from 'vitest';
import { LeaseGuardProvider, type LeaseGuardInputs, type LeaseGuardOutputs } from './lease-guard-provider.ts';

const inputs: LeaseGuardInputs = {
  mac: 'scw-1',
  kind: 'scaleway-server',
  host: { type: 'M4-S', zone: 'fr-par-1' },
  force: false,
};

async function guardCreatedAt(iso: string): Promise<LeaseGuardOutputs> {
  const created = await new LeaseGuardProvider({ now: () => new Date(iso) }).create(inputs);
  return created.outs!;
}

describe('LeaseGuard', () => {
  it('records its creation time', async () => {
    expect(await guardCreatedAt('2026-11-24T02:00:00.000Z')).toEqual({
      ...inputs,
      allocatedAt: '2026-11-24T02:00:00.000Z',
    });
  });

  it('refuses to replace a host younger than 24 hours, saying why and how to force', async () => {
    const olds = await guardCreatedAt('2026-11-24T02:00:00.000Z');
    const guard = new LeaseGuardProvider({ now: () => new Date('2026-11-24T20:00:00.000Z') });
    await expect(
      guard.diff('id', olds, { ...inputs, host: { type: 'M4-XL', zone: 'fr-par-1' } }),
    ).rejects.toThrow(
      'Mac "scw-1" (changing type/zone replaces its host): the scaleway-server was allocated at ' +
        '2026-11-24T02:00:00.000Z and is billed for 24 hours at least (6.0 h left, until 2026-11-25T02:00:00.000Z)',
    );
  });

  it('replaces a host past its minimum, or a young one when forced', async () => {
    const olds = await guardCreatedAt('2026-11-24T02:00:00.000Z');
    const moved = { ...inputs, host: { type: 'M4-S', zone: 'fr-par-3' } };
    const later = new LeaseGuardProvider({ now: () => new Date('2026-11-25T02:00:00.000Z') });
    expect(await later.diff('id', olds, moved)).toEqual({ changes: true, replaces: ['host'] });
    const soon = new LeaseGuardProvider({ now: () => new Date('2026-11-24T03:00:00.000Z') });
    expect(await soon.diff('id', olds, { ...moved, force: true })).toEqual({
      changes: true,
      replaces: ['host'],
    });
  });

  it('treats force and the same host in another key order as an update that keeps the creation time', async () => {
    const olds = await guardCreatedAt('2026-11-24T02:00:00.000Z');
    const guard = new LeaseGuardProvider({ now: () => new Date('2026-11-24T03:00:00.000Z') });
    const news = { ...inputs, host: { zone: 'fr-par-1', type: 'M4-S' }, force: true };
    expect(await guard.diff('id', olds, news)).toEqual({ changes: true });
    expect((await guard.update('id', olds, news)).outs).toEqual({ ...news, allocatedAt: olds.allocatedAt });
    expect(await guard.diff('id', olds, inputs)).toEqual({ changes: false });
  });
});
