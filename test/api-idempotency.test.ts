// Idempotency-Key, the spec's rules 1–6 one by one, on the sim fleet under the real operator. The
// sim's resize and export take fake time, so a cold create or a snapshot stays in flight until the
// test moves the clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdempotencyRecord, Sandbox, Snapshot } from '../crds/index.ts';
import type { LightMyRequestResponse } from 'fastify';
import { buildCustomerApp } from '../api/app.ts';
import { FakeClock } from '../operator/runtime/clock.ts';
import { ZERO_TIMINGS } from './operator-fixtures.ts';
import { seedAccount, startApiStack, waitFor, type ApiStack } from './api-harness.ts';

const SLOW_MS = 60_000;
const MINUTE = 60_000;
let s: ApiStack;
let clock: FakeClock;
let seq = 0;

async function tenant(hours = 24) {
  const name = `idem-${++seq}`;
  const key = await seedAccount(s.f.store, name, 100_000_000);
  const r = await s.reserve(key, { hours });
  return { name, key, reservation: r.id, reservationKey: r.key };
}

const create = (key: string, idem: string | undefined, body: unknown = {}, stack = s) =>
  stack.call(key, 'POST', '/v1/sandboxes', body, {
    ...(idem !== undefined && { 'idempotency-key': idem }),
    ...(typeof body === 'string' && { 'content-type': 'application/json' }),
  });

const sandboxesOf = async (ns: string) =>
  (await s.f.store.list<Sandbox>('Sandbox', { namespace: ns })).items.filter(
    (x) => !x.metadata.deletionTimestamp,
  );

/**
 * Moves fake time until the request answers (a cold boot or an export waits on the clock). A second
 * per turn: the real work between turns (store writes) must not fall so far behind that fake time
 * reaches the create's 10-minute deadline, which takes 600 turns (over a second of real time).
 */
