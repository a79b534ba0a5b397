// The egress policy through the API on the sim driver under the real operator (docs/api.md, Egress):
// where a policy is refused and that a refusal writes nothing, what the Mac's default is, that the
// reconciler puts the policy on the VM before the sandbox runs and again on a PATCH, and what a
// driver failure answers. What the policy does inside a real VM: test/egress-linux.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressSupport, Sandbox } from '../crds/index.ts';
import { TART_EGRESS } from '../hosts/tart/egress.ts';
import { linuxEgressSupport } from '../hosts/linux/egress.ts';
import { resourceCounts, seedAccount, startApiStack, waitFor, type ApiStack } from './api-harness.ts';

/** One Mac enforcing `egress`, an account with a reservation of it. */
async function stackWith(egress?: EgressSupport) {
  const s = await startApiStack(
    [{ name: 'mini-1' }],
    {},
    egress ? { sim: { hosts: { '10.0.0.1': { egress } } } } : {},
  );
  const key = await seedAccount(s.f.store, 'acme', 100_000_000);
  await s.reserve(key);
  return { s, key };
}

async function create(s: ApiStack, key: string, body: Record<string, unknown> = {}) {
  return waitFor(async () => {
    const r = await s.call(key, 'POST', '/v1/sandboxes', body);
    return r.statusCode === 503 && r.json().error === 'no_warm_vm' ? undefined : r;
  }, 'a warm VM');
}

/** Deletes the sandbox and waits until the reconciler has let it go (a count taken after is settled). */
async function remove(s: ApiStack, key: string, id: string) {
  await s.call(key, 'DELETE', `/v1/sandboxes/${id}`);
  await waitFor(
    async () => !(await s.f.store.get({ kind: 'Sandbox', namespace: 'acme', name: id })),
    'the sandbox gone',
  );
}

const vmEgress = (s: ApiStack, vm: string) =>
  s.f.sim.inspect('10.0.0.1')?.vms.find((v) => v.name === vm)?.egress;

describe('a Mac that enforces every mode', () => {
  let s: ApiStack;
  let key: string;
  beforeAll(async () => ({ s, key } = await stackWith()));
  afterAll(async () => s?.cleanup());

  it('puts the policy on the VM before the sandbox runs, and a PATCH on it through the same path', async () => {
    const r = await create(s, key, {
      egress: { mode: 'allow', allow: ['Example.COM.', '203.0.113.9/24', 'example.com'] },
    });
    expect(r.statusCode).toBe(201);
    const policy = { mode: 'allow', allow: ['example.com', '203.0.113.0/24'] };
    expect(r.json().egress).toEqual(policy);
    const id = r.json().sandbox_id as string;
    const sb = (await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: id }))!;
    expect(sb.spec.egress).toEqual(policy);
    expect(vmEgress(s, sb.status!.vm!)).toEqual(policy);

    const patched = await s.call(key, 'PATCH', `/v1/sandboxes/${id}/network`, { egress: { mode: 'none' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({
      egress: { mode: 'none', allow: [] },
      modes: ['none', 'all', 'allow'],
      domains: true,
    });
    expect(vmEgress(s, sb.status!.vm!)).toEqual({ mode: 'none', allow: [] });
    // The same policy again: nothing to do, answered at once.
    const again = await s.call(key, 'PATCH', `/v1/sandboxes/${id}/network`, { egress: { mode: 'none' } });
    expect(again.json().egress).toEqual({ mode: 'none', allow: [] });
    expect((await s.call(key, 'GET', `/v1/sandboxes/${id}`)).json().egress).toEqual({
      mode: 'none',
      allow: [],
    });
    await remove(s, key, id);
  });

  it('gives a fork its source’s policy, and answers a PATCH on a paused sandbox with sandbox_paused', async () => {
    const policy = { mode: 'allow', allow: ['203.0.113.0/24'] };
    const id = (await create(s, key, { egress: policy })).json().sandbox_id as string;
    const forked = await s.call(key, 'POST', `/v1/sandboxes/${id}/fork`, { count: 1 });
    expect(forked.statusCode, forked.body).toBe(201);
    const fork = String(forked.json<{ sandboxes: { sandbox_id: string }[] }>().sandboxes[0]!.sandbox_id);
    const sb = (await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: fork }))!;
    expect(sb.spec.egress).toEqual(policy);
    expect(vmEgress(s, sb.status!.vm!)).toEqual(policy);
    expect((await s.call(key, 'GET', `/v1/sandboxes/${fork}/network`)).json().egress).toEqual(policy);
    await remove(s, key, fork);

    expect((await s.call(key, 'POST', `/v1/sandboxes/${id}/pause`)).statusCode).toBe(200);
    const before = (await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: id }))!;
    const paused = await s.call(key, 'PATCH', `/v1/sandboxes/${id}/network`, { egress: { mode: 'none' } });
    expect(paused.statusCode).toBe(409);
    expect(paused.json().error).toBe('sandbox_paused');
    const after = (await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: id }))!;
    expect(after.spec.egress).toEqual(before.spec.egress);
    await remove(s, key, id);
  });

  it('answers bad input with 400 naming the rule, and writes nothing', async () => {
    const before = await resourceCounts(s.f.store);
    const cases: [unknown, string, RegExp][] = [
      [{ mode: 'allow', allow: ['exa mple.com'] }, 'invalid_egress', /"exa mple.com" is not a domain name/],
      [{ mode: 'allow', allow: ['203.0.113.300'] }, 'invalid_egress', /neither an IPv4 address or CIDR/],
      [{ mode: 'allow', allow: ['169.254.169.254'] }, 'invalid_egress', /169\.254\.0\.0\/16 \(link-local/],
      [{ mode: 'allow', allow: ['::1'] }, 'invalid_egress', /IPv6/],
      [{ mode: 'allow' }, 'invalid_egress', /at least one rule/],
      [{ mode: 'all', allow: ['example.com'] }, 'invalid_egress', /applies to mode "allow" only/],
      [{ mode: 'open' }, 'invalid_request', /egress\/mode/],
      [
        { mode: 'allow', allow: Array.from({ length: 257 }, (_, i) => `h${i}.example`) },
        'invalid_request',
        /allow/,
      ],
    ];
    for (const [egress, error, message] of cases) {
      const r = await s.call(key, 'POST', '/v1/sandboxes', { egress });
      expect({ egress, status: r.statusCode, error: r.json().error }).toEqual({ egress, status: 400, error });
      expect(r.json().message).toMatch(message);
    }
    expect(await resourceCounts(s.f.store)).toEqual(before);
  });

  it('fails a create whose policy the driver cannot apply: 502 egress_failed, the sandbox gone', async () => {
    s.f.sim.failNext('setEgress', { message: 'nft: injected failure' });
    const r = await create(s, key, { egress: { mode: 'all' } });
    expect(r.statusCode).toBe(502);
    expect(r.json()).toMatchObject({
      error: 'egress_failed',
      message: expect.stringContaining('injected failure'),
    });
    await waitFor(
      async () => (await s.call(key, 'GET', '/v1/sandboxes')).json().length === 0,
      'the sandbox gone',
    );
  });

  it('answers a PATCH the driver fails with 502 egress_failed, and puts it on when a retry succeeds', async () => {
    const r = await create(s, key, { egress: { mode: 'none' } });
    const id = r.json().sandbox_id as string;
    const vm = (await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: id }))!.status!.vm!;
    s.f.sim.failNext('setEgress', { message: 'nft: injected failure' });
    const patched = await s.call(key, 'PATCH', `/v1/sandboxes/${id}/network`, { egress: { mode: 'all' } });
    expect(patched.statusCode).toBe(502);
    expect(patched.json()).toMatchObject({ error: 'egress_failed' });
    // The spec says `all`: the reconciler retries (with backoff) until it holds.
    await waitFor(() => {
      s.f.clock.advance(5_000);
      return vmEgress(s, vm)?.mode === 'all';
    }, 'the retry');
    await waitFor(
      async () => (await s.call(key, 'GET', `/v1/sandboxes/${id}/network`)).json().egress.mode === 'all',
      'status',
    );
    await remove(s, key, id);
  });
});

