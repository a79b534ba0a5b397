import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStoreError } from '../../store/store.ts';
import type { Account, ApiKey } from '../../crds/index.ts';
import { tempStore, waitFor, type TempStore } from '../../test/operator-fixtures.ts';
import { Client } from './client.ts';
import { FakeClock } from './clock.ts';
import { Controller } from './controller.ts';
import { Informer } from './informer.ts';

const API = 'sandbay.io/v1alpha1';
const account = (name: string): Account => ({
  apiVersion: API,
  kind: 'Account',
  metadata: { name },
  spec: { displayName: name, userId: '00000000-0000-4000-8000-000000000001' },
});
const key = (name: string, acct: string): ApiKey => ({
  apiVersion: API,
  kind: 'ApiKey',
  metadata: { name },
  spec: { kind: 'account', account: acct, sha256: 'a'.repeat(64), prefix: 'sbk_', revoked: false },
});

/**
 * A small real controller: each Account's status says how many unrevoked ApiKeys it has. ApiKeys
 * are watched and mapped to their account's key, as owned kinds map to owners.
 */
function keyCounter(t: TempStore, clock = new FakeClock()) {
  const accounts = new Informer<Account>({ store: t.store, kind: 'Account' });
  const keys = new Informer<ApiKey>({ store: t.store, kind: 'ApiKey' });
  keys.addIndex('account', (k) => (k.spec.account ? [k.spec.account] : []));
  const client = new Client(t.store, [accounts as never, keys as never]);
  const calls: string[] = [];
  const controller = new Controller({
    name: 'key-counter',
    for: accounts as never,
    watches: [{ informer: keys as never, map: (k) => [(k as ApiKey).spec.account ?? ''] }],
    clock,
    concurrency: 4,
    reconcile: async (name) => {
      calls.push(name);
      const acct = accounts.get(name);
      if (!acct) return;
      const count = keys.byIndex('account', name).filter((k) => !k.spec.revoked).length;
      const conditions = [{ type: 'Keys', status: 'True' as const, reason: String(count) }];
      if (acct.status?.conditions?.[0]?.reason === String(count)) return;
      await client.updateStatus({ ...acct, status: { ...acct.status, conditions } });
    },
  });
  return { controller, accounts, keys, calls, client };
}

const keyCount = (a: Account | undefined) => a?.status?.conditions?.[0]?.reason;

