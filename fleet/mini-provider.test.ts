// The Mini provider's every operation against a live sandbay over HTTP: `sandbay server` (sim driver)
// on loopback, its admin API as the provider and the CLI reach it, and a real reservation bought
// through the customer API holding the Mini while it is drained.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../api/server.ts';
import { AdminClient } from '../cli/client.ts';
import { MiniKind, ReservationKind, type Mini, type Reservation } from '../crds/index.ts';
import { seedAccount } from '../test/support/accounts.ts';
import { waitFor } from '../test/support/wait.ts';
import { MiniProvider, type MiniInputs, type MiniOutputs } from './mini-provider.ts';

let dir: string;
let server: RunningServer;
let admin: AdminClient;
let inputs: (name: string, extra?: Partial<MiniInputs>) => MiniInputs;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-fleet-'));
  server = await startServer({
    dataDir: join(dir, 'data'),
    port: 0,
    adminPort: 0,
    hostDriver: 'sim',
    logger: pino({ level: 'silent' }),
  });
  const adminKey = (await readFile(server.adminKeyFile, 'utf8')).trim();
  admin = new AdminClient({ server: server.adminUrl, token: adminKey });
  inputs = (name, extra = {}) => ({
    name,
    address: '127.0.0.1',
    model: 'm4',
    driver: 'sim',
    schedulable: true,
    adminUrl: server.adminUrl,
    adminKey,
    drainTimeoutSeconds: 30,
    force: false,
    ...extra,
  });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const getMini = (name: string) => admin.get<Mini>(MiniKind, name);