async function settle(
  pending: Promise<LightMyRequestResponse>,
  step = 1_000,
): Promise<LightMyRequestResponse> {
  let done = false;
  void pending.finally(() => (done = true));
  for (let i = 0; i < 2_000 && !done; i++) {
    clock.advance(step);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return pending;
}

/** Resolves once the request with this key has claimed its record (it is in flight). */
async function inFlight(ns: string): Promise<void> {
  await waitFor(async () => {
    const { items } = await s.f.store.list<IdempotencyRecord>('IdempotencyRecord', { namespace: ns });
    return items.some((r) => r.status?.phase !== 'completed');
  }, 'the request to be in flight');
}

beforeAll(async () => {
  clock = new FakeClock();
  s = await startApiStack(
    Array.from({ length: 14 }, (_, i) => ({ name: `mini-${i + 1}` })),
    {},
    { clock, sim: { clock, timings: { ...ZERO_TIMINGS, resizeMs: SLOW_MS, exportMs: SLOW_MS } } },
  );
});
afterAll(async () => s?.cleanup());

describe('Idempotency-Key', () => {
  it('rule 1: takes keys of 1 to 255 bytes', async () => {
    const t = await tenant();
    for (const bad of ['x'.repeat(256), '']) {
      const r = await create(t.key, bad);
      expect([r.statusCode, r.json().error]).toEqual([400, 'invalid_idempotency_key']);
    }
    expect(await sandboxesOf(t.name)).toHaveLength(0);
    expect((await create(t.key, 'k'.repeat(255))).statusCode).toBe(201);
  });

  it('rule 1: scopes a key to the account and the gateway environment', async () => {
    const a = await tenant();
    const b = await tenant();
    const ra = await create(a.key, 'shared');
    const rb = await create(b.key, 'shared');
    expect([ra.statusCode, rb.statusCode]).toEqual([201, 201]);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    const staging = await buildCustomerApp({
      store: s.f.store,
      drivers: { sim: s.f.sim },
      clock,
      bootId: 'boot-1',
      environment: 'staging',
      rateLimit: false,
    });
    const rs = await staging.inject({
      method: 'POST',
      url: '/v1/sandboxes',
      payload: {},
      headers: { authorization: `Bearer ${a.key}`, 'idempotency-key': 'shared' },
    });
    expect(rs.statusCode).toBe(201);
    expect(rs.json().sandbox_id).not.toBe(ra.json().sandbox_id);
    await staging.close();
  });

  it('rule 2: replays a completed 2xx with its status and body, and runs the work once', async () => {
    const t = await tenant();
    const first = await create(t.key, 'k2', { ephemeral: false });
    const again = await create(t.key, 'k2', { ephemeral: false });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await sandboxesOf(t.name)).toHaveLength(1);
  });

  it('rule 2: replays a completed 4xx even after the state changed', async () => {
    const t = await tenant();
    const a = (await create(t.key, undefined)).json().sandbox_id;
    await create(t.key, undefined);
    const full = await create(t.key, 'k-full');
    expect([full.statusCode, full.json().error]).toEqual([409, 'sandbox_limit_reached']);
    await s.call(t.key, 'DELETE', `/v1/sandboxes/${a}`);
    const replay = await create(t.key, 'k-full');
    expect([replay.statusCode, replay.body]).toEqual([409, full.body]);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('rule 3: replays a 5xx until the attempt deadline, then starts a fresh attempt', async () => {
    const t = await tenant();
    s.f.sim.failNext('resizeVm', { code: 'command_failed', message: 'injected resize failure' });
    const failed = await create(t.key, 'k5xx', { cpu: 3 });
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    const replay = await create(t.key, 'k5xx', { cpu: 3 });
    expect([replay.statusCode, replay.body, replay.headers['idempotent-replayed']]).toEqual([
      failed.statusCode,
      failed.body,
      'true',
    ]);
    clock.advance(10 * MINUTE + 1000);
    const fresh = await settle(create(t.key, 'k5xx', { cpu: 3 }));
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json()).toMatchObject({ cpu: 3, boot: 'cold' });
  });

  it('rule 4: a concurrent retry gets 409 idempotency_in_flight; the work runs once', async () => {
    const t = await tenant();
    const both = [create(t.key, 'k-race', { cpu: 3 }), create(t.key, 'k-race', { cpu: 3 })];
    await inFlight(t.name);
    const first = await Promise.race(both.map((p, i) => p.then((r) => ({ r, i }))));
    expect([first.r.statusCode, first.r.json().error]).toEqual([409, 'idempotency_in_flight']);
    const winner = await settle(both[1 - first.i]!);
    expect(winner.statusCode).toBe(201);
    expect((await create(t.key, 'k-race', { cpu: 3 })).body).toBe(winner.body);
    expect(await sandboxesOf(t.name)).toHaveLength(1);
  });

  it('rule 4: a server restart releases the unfinished request', async () => {
    const t = await tenant();
    const first = create(t.key, 'k-restart', { cpu: 3 });
    await inFlight(t.name);
    expect((await create(t.key, 'k-restart', { cpu: 3 })).json().error).toBe('idempotency_in_flight');
    // The same store, a new boot of the gateway.
    const restarted = await buildCustomerApp({
      store: s.f.store,
      drivers: { sim: s.f.sim },
      clock,
      bootId: 'boot-2',
      environment: 'test',
      rateLimit: false,
    });
    const retry = restarted.inject({
      method: 'POST',
      url: '/v1/sandboxes',
      payload: { cpu: 3 },
      headers: { authorization: `Bearer ${t.key}`, 'idempotency-key': 'k-restart' },
    });
    const [old, fresh] = await Promise.all([settle(first), settle(retry)]);
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    // The retry works under the name the first attempt recorded: it answers the sandbox that
    // attempt created, never a second one (docs/api.md, Crash consistency).
    expect(old.statusCode).toBe(201);
    expect(fresh.json().sandbox_id).toBe(old.json().sandbox_id);
    expect(fresh.json().sandbox_id).toMatch(/^sb-/);
    expect(await sandboxesOf(t.name)).toHaveLength(1);
    // The record keeps the attempt that owns it: the retry's.
    const replay = await restarted.inject({
      method: 'POST',
      url: '/v1/sandboxes',
      payload: { cpu: 3 },
      headers: { authorization: `Bearer ${t.key}`, 'idempotency-key': 'k-restart' },
    });
    expect(replay.body).toBe(fresh.body);
    await restarted.close();
  });

  /** Another API replica on the same store (its own boot and replica id). */
  const replicaApp = (id: string, extra: { shutdownGraceMs?: number } = {}) =>
    buildCustomerApp({
      store: s.f.store,
      drivers: { sim: s.f.sim },
      clock,
      bootId: `boot-${id}`,
      replica: { id },
      environment: 'test',
      rateLimit: false,
      ...extra,
    });
  const createAt = (app: Awaited<ReturnType<typeof replicaApp>>, key: string, idem: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/sandboxes',
      payload: { cpu: 3 },
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': idem },
    });

  it('rule 4 across replicas: a key in flight at one replica is in flight at the others', async () => {
    const t = await tenant();
    // Two replicas of their own (the stack's app shares its default replica id with the apps of
    // the restart test above, which model one replica's boots).
    const [one, other] = [await replicaApp('replica-a'), await replicaApp('replica-b')];
    const first = createAt(one, t.key, 'k-replicas');
    await inFlight(t.name);
    const atOther = await createAt(other, t.key, 'k-replicas');
    expect([atOther.statusCode, atOther.json().error]).toEqual([409, 'idempotency_in_flight']);
    const done = await settle(first);
    expect(done.statusCode).toBe(201);
    const replay = await createAt(other, t.key, 'k-replicas');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(done.body);
    expect(await sandboxesOf(t.name)).toHaveLength(1);
    await Promise.all([one.close(), other.close()]);
  });

  it('rule 4 across replicas: a replica that stops releases its keys to the others', async () => {
    const t = await tenant();
    const stopping = await replicaApp('replica-c', { shutdownGraceMs: 0 });
    const first = createAt(stopping, t.key, 'k-stopped');
    await inFlight(t.name);
    expect((await create(t.key, 'k-stopped', { cpu: 3 })).json().error).toBe('idempotency_in_flight');
    // The stop interrupts the attempt (503) and releases the replica's Lease.
    await stopping.close();
    expect((await first).json().error).toBe('server_shutting_down');
    const retry = await settle(create(t.key, 'k-stopped', { cpu: 3 }));
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('rule 5: a different path, body or reservation-key reservation answers 422', async () => {
    const t = await tenant();
    const ok = await create(t.key, 'k-reuse', { ephemeral: true });
    expect(ok.statusCode).toBe(201);
    const sb = ok.json().sandbox_id;
    const variants = [
      create(t.key, 'k-reuse', { ephemeral: false }),
      create(t.key, 'k-reuse', '{ "ephemeral": true }'),
      create(t.reservationKey, 'k-reuse', { ephemeral: true }),
      s.call(t.key, 'POST', `/v1/sandboxes/${sb}/snapshots`, { name: 'x' }, { 'idempotency-key': 'k-reuse' }),
    ];
    for (const r of await Promise.all(variants)) {
      expect([r.statusCode, r.json().error], r.body).toEqual([422, 'idempotency_key_reused']);
    }
  });

  it('rule 6: without the key every request is new; after 24 hours the key is new again', async () => {
    const t = await tenant(72);
    expect((await create(t.key, undefined)).json().sandbox_id).not.toBe(
      (await create(t.key, undefined)).json().sandbox_id,
    );
    const u = await tenant(72);
    const first = await create(u.key, 'k-day');
    clock.advance(24 * 60 * MINUTE + 1000);
    const later = await create(u.key, 'k-day');
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().sandbox_id).not.toBe(first.json().sandbox_id);
  });

  it('holds for snapshots: in flight while capturing, then one snapshot replayed', async () => {
    const t = await tenant();
    const sb = (await create(t.key, undefined)).json().sandbox_id;
    const snap = (idem: string) =>
      s.call(t.key, 'POST', `/v1/sandboxes/${sb}/snapshots`, { name: 'once' }, { 'idempotency-key': idem });
    const first = snap('k-snap');
    await inFlight(t.name);
    expect((await snap('k-snap')).json().error).toBe('idempotency_in_flight');
    const done = await settle(first);
    expect(done.statusCode).toBe(201);
    expect((await snap('k-snap')).body).toBe(done.body);
    const snaps = (await s.f.store.list<Snapshot>('Snapshot', { namespace: t.name })).items;
    expect(snaps).toHaveLength(1);
  });

  it('rule 4 for snapshots: a retry after a restart answers the capture the first attempt wrote', async () => {
    const t = await tenant();
    const sb = (await create(t.key, undefined)).json().sandbox_id;
    const body = { name: 'after-restart' };
    const headers = { authorization: `Bearer ${t.key}`, 'idempotency-key': 'k-snap-restart' };
    const first = s.call(t.key, 'POST', `/v1/sandboxes/${sb}/snapshots`, body, {
      'idempotency-key': 'k-snap-restart',
    });
    await inFlight(t.name);
    // The same store, a new boot of the gateway.
    const restarted = await buildCustomerApp({
      store: s.f.store,
      drivers: { sim: s.f.sim },
      clock,
      bootId: 'boot-snap-2',
      environment: 'test',
      rateLimit: false,
    });
    const retry = restarted.inject({
      method: 'POST',
      url: `/v1/sandboxes/${sb}/snapshots`,
      payload: body,
      headers,
    });
    const [old, fresh] = await Promise.all([settle(first), settle(retry)]);
    expect([old.statusCode, fresh.statusCode]).toEqual([201, 201]);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().version).toBe(old.json().version);
    const snaps = (await s.f.store.list<Snapshot>('Snapshot', { namespace: t.name })).items;
    expect(snaps.map((x) => x.metadata.name)).toEqual([old.json().version]);
    await restarted.close();
  });
});

