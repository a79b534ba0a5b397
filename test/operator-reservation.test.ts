// Reservations and billing, one test per spec rule, end to end on the sim driver through the store.
import { afterEach, describe, expect, it } from 'vitest';
import type { Account, ApiKey, Mini, Rate, Reservation, Sandbox } from '../crds/index.ts';
import { isStoreError } from '../store/store.ts';
import { startSimFleet, waitFor, type SimFleet } from './operator-fixtures.ts';
import { edit } from './support/edit.ts';

const HOUR = 3_600_000;
let f: SimFleet;
afterEach(async () => f?.cleanup());

const account = (name: string) => f.store.get<Account>({ kind: 'Account', name });
const reservation = (ns: string, name: string) =>
  f.store.get<Reservation>({ kind: 'Reservation', namespace: ns, name });
const mini = (name: string) => f.store.get<Mini>({ kind: 'Mini', name });
const rate = (model: string) => f.store.get<Rate>({ kind: 'Rate', name: model });
const R1 = { kind: 'Reservation', namespace: 'acme', name: 'r1' };

async function fleetOf(n: number, model: 'm4' | 'm4-pro' | 'm5-pro' = 'm4') {
  f = await startSimFleet(Array.from({ length: n }, (_, i) => ({ name: `mini-${i + 1}`, model })));
  await f.poolsReady();
}

