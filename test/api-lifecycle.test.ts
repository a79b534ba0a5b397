// The customer API end to end on the sim driver under the real operator: reservations, the sandbox
// lifecycle, capacity refusals, snapshots, viewer tokens, and the system endpoints.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ID as SB_ID, type Mini, type Reservation, type Sandbox } from '../crds/index.ts';
import { buildAdminRoutes } from '../api/app.ts';
import { resourceCounts, seedAccount, startApiStack, waitFor, type ApiStack } from './api-harness.ts';

let s: ApiStack;
let acme: string;
let other: string;

beforeAll(async () => {
  s = await startApiStack(Array.from({ length: 16 }, (_, i) => ({ name: `mini-${i + 1}` })));
  acme = await seedAccount(s.f.store, 'acme', 100_000_000);
  other = await seedAccount(s.f.store, 'other', 100_000_000);
});
afterAll(async () => s?.cleanup());

async function accountWithReservation(name: string, body: Record<string, unknown> = {}) {
  const key = await seedAccount(s.f.store, name, 100_000_000);
  const r = await s.reserve(key, body);
  return { key, reservation: r.id, reservationKey: r.key };
}

describe('reservations', () => {
  it('sells a reservation: 201 with the reservation object and its key, shown once, that works for /me', async () => {
    const before = (await s.f.store.get<{ status?: { balanceCents?: number } } & Reservation>({
      kind: 'Account',
      name: 'acme',
    }))!;
    const r = await s.call(acme, 'POST', '/v1/reservations', {
      hours: 30,
      mini_count: 1,
      mac_model: 'm4',
      vm_layout: 'split',
    });
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body).toMatchObject({
      mini_count: 1,
      hours: 30,
      status: 'active',
      mac_model: 'm4',
      vm_layout: 'split',
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.user_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.mini_ips).toHaveLength(1);
    expect(Date.parse(body.end_at) - Date.parse(body.start_at)).toBe(30 * 3_600_000);
    expect(body.key).toMatch(/^sbk_/);
    const me = await s.call(body.key, 'GET', '/v1/reservations/me');
    expect(me.statusCode).toBe(200);
    const { key: _key, ...wire } = body;
    expect(me.json()).toEqual(wire);
    // The plaintext is never stored: only its hash, and nothing hands it out again.
    const listed = await s.call(acme, 'GET', `/v1/reservations/${body.id}`);
    expect(listed.json().key).toBeUndefined();
    expect(JSON.stringify((await s.f.store.list('ApiKey')).items)).not.toContain(body.key);
    const after = (await s.f.store.get<{ status?: { balanceCents?: number } } & Reservation>({
      kind: 'Account',
      name: 'acme',
    }))!;
    expect(before.status!.balanceCents! - after.status!.balanceCents!).toBe(body.total_cents);
  });

  it('refuses a purchase the balance cannot cover with 402 insufficient_credit, writing nothing', async () => {
    const poor = await seedAccount(s.f.store, 'poor', 100);
    const before = await resourceCounts(s.f.store);
    const r = await s.call(poor, 'POST', '/v1/reservations', { hours: 24 });
    expect(r.statusCode).toBe(402);
    expect(r.json()).toMatchObject({ error: 'insufficient_credit' });
    expect(await resourceCounts(s.f.store)).toEqual(before);
  });

  it('refuses more Macs than are free with 409 minis_unavailable', async () => {
    const r = await s.call(acme, 'POST', '/v1/reservations', { hours: 24, mini_count: 50 });
    expect(r.statusCode).toBe(409);
    expect(r.json().error).toBe('minis_unavailable');
  });

  it('validates the purchase: at least 24 hours, known models, no unknown fields', async () => {
    for (const body of [
      { hours: 23 },
      { hours: 24, mac_model: 'm9' },
      { hours: 24, vm_layout: 'half' },
      { hours: 24, color: 'red' },
      {},
    ]) {
      const r = await s.call(acme, 'POST', '/v1/reservations', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().error).toBe('invalid_request');
    }
  });

  it('/me needs a reservation key; buying needs the account key', async () => {
    const { key, reservationKey } = await accountWithReservation('keys-co');
    expect((await s.call(key, 'GET', '/v1/reservations/me')).json().error).toBe('reservation_key_required');
    const r = await s.call(reservationKey, 'POST', '/v1/reservations', { hours: 24 });
    expect(r.statusCode).toBe(403);
    expect(r.json().error).toBe('account_key_required');
  });

  it('edits: adds hours at the kept rate, refuses fewer hours, and a layout change while a sandbox runs', async () => {
    const { key, reservation } = await accountWithReservation('edit-co');
    const grown = await s.call(key, 'PATCH', `/v1/reservations/${reservation}`, { hours: 48 });
    expect(grown.statusCode).toBe(200);
    expect(grown.json()).toMatchObject({ hours: 48 });
    const settled = await waitFor(async () => {
      const r = (await s.call(key, 'GET', `/v1/reservations/${reservation}`)).json();
      return Date.parse(r.end_at) - Date.parse(r.start_at) === 48 * 3_600_000 ? r : undefined;
    }, 'the reservation to be extended');
    expect(settled.total_cents).toBe(grown.json().total_cents);
    expect((await s.call(key, 'PATCH', `/v1/reservations/${reservation}`, { hours: 24 })).json().error).toBe(
      'invalid_hours',
    );
    expect((await s.call(key, 'POST', '/v1/sandboxes', {})).statusCode).toBe(201);
    const relayout = await s.call(key, 'PATCH', `/v1/reservations/${reservation}`, { vm_layout: 'whole' });
    expect(relayout.statusCode).toBe(409);
    expect(relayout.json().error).toBe('sandboxes_running');
  });

  it('lists past reservations too, and a reservation key stops working at end_at', async () => {
    const { key, reservation, reservationKey } = await accountWithReservation('past-co');
    s.f.clock.advance(25 * 3_600_000);
    const past = await waitFor(async () => {
      const list = (await s.call(key, 'GET', '/v1/reservations')).json() as { id: string; status: string }[];
      return list.find((r) => r.id === reservation && r.status === 'completed');
    }, 'the reservation to complete');
    expect(past.status).toBe('completed');
    const me = await s.call(reservationKey, 'GET', '/v1/reservations/me');
    expect(me.statusCode).toBe(401);
    expect(me.json().error).toBe('invalid_api_key');
    // The account key stays valid for future reservations (behavior rule 7).
    expect((await s.call(key, 'GET', '/v1/reservations')).statusCode).toBe(200);
  });
});