describe('Idempotency-Key past the attempt deadline', () => {
  it('rule 4: an attempt still unfinished after 10 minutes may be retried', async () => {
    const c = new FakeClock();
    const slow = await startApiStack(
      [{ name: 'mini-1' }],
      {},
      { clock: c, sim: { clock: c, timings: { ...ZERO_TIMINGS, resizeMs: 20 * MINUTE } } },
    );
    try {
      const key = await seedAccount(slow.f.store, 'slow', 100_000_000);
      await slow.reserve(key);
      const post = () => slow.call(key, 'POST', '/v1/sandboxes', { cpu: 3 }, { 'idempotency-key': 'k-late' });
      // Fake minutes pass until the API gives up on its own deadline (the resize needs 20).
      const untilAnswered = async (pending: Promise<LightMyRequestResponse>) => {
        let done = false;
        void pending.finally(() => (done = true));
        for (let i = 0; i < 30 && !done; i++) {
          c.advance(MINUTE);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        return pending;
      };
      const gaveUp = await untilAnswered(post());
      expect([gaveUp.statusCode, gaveUp.json().error]).toEqual([504, 'operation_timeout']);
      // The API gave up at the attempt's deadline: the retry is a fresh attempt of its own.
      const retry = await untilAnswered(post());
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(retry.json().error).not.toBe('idempotency_in_flight');
      // Let the sim finish the resizes it started, so the operator stops cleanly.
      c.advance(40 * MINUTE);
    } finally {
      await slow.cleanup();
    }
  });
});
