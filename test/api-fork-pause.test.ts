// Fork and pause through the customer API on the sim driver under the real operator: a fork into N
// placed by the scheduler (all or nothing, the spec's capacity errors, idempotent), pause and resume
// (409 sandbox_paused for every other call, the idle reaper and pool billing as docs/api.md says).
// The same behaviours on real desktops: test/api-fork-pause-linux.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { API_VERSION, type Account, type IdempotencyRecord, type Sandbox, type VM } from '../crds/index.ts';
import { recordName } from '../api/idempotency.ts';
import { FORK_LABEL, forkName } from '../api/services/forks.ts';
import { resourceCounts, seedAccount, startApiStack, waitFor, type ApiStack } from './api-harness.ts';

let s: ApiStack;
let n = 0;

beforeAll(async () => {
  s = await startApiStack([
    ...Array.from({ length: 20 }, (_, i) => ({ name: `mini-${i + 1}` })),
    { name: 'pool-1', pool: true },
    { name: 'pool-2', pool: true },
  ]);
});
afterAll(async () => s?.cleanup());

/** A fresh account with a reservation of `minis` Macs and one running sandbox in it. */
async function withSandbox(minis = 2, body: Record<string, unknown> = {}) {
  const key = await seedAccount(s.f.store, `fp${++n}`, 100_000_000);
  const r = await s.reserve(key, { mini_count: minis });
  const created = await s.call(key, 'POST', '/v1/sandboxes', body);
  expect(created.statusCode).toBe(201);
  return { key, account: `fp${n}`, reservation: r.id, id: created.json<{ sandbox_id: string }>().sandbox_id };
}

async function sandbox(account: string, name: string): Promise<Sandbox | undefined> {
  return s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: account, name });
}

async function forksOf(account: string): Promise<Sandbox[]> {
  const { items } = await s.f.store.list<Sandbox>('Sandbox', { namespace: account });
  return items.filter(
    (sb) => sb.metadata.labels?.[FORK_LABEL] !== undefined && !sb.metadata.deletionTimestamp,
  );
}