describe('Controller', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore();
  });
  afterEach(async () => t.cleanup());

  it('reconciles every object of its kind and follows related kinds to their owner', async () => {
    await t.store.create(account('a'));
    await t.store.create(key('k-1', 'a'));
    const c = keyCounter(t);
    await c.controller.start();
    await waitFor(() => keyCount(c.accounts.get('a')) === '1', 'a counted 1 key');
    await t.store.create(account('b'));
    await t.store.create(key('k-2', 'b'));
    await t.store.create(key('k-3', 'b'));
    await waitFor(() => keyCount(c.accounts.get('b')) === '2', 'b counted 2 keys');
    await t.store.delete({ kind: 'ApiKey', name: 'k-1' });
    await waitFor(() => keyCount(c.accounts.get('a')) === '0', 'a counted 0 keys');
    await c.controller.stop();
    c.accounts.stop();
    c.keys.stop();
  });

  it('changes nothing when a settled object is reconciled again', async () => {
    await t.store.create(account('a'));
    const c = keyCounter(t);
    await c.controller.start();
    await waitFor(() => keyCount(c.accounts.get('a')) === '0', 'a reconciled');
    await c.controller.queue.whenIdle();
    const before = c.accounts.get('a')!.metadata.resourceVersion;
    c.controller.enqueue('a');
    c.controller.enqueue('a');
    await waitFor(() => c.calls.filter((x) => x === 'a').length >= 2, 'a reconciled again');
    await c.controller.queue.whenIdle();
    expect((await t.store.get<Account>({ kind: 'Account', name: 'a' }))!.metadata.resourceVersion).toBe(
      before,
    );
    await c.controller.stop();
    c.accounts.stop();
    c.keys.stop();
  });

  it('reads its own writes: a write returns only once the cache holds it', async () => {
    const c = keyCounter(t);
    await c.controller.start();
    const created = await c.client.create(account('z'));
    expect(c.accounts.get('z')?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    await c.client.delete({ kind: 'Account', name: 'z' });
    expect(c.accounts.get('z')).toBeUndefined();
    await c.controller.stop();
    c.accounts.stop();
    c.keys.stop();
  });

  it('folds a burst of changes to one object, seen while it reconciles, into one more reconcile', async () => {
    const accounts = new Informer<Account>({ store: t.store, kind: 'Account' });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const controller = new Controller({
      name: 'burst',
      for: accounts as never,
      concurrency: 4,
      reconcile: async (name) => {
        calls.push(name);
        if (calls.length === 1) await held;
      },
    });
    const a = await t.store.create(account('a'));
    await controller.start();
    await waitFor(() => calls.length === 1, 'first reconcile');
    let obj = a;
    for (let i = 0; i < 10; i++)
      obj = await t.store.update({ ...obj, spec: { ...obj.spec, displayName: `v${i}` } });
    await accounts.waitForResourceVersion(obj.metadata.resourceVersion);
    expect(controller.queue.running).toBe(1);
    release();
    await waitFor(() => calls.length === 2, 'second reconcile');
    await controller.queue.whenIdle();
    expect(calls).toEqual(['a', 'a']);
    await controller.stop();
    accounts.stop();
  });

  it('queues the keys of a coalesced watch once, when the window after the first change closes', async () => {
    const accounts = new Informer<Account>({ store: t.store, kind: 'Account' });
    const keys = new Informer<ApiKey>({ store: t.store, kind: 'ApiKey' });
    const real = new FakeClock();
    const calls: string[] = [];
    const controller = new Controller({
      name: 'coalesced',
      for: accounts as never,
      watches: [{ informer: keys as never, map: (k) => [(k as ApiKey).spec.account ?? ''], coalesceMs: 250 }],
      backoffClock: real,
      reconcile: async (name) => {
        calls.push(name);
      },
    });
    await t.store.create(account('a'));
    await controller.start();
    await waitFor(() => calls.length === 1, 'the add of a');
    await controller.queue.whenIdle();
    let last;
    for (let i = 0; i < 5; i++) last = await t.store.create(key(`k-${i}`, 'a'));
    await keys.waitForResourceVersion(last!.metadata.resourceVersion);
    expect(controller.queue.coalescing).toBe(1);
    expect(controller.queue.length + controller.queue.running).toBe(0);
    expect(calls).toEqual(['a']); // five changes seen, none run yet
    real.advance(250);
    await waitFor(() => calls.length === 2, 'one reconcile for the five keys');
    await controller.queue.whenIdle();
    expect(calls).toEqual(['a', 'a']);
    await controller.stop();
    accounts.stop();
    keys.stop();
  });

  it('retries after a write conflict with exponential backoff on the injected clock', async () => {
    const clock = new FakeClock();
    const accounts = new Informer<Account>({ store: t.store, kind: 'Account' });
    const attempts: number[] = [];
    const conflicts: boolean[] = [];
    const controller = new Controller({
      name: 'conflicts',
      for: accounts as never,
      clock,
      backoff: { baseMs: 1_000, maxMs: 60_000 },
      reconcile: async (name) => {
        const current = (await t.store.get<Account>({ kind: 'Account', name }))!;
        if (current.status?.balanceCents === 5) return;
        attempts.push(clock.now());
        // The first two attempts write from a stale version, as a reconcile racing another writer does.
        const stale = attempts.length <= 2 ? { ...current.metadata, resourceVersion: '1' } : current.metadata;
        try {
          await t.store.updateStatus({ ...current, metadata: stale, status: { balanceCents: 5 } });
        } catch (err) {
          conflicts.push(isStoreError(err, 'Conflict'));
          throw err;
        }
      },
    });
    await t.store.create(account('x'));
    await t.store.create(account('a'));
    await t.store.delete({ kind: 'Account', name: 'x' });
    const t0 = clock.now();
    await controller.start();
    await waitFor(() => attempts.length === 1 && controller.queue.delayed === 1, 'first retry armed');
    clock.advance(999);
    expect(attempts).toHaveLength(1);
    clock.advance(1);
    await waitFor(() => attempts.length === 2 && controller.queue.delayed === 1, 'second retry armed');
    clock.advance(2_000);
    await waitFor(
      async () => (await t.store.get<Account>({ kind: 'Account', name: 'a' }))?.status?.balanceCents === 5,
      'write',
    );
    await controller.queue.whenIdle();
    expect(attempts.map((at) => at - t0)).toEqual([0, 1_000, 3_000]);
    expect(conflicts).toEqual([true, true]);
    expect(controller.queue.failures('a')).toBe(0);
    await controller.stop();
    accounts.stop();
  });

  it('reconciles again after the requeueAfter it returned, on the injected clock', async () => {
    const clock = new FakeClock();
    const accounts = new Informer<Account>({ store: t.store, kind: 'Account' });
    const expireAt = clock.now() + 60 * 60_000;
    const controller = new Controller({
      name: 'expiry',
      for: accounts as never,
      clock,
      reconcile: async (name) => {
        const acct = accounts.get(name);
        if (!acct || acct.status?.balanceCents === 0) return;
        if (clock.now() < expireAt) return { requeueAfterMs: expireAt - clock.now() };
        await t.store.patch(
          { kind: 'Account', name },
          { status: { balanceCents: 0 } },
          { subresource: 'status' },
        );
      },
    });
    await t.store.create(account('a'));
    await controller.start();
    await waitFor(() => controller.queue.delayed === 1, 'requeue armed');
    clock.advance(59 * 60_000);
    await controller.queue.whenIdle();
    expect(
      (await t.store.get<Account>({ kind: 'Account', name: 'a' }))!.status?.balanceCents,
    ).toBeUndefined();
    clock.advance(60_000);
    await waitFor(
      async () => (await t.store.get<Account>({ kind: 'Account', name: 'a' }))?.status?.balanceCents === 0,
      'expired',
    );
    await controller.stop();
    accounts.stop();
  });

  it('shuts down gracefully: the reconcile in flight finishes its write, nothing starts after', async () => {
    const accounts = new Informer<Account>({ store: t.store, kind: 'Account' });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const controller = new Controller({
      name: 'drain',
      for: accounts as never,
      concurrency: 1,
      reconcile: async (name) => {
        started.push(name);
        await held;
        await t.store.patch(
          { kind: 'Account', name },
          { status: { balanceCents: 1 } },
          { subresource: 'status' },
        );
      },
    });
    await t.store.create(account('a'));
    await t.store.create(account('b'));
    await controller.start();
    await waitFor(() => started.length === 1, 'first reconcile');
    const stopping = controller.stop();
    release();
    await stopping;
    const first = (await t.store.get<Account>({ kind: 'Account', name: started[0]! }))!;
    expect(first.status?.balanceCents).toBe(1);
    await t.store.create(account('c'));
    await accounts.waitUntil(() => accounts.size === 3);
    expect(started).toHaveLength(1);
    accounts.stop();
  });
});