describe('a linux Mac whose operator keeps VMs offline (no --vm-outbound-nat)', () => {
  let s: ApiStack;
  let key: string;
  beforeAll(async () => ({ s, key } = await stackWith(linuxEgressSupport(false, 'all'))));
  afterAll(async () => s?.cleanup());

  it('refuses a create asking for egress at once with 422 egress_not_allowed naming the switch, writing nothing', async () => {
    const before = await resourceCounts(s.f.store);
    for (const egress of [{ mode: 'all' }, { mode: 'allow', allow: ['example.com'] }]) {
      const r = await s.call(key, 'POST', '/v1/sandboxes', { egress });
      expect(r.statusCode).toBe(422);
      expect(r.json()).toMatchObject({
        error: 'egress_not_allowed',
        message: expect.stringContaining('--vm-outbound-nat'),
      });
    }
    expect(await resourceCounts(s.f.store)).toEqual(before);
  });

  it('runs a sandbox that asks for nothing with none, and refuses a PATCH to all without changing its spec', async () => {
    const r = await create(s, key);
    expect(r.json().egress).toEqual({ mode: 'none', allow: [] });
    const id = r.json().sandbox_id as string;
    const patched = await s.call(key, 'PATCH', `/v1/sandboxes/${id}/network`, { egress: { mode: 'all' } });
    expect(patched.statusCode).toBe(422);
    expect(patched.json().error).toBe('egress_not_allowed');
    const sb = (await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name: id }))!;
    expect(sb.spec.egress).toBeUndefined();
    expect((await s.call(key, 'GET', `/v1/sandboxes/${id}/network`)).json()).toEqual({
      egress: { mode: 'none', allow: [] },
      modes: ['none'],
      domains: true,
    });
    await remove(s, key, id);
  });
});

describe('a tart Mac (Softnet cannot hold a per-sandbox policy)', () => {
  let s: ApiStack;
  let key: string;
  beforeAll(async () => ({ s, key } = await stackWith(TART_EGRESS)));
  afterAll(async () => s?.cleanup());

  it('refuses none and allow by name with the reason, and runs all (its shared network)', async () => {
    for (const egress of [{ mode: 'none' }, { mode: 'allow', allow: ['203.0.113.0/24'] }]) {
      const r = await s.call(key, 'POST', '/v1/sandboxes', { egress });
      expect(r.statusCode).toBe(422);
      expect(r.json().message).toMatch(/--net-softnet-allow.*cannot name domains/);
    }
    const r = await create(s, key, { egress: { mode: 'all' } });
    expect(r.statusCode).toBe(201);
    expect(r.json().egress).toEqual({ mode: 'all', allow: [] });
  });
});