describe('fork', () => {
  it("forks a running sandbox into N running sandboxes that start from the source's disk", async () => {
    const { key, account, id } = await withSandbox(2);
    const put = await s.call(key, 'PUT', `/v1/sandboxes/${id}/files?path=state.txt`, 'before the fork', {
      'content-type': 'application/octet-stream',
    });
    expect(put.statusCode).toBe(204);
    const r = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 3 });
    expect(r.statusCode).toBe(201);
    const body = r.json<{ source_id: string; sandboxes: Record<string, unknown>[] }>();
    expect(body.source_id).toBe(id);
    expect(body.sandboxes).toHaveLength(3);
    const source = (await sandbox(account, id))!;
    for (const fork of body.sandboxes) {
      expect(fork).toMatchObject({
        fork_of: id,
        boot: 'cold',
        cpu: source.status!.cpu,
        memory_gib: source.status!.memoryGiB,
      });
      const info = await s.call(key, 'GET', `/v1/sandboxes/${String(fork.sandbox_id)}`);
      expect(info.json()).toMatchObject({ state: 'running', fork_of: id });
      const file = await s.call(key, 'GET', `/v1/sandboxes/${String(fork.sandbox_id)}/files?path=state.txt`);
      expect(file.body).toBe('before the fork');
    }
    // The source's Mac is preferred: one fork lands beside it (each Mac runs two), the others elsewhere.
    expect(body.sandboxes.filter((f) => f.host === source.status!.mini)).toHaveLength(1);
    // Each fork's disk is its own: a write to one is seen by no other, nor by the source.
    const first = String(body.sandboxes[0]!.sandbox_id);
    await s.call(key, 'PUT', `/v1/sandboxes/${first}/files?path=state.txt`, 'changed in a fork', {
      'content-type': 'application/octet-stream',
    });
    expect((await s.call(key, 'GET', `/v1/sandboxes/${id}/files?path=state.txt`)).body).toBe(
      'before the fork',
    );
    const second = String(body.sandboxes[1]!.sandbox_id);
    expect((await s.call(key, 'GET', `/v1/sandboxes/${second}/files?path=state.txt`)).body).toBe(
      'before the fork',
    );
  });

  it('refuses a fork that does not fit with the spec capacity error, writing nothing', async () => {
    const { key, id } = await withSandbox(1);
    const before = await resourceCounts(s.f.store);
    const r = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 2 });
    expect(r.statusCode).toBe(409);
    expect(r.json()).toMatchObject({ error: 'sandbox_limit_reached' });
    expect(r.json().message).toMatch(/^2 sandboxes do not fit, 1 would: /);
    expect(await resourceCounts(s.f.store)).toEqual(before);
    // One fits: the same Mac's second slot.
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 1 })).statusCode).toBe(201);
  });

  it('is idempotent under Idempotency-Key: a retry answers the same forks, a different body is 422', async () => {
    const { key, account, id } = await withSandbox(2);
    const headers = { 'idempotency-key': `fork-${id}` };
    const first = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 2 }, headers);
    expect(first.statusCode).toBe(201);
    const again = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 2 }, headers);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await forksOf(account)).toHaveLength(2);
    const other = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 1 }, headers);
    expect(other.statusCode).toBe(422);
    expect(other.json().error).toBe('idempotency_key_reused');
  });

  it('a retry after a crash answers the forks its dead attempt made, and makes no other', async () => {
    const { key, account, id } = await withSandbox(2);
    const body = JSON.stringify({ count: 2 });
    const group = 'c0ffee'.padEnd(32, '0');
    const now = s.f.clock.now();
    // What an attempt leaves when its server dies mid-call: its key claimed (in flight, by a boot
    // that is over) and its forks written.
    await s.f.store.create<IdempotencyRecord>({
      apiVersion: API_VERSION,
      kind: 'IdempotencyRecord',
      metadata: { name: recordName('test', 'crashed-fork'), namespace: account },
      spec: {
        key: 'crashed-fork',
        method: 'POST',
        path: `/v1/sandboxes/${id}/fork`,
        bodySha256: createHash('sha256').update(body).digest('hex'),
        bootId: 'a-boot-that-died',
        deadline: new Date(now + 600_000).toISOString(),
        expiresAt: new Date(now + 86_400_000).toISOString(),
        resource: group,
      },
    });
    const source = (await sandbox(account, id))!;
    const made = await s.f.store.create<Sandbox>({
      apiVersion: API_VERSION,
      kind: 'Sandbox',
      metadata: { name: forkName(group, 0), namespace: account, labels: { [FORK_LABEL]: group } },
      spec: { ...source.spec, cpu: source.status!.cpu!, memoryGiB: source.status!.memoryGiB!, forkOf: id },
    });
    const retry = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, body, {
      'idempotency-key': 'crashed-fork',
      'content-type': 'application/json',
    });
    expect(retry.statusCode, retry.body).toBe(201);
    const ids = retry.json().sandboxes.map((f: { sandbox_id: string }) => f.sandbox_id);
    expect(ids).toEqual([made.metadata.name, forkName(group, 1)]);
    expect((await forksOf(account)).map((f) => f.metadata.name).sort()).toEqual([...ids].sort());
  });

  it('makes none when one fork fails: the others are deleted and the failure is the answer', async () => {
    const { key, account, id } = await withSandbox(2);
    const source = (await sandbox(account, id))!;
    // The fork beside the source copies its disk on that Mac: make that copy fail once.
    s.f.sim.failNext('forkVm', { address: s.f.addressOf(source.status!.mini!), message: 'disk full' });
    const r = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 2 });
    expect(r.statusCode).toBe(502);
    expect(r.json()).toMatchObject({ error: 'fork_failed' });
    expect(r.json().message).toContain('disk full');
    await waitFor(async () => (await forksOf(account)).length === 0, 'every fork deleted');
    expect((await sandbox(account, id))?.status?.phase).toBe('running');
  });

  it('answers bad input with a clear error and writes nothing', async () => {
    const { key, id } = await withSandbox(1);
    const before = await resourceCounts(s.f.store);
    for (const body of [{ count: 0 }, { count: 33 }, { count: 1.5 }, { count: 1, extra: true }]) {
      const r = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(400);
      expect(r.json().error).toBe('invalid_request');
    }
    const missing = await s.call(key, 'POST', `/v1/sandboxes/sb-${'0'.repeat(32)}/fork`, { count: 1 });
    expect(missing.statusCode).toBe(404);
    expect(await resourceCounts(s.f.store)).toEqual(before);
  });

  it('forks a pool sandbox into pool sandboxes, each paying its first hour', async () => {
    const { key, account } = await withSandbox(1);
    const created = await s.call(key, 'POST', '/v1/sandboxes', { pool: true });
    expect(created.statusCode).toBe(201);
    const balance = async () =>
      (await s.f.store.get<Account>({ kind: 'Account', name: account }))!.status!.balanceCents!;
    const before = await balance();
    const r = await s.call(key, 'POST', `/v1/sandboxes/${created.json().sandbox_id}/fork`, { count: 2 });
    expect(r.statusCode).toBe(201);
    expect(r.json().sandboxes.map((f: { pool: boolean }) => f.pool)).toEqual([true, true]);
    expect(before - (await balance())).toBe(2 * 90);
  });
});