describe('Mini provider against a live sandbay', () => {
  const provider = new MiniProvider({ pollMs: 20 });

  it('create registers the Mini; a second create of the same name says how to import it', async () => {
    const created = await provider.create(inputs('fleet-a'));
    expect(created.id).toBe('fleet-a');
    expect(created.outs).toMatchObject({ name: 'fleet-a', model: 'm4', address: '127.0.0.1' });
    expect((await getMini('fleet-a'))?.spec).toEqual({
      address: '127.0.0.1',
      model: 'm4',
      driver: 'sim',
      schedulable: true,
    });
    await expect(provider.create(inputs('fleet-a'))).rejects.toThrow(
      /Mac "fleet-a": sandbay already has a Mini of that name; adopt it \(set adopt: true/,
    );
  });

  it('read (refresh) returns what sandbay holds after an out-of-band change, and nothing once it is gone', async () => {
    const mini = (await getMini('fleet-a'))!;
    await admin.replace(MiniKind, {
      ...mini,
      spec: { ...mini.spec, address: '127.0.0.9', schedulable: false },
    });
    const read = await provider.read('fleet-a', inputs('fleet-a') as MiniOutputs);
    expect(read).toMatchObject({ id: 'fleet-a', props: { address: '127.0.0.9', schedulable: false } });
    // Refreshed state against the program's inputs: an in-place update, not a replacement.
    const diff = await provider.diff('fleet-a', read.props!, inputs('fleet-a'));
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    expect(await provider.read('fleet-none', inputs('fleet-none') as MiniOutputs)).toEqual({});
  });

  it('diff: spec fields update in place, the name or the sandbay replace, no change is no change', async () => {
    const olds = inputs('fleet-a') as MiniOutputs;
    expect(await provider.diff('fleet-a', olds, inputs('fleet-a'))).toMatchObject({ changes: false });
    expect(await provider.diff('fleet-a', olds, inputs('fleet-a', { model: 'm4-pro' }))).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await provider.diff('fleet-a', olds, inputs('fleet-b'))).toMatchObject({
      changes: true,
      replaces: ['name'],
      deleteBeforeReplace: true,
    });
  });

  it('update writes the new spec and keeps what others wrote elsewhere in the object', async () => {
    const olds = (await provider.read('fleet-a', inputs('fleet-a') as MiniOutputs)).props!;
    const updated = await provider.update(
      'fleet-a',
      olds,
      inputs('fleet-a', { address: '127.0.0.1', model: 'm4' }),
    );
    expect(updated.outs).toMatchObject({ address: '127.0.0.1', schedulable: true });
    expect((await getMini('fleet-a'))?.spec).toMatchObject({ address: '127.0.0.1', schedulable: true });
  });

  it('import (adopt: true): read with the program inputs finds the Mini; matching inputs are no change', async () => {
    await admin.create<Mini>(MiniKind, {
      apiVersion: 'sandbay.io/v1alpha1',
      kind: 'Mini',
      metadata: { name: 'fleet-old' },
      spec: { address: '127.0.0.5', model: 'm4-pro', driver: 'sim', schedulable: true },
    });
    const declared = inputs('fleet-old', { address: '127.0.0.5', model: 'm4-pro' });
    const read = await provider.read('fleet-old', declared as MiniOutputs);
    expect(read).toMatchObject({
      id: 'fleet-old',
      props: {
        name: 'fleet-old',
        address: '127.0.0.5',
        model: 'm4-pro',
        driver: 'sim',
        adminUrl: declared.adminUrl,
      },
    });
    expect(await provider.diff('fleet-old', read.props!, declared)).toMatchObject({ changes: false });
    await expect(provider.read('fleet-old')).rejects.toThrow(
      'Mini "fleet-old": to adopt an existing Mini, declare its Mac with adopt: true and run pulumi up',
    );
  });

  it('delete drains first: cordons, fails naming the reservation that holds the Mini, deletes once it is released', async () => {
    // The only Mac for sale: the reservation bought below can only bind fleet-a.
    await admin.delete(MiniKind, 'fleet-old');
    await waitFor(async () => (await getMini('fleet-old')) === undefined, 'fleet-old gone');
    await waitFor(
      async () => (await getMini('fleet-a'))?.status?.phase === 'available',
      'fleet-a available',
      30_000,
    );
    const accountKey = await seedAccount(server.store, 'acme');
    const bought = await fetch(`${server.url}/v1/reservations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accountKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hours: 24, mini_count: 1, mac_model: 'm4', vm_layout: 'split' }),
    });
    expect(bought.status).toBe(201);
    const { id } = (await bought.json()) as { id: string };
    const holder = await waitFor(
      async () => (await getMini('fleet-a'))?.status?.reservation,
      'the bind',
      30_000,
    );
    expect(holder).toBe(`acme/${id}`);

    const props = { ...inputs('fleet-a'), drainTimeoutSeconds: 0.2 } as MiniOutputs;
    await expect(provider.delete('fleet-a', props)).rejects.toThrow(
      `mini "fleet-a" is still held by reservation acme/${id} after 0 s`,
    );
    const cordoned = (await getMini('fleet-a'))!;
    expect(cordoned.spec.schedulable).toBe(false);
    expect(cordoned.status?.reservation).toBe(`acme/${id}`);

    // Deleted while the reservation holds it: the delete waits, and finishes once the Mac is released.
    let finished = false;
    const deleting = provider.delete('fleet-a', { ...props, drainTimeoutSeconds: 60 }).then(() => {
      finished = true;
    });
    await waitFor(async () => (await getMini('fleet-a'))?.status?.reservation, 'the hold, still');
    expect(finished).toBe(false);
    await admin.delete(ReservationKind, id, 'acme');
    await deleting;
    expect(await getMini('fleet-a')).toBeUndefined();
    const reservation = await admin.get<Reservation>(ReservationKind, id, 'acme');
    expect(reservation?.status?.phase ?? 'gone').not.toBe('active');
  });

  it('delete refuses a rented host younger than 24 hours unless forced, before draining anything', async () => {
    await provider.create(inputs('fleet-c'));
    const now = new Date('2026-11-24T12:00:00Z');
    const young = new MiniProvider({ now: () => now, pollMs: 20 });
    const lease = { kind: 'aws-dedicated-host', allocatedAt: '2026-11-24T02:00:00.000Z' };
    const props = { ...inputs('fleet-c'), lease } as MiniOutputs;
    await expect(young.delete('fleet-c', props)).rejects.toThrow(
      /^Mac "fleet-c": the aws-dedicated-host was allocated at 2026-11-24T02:00:00.000Z and is billed for 24 hours at least \(14\.0 h left/,
    );
    expect((await getMini('fleet-c'))?.spec.schedulable).toBe(true);
    await young.delete('fleet-c', { ...props, force: true });
    expect(await getMini('fleet-c')).toBeUndefined();
  });
});