describe('sandboxes', () => {
  it('creates a warm sandbox: 201 with every field of the create response', async () => {
    const { key, reservation } = await accountWithReservation('warm-co');
    const r = await s.call(key, 'POST', '/v1/sandboxes', {});
    expect(r.statusCode).toBe(201);
    const sb = r.json();
    expect(sb.sandbox_id).toMatch(SB_ID);
    expect(sb).toMatchObject({
      boot: 'warm',
      cpu: 5,
      memory_gib: 8,
      reservation_id: reservation,
      ephemeral: false,
    });
    expect(Date.parse(sb.created_at)).not.toBeNaN();
    expect(sb.vm_ip).not.toBe('');
    expect(sb.ssh_url).toBe(`/v1/sandboxes/${sb.sandbox_id}/ssh`);
    expect(sb.vnc_url).toMatch(new RegExp(`^/v1/sandboxes/${sb.sandbox_id}/vnc\\?token=[A-Za-z0-9_.-]+$`));
    expect(sb.vnc_url).not.toContain(key);
    const info = await s.call(key, 'GET', `/v1/sandboxes/${sb.sandbox_id}`);
    expect(info.statusCode).toBe(200);
    expect(info.json()).toMatchObject({
      sandbox_id: sb.sandbox_id,
      state: 'running',
      vm_ip: sb.vm_ip,
      ssh_url: sb.ssh_url,
    });
    expect(
      (await s.call(key, 'GET', '/v1/sandboxes')).json().map((x: { sandbox_id: string }) => x.sandbox_id),
    ).toContain(sb.sandbox_id);
  });

  it('boots other sizes cold, with the actual size reported', async () => {
    const { key } = await accountWithReservation('cold-co');
    const r = await s.call(key, 'POST', '/v1/sandboxes', { cpu: 3, memory_gib: 6 });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({ boot: 'cold', cpu: 3, memory_gib: 6 });
  });

  it('answers capacity refusals at once with their codes, writing nothing', async () => {
    const { key } = await accountWithReservation('cap-co');
    const counts = async () => (await s.f.store.list<Sandbox>('Sandbox')).items.length;
    const before = await counts();
    const huge = await s.call(key, 'POST', '/v1/sandboxes', { cpu: 11 });
    expect([huge.statusCode, huge.json().error]).toEqual([422, 'resources_exceed_mac']);
    expect(await counts()).toBe(before);
    expect((await s.call(key, 'POST', '/v1/sandboxes', { cpu: 7 })).statusCode).toBe(201);
    const tooBig = await s.call(key, 'POST', '/v1/sandboxes', { cpu: 4 });
    expect([tooBig.statusCode, tooBig.json().error]).toEqual([409, 'insufficient_capacity']);
    expect((await s.call(key, 'POST', '/v1/sandboxes', { cpu: 3, memory_gib: 4 })).statusCode).toBe(201);
    const third = await s.call(key, 'POST', '/v1/sandboxes', { cpu: 2, memory_gib: 4 });
    expect([third.statusCode, third.json().error]).toEqual([409, 'sandbox_limit_reached']);
    expect(await counts()).toBe(before + 2);
    const disk = await s.call(key, 'POST', '/v1/sandboxes', { disk_gib: 65 });
    expect([disk.statusCode, disk.json().error]).toEqual([422, 'invalid_disk_size']);
  });

  it('answers a size below 2 vCPU / 4 GiB or not whole with 422 invalid_size, before the reservation', async () => {
    const { key } = await accountWithReservation('size-co');
    const noReservation = await seedAccount(s.f.store, 'size-none-co', 100_000_000);
    for (const [k, body] of [
      [key, { cpu: 1 }],
      [key, { cpu: 2.5 }],
      [key, { cpu: 0 }],
      [key, { memory_gib: 3 }],
      [noReservation, { cpu: 1 }],
    ] as const) {
      const r = await s.call(k, 'POST', '/v1/sandboxes', body);
      expect([r.statusCode, r.json().error], JSON.stringify(body)).toEqual([422, 'invalid_size']);
    }
    const text = await s.call(key, 'POST', '/v1/sandboxes', { cpu: 'two' });
    expect([text.statusCode, text.json().error]).toEqual([400, 'invalid_request']);
  });

  it('infers the only active reservation, asks for reservation_id with two, and says when there is none', async () => {
    const none = await seedAccount(s.f.store, 'none-co');
    const r0 = await s.call(none, 'POST', '/v1/sandboxes', {});
    expect([r0.statusCode, r0.json().error]).toEqual([409, 'no_active_reservation']);
    const { key, reservation } = await accountWithReservation('two-co');
    const second = await s.reserve(key);
    const r2 = await s.call(key, 'POST', '/v1/sandboxes', {});
    expect([r2.statusCode, r2.json().error]).toEqual([400, 'reservation_id_required']);
    const named = await s.call(key, 'POST', '/v1/sandboxes', { reservation_id: second.id });
    expect(named.statusCode).toBe(201);
    expect(named.json().reservation_id).toBe(second.id);
    // A reservation key creates in its own reservation, and cannot name another.
    const viaKey = await s.call(second.key, 'POST', '/v1/sandboxes', {});
    expect(viaKey.json().reservation_id).toBe(second.id);
    const foreign = await s.call(second.key, 'POST', '/v1/sandboxes', { reservation_id: reservation });
    expect(foreign.statusCode).toBe(404);
  });

  it('hides one account’s sandboxes from another, and a reservation key from other reservations (404)', async () => {
    const { key } = await accountWithReservation('owner-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
    for (const path of [`/v1/sandboxes/${sb}`, `/v1/sandboxes/${sb}/screenshot`]) {
      const r = await s.call(other, 'GET', path);
      expect([r.statusCode, r.json().error]).toEqual([404, 'sandbox_not_found']);
    }
    expect((await s.call(other, 'DELETE', `/v1/sandboxes/${sb}`)).statusCode).toBe(404);
    expect((await s.call(other, 'GET', '/v1/sandboxes')).json()).not.toContainEqual(
      expect.objectContaining({ sandbox_id: sb }),
    );
  });

  it('deletes with 204; the sandbox then answers 404 and its VM goes back to the pool', async () => {
    const { key } = await accountWithReservation('delete-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
    const del = await s.call(key, 'DELETE', `/v1/sandboxes/${sb}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect((await s.call(key, 'GET', `/v1/sandboxes/${sb}`)).statusCode).toBe(404);
    expect((await s.call(key, 'DELETE', `/v1/sandboxes/${sb}`)).statusCode).toBe(404);
    await waitFor(
      async () => !(await s.f.store.list<Sandbox>('Sandbox')).items.some((x) => x.metadata.name === sb),
      'the sandbox to be released',
    );
  });

  it('records activity and keepalives in last_active', async () => {
    const { key } = await accountWithReservation('alive-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', { ephemeral: true })).json().sandbox_id;
    s.f.clock.advance(60_000);
    const k = await s.call(key, 'POST', `/v1/sandboxes/${sb}/keepalive`);
    expect(k.statusCode).toBe(200);
    expect(k.json()).toEqual({ sandbox_id: sb, last_active: new Date(s.f.clock.now()).toISOString() });
    const info = await waitFor(async () => {
      const i = (await s.call(key, 'GET', `/v1/sandboxes/${sb}`)).json();
      return i.last_active === k.json().last_active ? i : undefined;
    }, 'last_active to show the keepalive');
    expect(info.ephemeral).toBe(true);
  });

  it('mints viewer links valid for at most an hour', async () => {
    const { key } = await accountWithReservation('viewer-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
    const r = await s.call(key, 'POST', `/v1/sandboxes/${sb}/viewer-token`);
    expect(r.statusCode).toBe(200);
    const t = r.json();
    expect(t.vnc_url).toBe(`/v1/sandboxes/${sb}/vnc?token=${t.token}`);
    expect(Date.parse(t.expires_at) - s.f.clock.now()).toBeLessThanOrEqual(3_600_000);
    expect(Date.parse(t.expires_at)).toBeGreaterThan(s.f.clock.now());
  });
});

describe('snapshots', () => {
  it('answers a failed capture with 502 snapshot_capture_failed', async () => {
    const { key } = await accountWithReservation('snap-fail-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
    s.f.sim.failNext('exportDelta');
    const r = await s.call(key, 'POST', `/v1/sandboxes/${sb}/snapshots`, { name: 'doomed' });
    expect([r.statusCode, r.json().error]).toEqual([502, 'snapshot_capture_failed']);
  });

  it('captures a named snapshot (201, ready), lists it, and restores a sandbox from it', async () => {
    const { key } = await accountWithReservation('snap-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
    await s.call(key, 'PUT', `/v1/sandboxes/${sb}/files?path=notes.txt`, 'kept', {
      'content-type': 'text/plain',
    });
    const r = await s.call(key, 'POST', `/v1/sandboxes/${sb}/snapshots`, { name: 'after setup' });
    expect(r.statusCode).toBe(201);
    const snap = r.json();
    expect(snap).toMatchObject({
      name: 'after setup',
      sandbox_id: sb,
      status: 'ready',
      base_image: 'base-macos-26',
      disk_gib: 50,
    });
    expect(snap.version).toMatch(/^snap-\d{8}t\d{6}z-[0-9a-f]{8}$/);
    expect((await s.call(key, 'GET', '/v1/snapshots')).json()).toContainEqual(snap);
    expect((await s.call(key, 'GET', `/v1/sandboxes/${sb}/snapshots`)).json()).toEqual([snap]);
    expect((await s.call(key, 'GET', `/v1/snapshots/${snap.version}`)).json()).toEqual(snap);
    expect((await s.call(other, 'GET', `/v1/snapshots/${snap.version}`)).statusCode).toBe(404);
    await s.call(key, 'DELETE', `/v1/sandboxes/${sb}`);
    const restored = await s.call(key, 'POST', '/v1/sandboxes', { snapshot: snap.version });
    expect(restored.statusCode, restored.body).toBe(201);
    expect(restored.json().boot).toBe('cold');
    const file = await s.call(key, 'GET', `/v1/sandboxes/${restored.json().sandbox_id}/files?path=notes.txt`);
    expect(file.body).toBe('kept');
    const missing = await s.call(key, 'POST', '/v1/sandboxes', { snapshot: 'snap-nope' });
    expect([missing.statusCode, missing.json().error]).toEqual([404, 'snapshot_not_found']);
    expect((await s.call(key, 'DELETE', `/v1/snapshots/${snap.version}`)).statusCode).toBe(204);
  });
});

describe('platforms', () => {
  it('counts a Mac being deleted as no longer free to reserve', async () => {
    const key = await seedAccount(s.f.store, 'plat-co', 100_000_000);
    const free = async () =>
      (await s.call(key, 'GET', '/v1/platforms'))
        .json()
        .models.find((m: { mac_model: string }) => m.mac_model === 'm4').available_minis as number;
    // A Mac of this test's own, held in `deleting` by a finalizer of the test's own.
    await s.f.addMini({ name: 'mini-leaving' });
    const ref = { kind: 'Mini', name: 'mini-leaving' };
    const mini = await waitFor(async () => {
      const m = await s.f.store.get<Mini>(ref);
      return m?.status?.phase === 'available' ? m : undefined;
    }, 'the new Mac available');
    const before = await free();
    await s.f.store.patch<Mini>(ref, {
      metadata: { finalizers: [...(mini.metadata.finalizers ?? []), 'test.sandbay.io/hold'] },
    });
    await s.f.store.delete(ref);
    expect(await free()).toBe(before - 1);
    const held = await s.f.store.get<Mini>(ref);
    await s.f.store.patch<Mini>(ref, {
      metadata: { finalizers: (held?.metadata.finalizers ?? []).filter((f) => f !== 'test.sandbay.io/hold') },
    });
    await waitFor(async () => !(await s.f.store.get<Mini>(ref)), 'the Mac gone');
  });
});

describe('system', () => {
  it('serves /health without a key, with pool statistics', async () => {
    const r = await s.call(undefined, 'GET', '/health');
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      status: 'ok',
      minis: { total: 16 },
      vms: { by_phase: expect.any(Object) },
    });
  });

  it('describes itself in OpenAPI 3.1, generated from the route schemas', async () => {
    const r = await s.call(undefined, 'GET', '/openapi.json');
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.2.0');
    for (const path of [
      '/v1/sandboxes',
      '/v1/sandboxes/{sandboxID}/mouse/click',
      '/v1/reservations/me',
      '/v1/sandboxes/{sandboxID}/act',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const click = doc.paths['/v1/sandboxes/{sandboxID}/mouse/click'].post;
    expect(click.requestBody.content['application/json'].schema.required).toEqual(['x', 'y']);
    expect(doc.paths['/v1/sandboxes/{sandboxID}/screenshot/compressed'].get.parameters).toContainEqual(
      expect.objectContaining({ name: 'format', in: 'query' }),
    );
    expect((await s.call(undefined, 'GET', '/docs')).statusCode).toBeLessThan(400);
  });

  it("keeps a caller's X-Request-Id and echoes it; an unsafe one is replaced by a fresh UUID", async () => {
    const given = await s.call(undefined, 'GET', '/health', undefined, {
      'x-request-id': 'trace-4bf92f35.01:a',
    });
    expect(given.headers['x-request-id']).toBe('trace-4bf92f35.01:a');
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const r = await s.call(undefined, 'GET', '/health', undefined, { 'x-request-id': bad });
      expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    const none = await s.call(undefined, 'GET', '/health');
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('echoes the X-Request-Id on refusals and on paths no route matches', async () => {
    const headers = { 'x-request-id': 'trace-refused-1' };
    const noKey = await s.call(undefined, 'GET', '/v1/sandboxes', undefined, headers);
    const badKey = await s.call('sk_not-a-key', 'POST', '/v1/sandboxes', {}, headers);
    const unmatched = await s.call(undefined, 'GET', '/v1/no-such-thing', undefined, headers);
    const unmatchedPost = await s.call(undefined, 'POST', '/nowhere', { a: 1 }, headers);
    expect(
      [noKey, badKey, unmatched, unmatchedPost].map((r) => [r.statusCode, r.headers['x-request-id']]),
    ).toEqual([
      [401, 'trace-refused-1'],
      [401, 'trace-refused-1'],
      [404, 'trace-refused-1'],
      [404, 'trace-refused-1'],
    ]);
  });

  it("counts a request no route matches once, as unmatched, and a route's requests under its route", async () => {
    const count = async (route: string, method: string, status: number): Promise<number> => {
      const text = await s.app.apiMetrics.registry.metrics();
      const labels = `method="${method}",route="${route}",status="${status}"`;
      const line = text.split('\n').find((l) => l.startsWith(`sandbay_http_requests_total{${labels}}`));
      return line === undefined ? 0 : Number(line.split(' ').pop());
    };
    const before = [
      await count('unmatched', 'GET', 404),
      await count('/v1/sandboxes/:sandboxID', 'GET', 401),
    ];
    await s.call(undefined, 'GET', '/v1/no-such-route');
    await s.call(undefined, 'GET', '/v1/sandboxes/sb-none');
    expect([
      await count('unmatched', 'GET', 404),
      await count('/v1/sandboxes/:sandboxID', 'GET', 401),
    ]).toEqual([before[0]! + 1, before[1]! + 1]);
  });

  it('names every operation with a unique camelCase operationId and tags it (SDK generators use both)', async () => {
    const doc = (await s.call(undefined, 'GET', '/openapi.json')).json();
    const ops = Object.entries(
      doc.paths as Record<string, Record<string, { operationId?: string; tags?: string[] }>>,
    ).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ at: `${method} ${path}`, op })),
    );
    expect(ops.length).toBeGreaterThan(50);
    for (const { at, op } of ops) {
      expect(op.operationId, at).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.tags?.length, at).toBeGreaterThan(0);
    }
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/v1/sandboxes'].post.operationId).toBe('createSandbox');
    expect(doc.paths['/v1/sandboxes/{sandboxID}/screenshot'].get.operationId).toBe('takeScreenshot');
  });

  it('serves the admin views and the metrics through the admin plugin', async () => {
    const { key } = await accountWithReservation('admin-view-co');
    const sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
    const admin = Fastify();
    await admin.register(buildAdminRoutes({ metrics: s.app.apiMetrics }), { store: s.f.store });
    const minis = (await admin.inject({ url: '/admin/minis' })).json();
    expect(minis).toHaveLength(16);
    expect(minis[0]).toMatchObject({ ip: expect.any(String) });
    const slots = (await admin.inject({ url: '/admin/slots' })).json();
    const mine = slots.find((x: { sandbox_id: string }) => x.sandbox_id === sb);
    const info = (await s.call(key, 'GET', `/v1/sandboxes/${sb}`)).json();
    expect(info.last_active).toEqual(expect.any(String));
    expect(mine).toMatchObject({
      status: 'occupied',
      vm_name: expect.any(String),
      mac_mini_ip: expect.any(String),
      last_active: info.last_active,
    });
    // 7 vCPU on an M4 leaves no room for the Mac's other warm VM: it is stopped aside, clean and
    // ready for the next sandbox, so its slot is `warm` (phase `stopped`), not `down`.
    const { key: bigKey } = await accountWithReservation('admin-aside-co');
    const big = (await s.call(bigKey, 'POST', '/v1/sandboxes', { cpu: 7 })).json();
    const bigSlot = (await admin.inject({ url: '/admin/slots' }))
      .json()
      .find((x: { sandbox_id: string }) => x.sandbox_id === big.sandbox_id);
    const aside = await waitFor(async () => {
      const now = (await admin.inject({ url: '/admin/slots' })).json();
      return now.find(
        (x: { mac_mini_ip: string; phase: string }) =>
          x.mac_mini_ip === bigSlot.mac_mini_ip && x.phase === 'stopped',
      );
    }, 'the other VM of the Mac stopped aside');
    expect(aside).toMatchObject({ status: 'warm', sandbox_id: '', last_active: '' });
    const sessions = (await admin.inject({ url: '/admin/sessions' })).json();
    expect(sessions).toContainEqual(
      expect.objectContaining({ sandbox_id: sb, state: 'running', account: 'admin-view-co' }),
    );
    const metrics = await admin.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(
      /sandbay_http_requests_total\{method="POST",route="\/v1\/sandboxes",status="201"\} \d+/,
    );
    await admin.close();
  });
});