describe('pause and resume', () => {
  it('pauses a running sandbox: its VM frozen, every other call 409 sandbox_paused; resume runs it again', async () => {
    const { key, account, id } = await withSandbox(1);
    const r = await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ sandbox_id: id, state: 'paused' });
    expect(Date.parse(r.json().paused_at)).toBe(s.f.clock.now());
    const sb = (await sandbox(account, id))!;
    const vm = () =>
      s.f.sim.inspect(s.f.addressOf(sb.status!.mini!))!.vms.find((v) => v.name === sb.status!.vm)!;
    expect(vm()).toMatchObject({ state: 'running', paused: true });
    const calls: [string, string, unknown?][] = [
      ['GET', 'screenshot'],
      ['POST', 'exec', { command: 'true' }],
      ['POST', 'mouse/click', { x: 1, y: 1 }],
      ['GET', 'files?path=x'],
      ['POST', 'snapshots', { name: 'while paused' }],
      ['POST', 'viewer-token'],
      ['POST', 'keepalive'],
      ['POST', 'fork', { count: 1 }],
      ['POST', 'recording/start', {}],
      ['GET', 'display/windows'],
      ['POST', 'setup', { steps: [{ type: 'sleep', seconds: 0 }] }],
      ['POST', 'grade', { grader: 'true' }],
      ['POST', 'cua/cmd', { command: 'get_screen_size' }],
    ];
    for (const [method, path, body] of calls) {
      const answer = await s.call(key, method as 'GET', `/v1/sandboxes/${id}/${path}`, body);
      expect(answer.statusCode, `${method} ${path}`).toBe(409);
      expect(answer.json().error, `${method} ${path}`).toBe('sandbox_paused');
    }
    expect((await s.call(key, 'GET', `/v1/sandboxes/${id}`)).json().state).toBe('paused');
    const resumed = await s.call(key, 'POST', `/v1/sandboxes/${id}/resume`);
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json()).toMatchObject({ state: 'running', paused_at: null });
    expect(vm().paused).toBe(false);
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/exec`, { command: 'true' })).statusCode).toBe(200);
  });

  it('refuses a pause of a paused sandbox and a resume of a running one, changing nothing', async () => {
    const { key, account, id } = await withSandbox(1);
    const runningAgain = await s.call(key, 'POST', `/v1/sandboxes/${id}/resume`);
    expect(runningAgain.statusCode).toBe(409);
    expect(runningAgain.json().error).toBe('sandbox_not_paused');
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`)).statusCode).toBe(200);
    const before = (await sandbox(account, id))!.metadata.resourceVersion;
    const again = await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: 'sandbox_paused' });
    expect(again.json().message).toMatch(/is paused: resume it first/);
    expect((await sandbox(account, id))!.metadata.resourceVersion).toBe(before);
  });

  it('answers a pause the driver fails with 502 pause_failed and leaves the sandbox running', async () => {
    const { key, account, id } = await withSandbox(1);
    const sb = (await sandbox(account, id))!;
    s.f.sim.failNext('pauseVm', { address: s.f.addressOf(sb.status!.mini!), message: 'freezer stuck' });
    const r = await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`);
    expect(r.statusCode).toBe(502);
    expect(r.json()).toMatchObject({
      error: 'pause_failed',
      message: expect.stringContaining('freezer stuck'),
    });
    await waitFor(async () => (await sandbox(account, id))?.spec.paused === false, 'the wish put back');
    expect((await sandbox(account, id))?.status?.phase).toBe('running');
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/exec`, { command: 'true' })).statusCode).toBe(200);
    // The failed wish is not retried behind the caller's back: the VM was never paused.
    const paused = (await sandbox(account, id))?.status?.conditions?.find((c) => c.type === 'Paused');
    expect(paused).toMatchObject({ status: 'False', reason: 'pause_failed' });
  });

  it('is not reaped while paused (ephemeral); its idle clock starts again at the resume', async () => {
    const { key, account, id } = await withSandbox(1, { ephemeral: true });
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`)).statusCode).toBe(200);
    s.f.clock.advance(30 * 60_000);
    await s.f.op.controllers.sandbox.queue.whenIdle();
    expect((await sandbox(account, id))?.status?.phase).toBe('paused');
    const resumed = await s.call(key, 'POST', `/v1/sandboxes/${id}/resume`);
    expect(resumed.statusCode, resumed.body).toBe(200);
    const resumedAt = s.f.clock.now();
    expect(Date.parse((await sandbox(account, id))!.status!.lastActive!)).toBe(resumedAt);
    await waitFor(() => s.f.clock.pendingTimers() > 0, 'reaper armed');
    s.f.clock.advance(119_000);
    await s.f.op.controllers.sandbox.queue.whenIdle();
    expect(await sandbox(account, id)).toBeDefined();
    s.f.clock.advance(1_000);
    await waitFor(
      async () => (await sandbox(account, id)) === undefined,
      'reaped 2 minutes after the resume',
    );
  });

  it('keeps its place: a paused sandbox counts against capacity like a running one', async () => {
    const { key, id } = await withSandbox(1);
    expect((await s.call(key, 'POST', '/v1/sandboxes', {})).statusCode).toBe(201);
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`)).statusCode).toBe(200);
    const third = await s.call(key, 'POST', '/v1/sandboxes', {});
    expect(third.statusCode).toBe(409);
    expect(third.json().error).toBe('sandbox_limit_reached');
  });

  it('deletes a paused sandbox: 204, its VM discarded and a fresh one cloned', async () => {
    const { key, account, id } = await withSandbox(1);
    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`)).statusCode).toBe(200);
    const vmName = (await sandbox(account, id))!.status!.vm!;
    expect((await s.call(key, 'DELETE', `/v1/sandboxes/${id}`)).statusCode).toBe(204);
    await waitFor(async () => (await sandbox(account, id)) === undefined, 'deleted');
    await waitFor(async () => {
      const vm = await s.f.store.get<VM>({ kind: 'VM', name: vmName });
      return vm === undefined || vm.status?.phase === 'warm';
    }, 'the VM re-cloned into the pool');
  });
});