describe('reservations and billing', () => {
  it('rule 1: is paid up front, rate × minis × hours, from the account ledger at the Rate resource’s price', async () => {
    await fleetOf(2);
    const m4 = (await rate('m4'))!.spec.centsPerHour;
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', { miniCount: 2, hours: 30 });
    const r = await f.reservationSettled('acme', 'r1');
    expect(r.status?.phase).toBe('active');
    expect(r.status?.rateCents).toBe(m4);
    expect(r.status?.totalCents).toBe(m4 * 2 * 30);
    const acct = (await account('acme'))!;
    expect(acct.status?.balanceCents).toBe(1_000_000 - m4 * 2 * 30);
    expect(acct.status?.ledger?.filter((e) => e.reservation === 'acme/r1')).toEqual([
      expect.objectContaining({ reason: 'purchase', amountCents: -m4 * 2 * 30 }),
    ]);
  });

  it('rule 1: keeps the rate it was bought at through later edits (more hours charged at the kept rate)', async () => {
    await fleetOf(1);
    const m4 = (await rate('m4'))!;
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', { hours: 24 });
    await f.reservationSettled('acme', 'r1');
    await f.store.update({ ...m4, spec: { ...m4.spec, centsPerHour: m4.spec.centsPerHour * 10 } });
    await edit<Reservation>(f.store, R1, (r) => ({ ...r, spec: { ...r.spec, hours: 48 } }));
    const edited = await waitFor(async () => {
      const x = await reservation('acme', 'r1');
      return x?.status?.paidHours === 48 ? x : undefined;
    }, 'the extra hours to be paid');
    expect(edited.status?.rateCents).toBe(m4.spec.centsPerHour);
    expect(edited.status?.totalCents).toBe(m4.spec.centsPerHour * 48);
    expect(Date.parse(edited.status!.endAt!) - Date.parse(edited.status!.startAt!)).toBe(48 * HOUR);
    const purchases = (await account('acme'))!.status!.ledger!.filter((e) => e.reservation === 'acme/r1');
    expect(purchases.map((e) => e.amountCents)).toEqual([
      -m4.spec.centsPerHour * 24,
      -m4.spec.centsPerHour * 24,
    ]);
  });

  it('charges each reservation once, however often it is reconciled (idempotent per reservation)', async () => {
    await fleetOf(1);
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', {});
    await f.reservationSettled('acme', 'r1');
    for (let i = 0; i < 3; i++) f.op.controllers.reservation.enqueue('acme/r1');
    await f.op.controllers.reservation.queue.whenIdle();
    await f.stopOperator();
    const { startOperator } = await import('../operator/index.ts');
    f.op = await startOperator({
      store: f.store,
      drivers: { sim: f.sim },
      blobDir: `${f.dir}/blobs`,
      clock: f.clock,
    });
    await f.op.controllers.reservation.queue.whenIdle();
    const entries = (await account('acme'))!.status!.ledger!.filter((e) => e.reservation === 'acme/r1');
    expect(entries).toHaveLength(1);
  });

  it('rule 2: activation binds Macs of the model and records their IPs; sandboxes land only on them', async () => {
    f = await startSimFleet([{ name: 'a-m4' }, { name: 'b-pro', model: 'm4-pro' }, { name: 'c-m4' }]);
    await f.poolsReady();
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', { miniCount: 1, macModel: 'm4-pro' });
    const r = await f.reservationSettled('acme', 'r1');
    expect(r.status?.minis).toEqual(['b-pro']);
    expect(r.status?.miniIps).toEqual([f.addressOf('b-pro')]);
    expect((await mini('b-pro'))!.status).toMatchObject({ phase: 'reserved', reservation: 'acme/r1' });
    expect((await mini('a-m4'))!.status?.phase).toBe('available');
    for (let i = 0; i < 2; i++) {
      const sb = await f.createSandbox('acme', { reservation: 'r1' });
      expect((await f.sandboxSettled('acme', sb.metadata.name)).status?.mini).toBe('b-pro');
    }
  });

  it('fails clearly when too few Macs of the model are available, and refunds', async () => {
    await fleetOf(1);
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', { miniCount: 2 });
    const r = await f.reservationSettled('acme', 'r1');
    expect(r.status?.phase).toBe('cancelled');
    expect(r.status?.message).toMatch(/insufficient_minis: 2 m4 Mac\(s\) asked, 1 available/);
    expect(r.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('InsufficientMinis');
    expect((await account('acme'))!.status?.balanceCents).toBe(1_000_000);
    expect((await mini('mini-1'))!.status?.phase).toBe('available');
  });

  it('refuses a purchase the ledger cannot cover, charging nothing', async () => {
    await fleetOf(1);
    await f.account('acme', 100);
    await f.reserve('acme', 'r1', {});
    const r = await f.reservationSettled('acme', 'r1');
    expect(r.status?.phase).toBe('cancelled');
    expect(r.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('InsufficientCredit');
    expect((await account('acme'))!.status?.balanceCents).toBe(100);
  });

  it('creates the reservation key at activation when the API has not, and uses the API’s when it has', async () => {
    await fleetOf(2);
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', {});
    const r1 = await f.reservationSettled('acme', 'r1');
    const key = (await f.store.get<ApiKey>({ kind: 'ApiKey', name: r1.status!.keyRef! }))!;
    expect(key.spec).toMatchObject({
      kind: 'reservation',
      account: 'acme',
      reservation: 'acme/r1',
      revoked: false,
    });
    expect(key.spec.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(key.metadata.name).toBe(`k-${key.spec.sha256.slice(0, 40)}`);

    const apiKeyName = `k-${'b'.repeat(40)}`;
    await f.store.create<ApiKey>({
      apiVersion: 'sandbay.io/v1alpha1',
      kind: 'ApiKey',
      metadata: { name: apiKeyName },
      spec: {
        kind: 'reservation',
        account: 'acme',
        reservation: 'acme/r2',
        sha256: 'b'.repeat(64),
        prefix: 'sbk_x',
        revoked: false,
      },
    });
    await f.reserve('acme', 'r2', {});
    const r2 = await f.reservationSettled('acme', 'r2');
    expect(r2.status?.keyRef).toBe(apiKeyName);
    const keys = (await f.store.list<ApiKey>('ApiKey')).items.filter((k) => k.spec.reservation === 'acme/r2');
    expect(keys).toHaveLength(1);
  });

  it('cancelling a pending reservation refunds it and frees anything bound', async () => {
    await fleetOf(1);
    await f.account('acme', 1_000_000);
    // No Rate for m5-pro: the reservation waits in pending until one exists.
    await f.store.delete({ kind: 'Rate', name: 'm5-pro' });
    await f.reserve('acme', 'r1', { macModel: 'm5-pro' });
    await waitFor(
      async () =>
        (await reservation('acme', 'r1'))?.status?.conditions?.some((c) => c.reason === 'RateMissing'),
      'rate missing',
    );
    // Pay it by hand as a purchase made earlier would have, then cancel.
    const acct = (await account('acme'))!;
    await f.store.updateStatus<Account>({
      ...acct,
      status: {
        ledger: [
          ...acct.status!.ledger!,
          {
            at: new Date(f.clock.now()).toISOString(),
            amountCents: -5000,
            reason: 'purchase',
            reservation: 'acme/r1',
          },
        ],
        balanceCents: acct.status!.balanceCents! - 5000,
      },
    });
    await edit<Reservation>(f.store, R1, (r) => ({ ...r, spec: { ...r.spec, cancelled: true } }));
    const done = await f.reservationSettled('acme', 'r1');
    expect(done.status?.phase).toBe('cancelled');
    const after = (await account('acme'))!;
    expect(after.status?.balanceCents).toBe(1_000_000);
    expect(after.status?.ledger?.at(-1)).toMatchObject({
      reason: 'refund',
      amountCents: 5000,
      reservation: 'acme/r1',
    });
  });

  it('limit: a reservation is at least 24 consecutive hours (a shorter one is refused and changes nothing)', async () => {
    await fleetOf(1);
    await f.account('acme', 1_000_000);
    const err = await f.reserve('acme', 'r1', { hours: 23 }).catch((e: unknown) => e);
    expect(isStoreError(err, 'Invalid')).toBe(true);
    expect(await reservation('acme', 'r1')).toBeUndefined();
  });

  it('rule 7: at end_at its sandboxes go completing then away, the key is revoked, the Macs are available, the reservation completed', async () => {
    await fleetOf(1);
    await f.account('acme', 1_000_000);
    const accountKey = await f.store.create<ApiKey>({
      apiVersion: 'sandbay.io/v1alpha1',
      kind: 'ApiKey',
      metadata: { name: `k-${'c'.repeat(40)}` },
      spec: { kind: 'account', account: 'acme', sha256: 'c'.repeat(64), prefix: 'sbk_a', revoked: false },
    });
    await f.reserve('acme', 'r1', {});
    const r = await f.reservationSettled('acme', 'r1');
    const sbs: Sandbox[] = [];
    for (let i = 0; i < 2; i++) {
      const sb = await f.createSandbox('acme', { reservation: 'r1' });
      sbs.push(await f.sandboxSettled('acme', sb.metadata.name));
    }
    // Hold the cleanup open with a finalizer of our own, to see the completing state the API reports.
    const held = sbs[0]!;
    const heldKey = { kind: 'Sandbox', namespace: 'acme', name: held.metadata.name };
    await edit<Sandbox>(f.store, heldKey, (sb) => ({
      ...sb,
      metadata: { ...sb.metadata, finalizers: [...sb.metadata.finalizers!, 'test/hold'] },
    }));
    const seen: string[] = [];
    const watch = f.store.watch<Sandbox>('Sandbox', { namespace: 'acme' }, (e) => {
      if (e.object.status?.phase) seen.push(`${e.type} ${e.object.status.phase}`);
    });

    f.clock.advance(Date.parse(r.status!.endAt!) - f.clock.now());
    const completing = await waitFor(async () => {
      const s = await f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: held.metadata.name });
      return s?.status?.phase === 'completing' && s.metadata.finalizers?.length === 1 ? s : undefined;
    }, 'the held sandbox to be completing with only our finalizer left');
    expect(completing.metadata.deletionTimestamp).toBeDefined();
    expect((await reservation('acme', 'r1'))!.status?.phase).toBe('completing');
    await edit<Sandbox>(f.store, heldKey, (sb) => ({ ...sb, metadata: { ...sb.metadata, finalizers: [] } }));

    const done = await waitFor(async () => {
      const x = await reservation('acme', 'r1');
      return x?.status?.phase === 'completed' ? x : undefined;
    }, 'the reservation to complete');
    watch.stop();
    expect((await f.store.list('Sandbox', { namespace: 'acme' })).items).toHaveLength(0);
    expect(seen).toContain('MODIFIED completing');
    expect((await f.store.get<ApiKey>({ kind: 'ApiKey', name: done.status!.keyRef! }))!.spec.revoked).toBe(
      true,
    );
    expect(
      (await f.store.get<ApiKey>({ kind: 'ApiKey', name: accountKey.metadata.name }))!.spec.revoked,
    ).toBe(false);
    expect((await mini('mini-1'))!.status).toMatchObject({ phase: 'available' });
    expect((await mini('mini-1'))!.status?.reservation).toBeUndefined();
    await f.poolsReady();
  });

  it('deleting an active reservation cleans up as at expiry, without refund', async () => {
    await fleetOf(1);
    await f.account('acme', 1_000_000);
    await f.reserve('acme', 'r1', {});
    const r = await f.reservationSettled('acme', 'r1');
    const sb = await f.createSandbox('acme', { reservation: 'r1' });
    await f.sandboxSettled('acme', sb.metadata.name);
    const paid = (await account('acme'))!.status!.balanceCents;
    await f.store.delete({ kind: 'Reservation', namespace: 'acme', name: 'r1' });
    await waitFor(async () => !(await reservation('acme', 'r1')), 'the reservation gone');
    expect((await f.store.list('Sandbox', { namespace: 'acme' })).items).toHaveLength(0);
    expect((await f.store.get<ApiKey>({ kind: 'ApiKey', name: r.status!.keyRef! }))!.spec.revoked).toBe(true);
    expect((await mini('mini-1'))!.status?.phase).toBe('available');
    expect((await account('acme'))!.status!.balanceCents).toBe(paid);
    await f.poolsReady();
  });
});
