import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Lease } from '../../crds/index.ts';
import { openSqliteStore, type SqliteStore } from '../../store/sqlite-store.ts';
import { StoreError, type Store } from '../../store/store.ts';
import { waitFor } from '../../test/support/wait.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader.ts';

const timing = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function openStore(): Promise<SqliteStore> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-leader-'));
  // NORMAL: no fsync per commit, so a busy disk does not stall a renewal past the renew deadline.
  const store = await openSqliteStore({ file: join(dir, 'store.sqlite'), synchronous: 'NORMAL' });
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  return store;
}

/** A replica: its elector and a log of when it led. */
function replica(store: Store, identity: string, extra: Partial<LeaderElectionOptions> = {}) {
  const log: { led: number[]; stopped: number[] } = { led: [], stopped: [] };
  const elector = new LeaderElector({
    store,
    namespace: 'sandbay-system',
    name: 'sandbay-operator',
    identity,
    ...timing,
    onStartedLeading: () => void log.led.push(Date.now()),
    onStoppedLeading: () => void log.stopped.push(Date.now()),
    ...extra,
  });
  cleanups.push(() => elector.stop());
  elector.start();
  return { elector, log };
}

/** The store, except that every call fails while `cut` is set: a replica partitioned from it. */
function partitionable(store: Store): { store: Store; cut: (on: boolean) => void } {
  let cut = false;
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A) => {
      if (cut) throw new StoreError('Unavailable', 'partitioned from the store');
      return fn(...args);
    };
  return {
    store: {
      ...store,
      get: guard(store.get.bind(store)),
      create: guard(store.create.bind(store)),
      update: guard(store.update.bind(store)),
    } as Store,
    cut: (on) => (cut = on),
  };
}

const LEASE = { kind: 'Lease', namespace: 'sandbay-system', name: 'sandbay-operator' };

/** Resolves with the Lease once its holder has renewed it twice more. */
async function renewedTwice(store: Store): Promise<Lease> {
  const first = await waitFor(() => store.get<Lease>(LEASE), 'the lease');
  const seen = new Set([first.spec?.renewTime]);
  return waitFor(async () => {
    const now = await store.get<Lease>(LEASE);
    seen.add(now?.spec?.renewTime);
    return seen.size >= 3 && now;
  }, 'two renewals');
}

describe('leader election over a Lease', () => {
  it('elects exactly one of several replicas and records it in the Lease', async () => {
    const store = await openStore();
    const replicas = ['a', 'b', 'c'].map((id) => replica(store, id));
    await waitFor(() => replicas.some((r) => r.elector.isLeader), 'a leader');
    // Two renewals later (every replica has tried again meanwhile) there is still exactly one.
    const lease = await renewedTwice(store);
    const leaders = replicas.filter((r) => r.elector.isLeader);
    expect(leaders).toHaveLength(1);
    expect(lease.spec?.holderIdentity).toBe(leaders[0]!.elector.identity);
    expect(lease.spec?.leaseDurationSeconds).toBe(2);
  });

  it('hands over at once when the leader stops (it releases the Lease)', async () => {
    const store = await openStore();
    // A lease of a minute: b leading within waitFor's 10 s can only come of the release.
    const long = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000 };
    const a = replica(store, 'a', long);
    await waitFor(() => a.elector.isLeader, 'a leads');
    const b = replica(store, 'b', long);
    await a.elector.stop();
    expect(a.log.stopped).toHaveLength(1);
    await waitFor(() => b.elector.isLeader, 'b leads');
  });

  it('a leader cut off from the store stops before a follower takes over, which waits out the Lease', async () => {
    const store = await openStore();
    const cutOff = partitionable(store);
    const a = replica(cutOff.store, 'a');
    await waitFor(() => a.elector.isLeader, 'a leads');
    const b = replica(store, 'b');
    cutOff.cut(true);
    // a's renewal as last seen once it is cut off (one in flight may land later: the bound below is
    // then looser than the true one, never wrong).
    const lastRenewed = Date.parse((await store.get<Lease>(LEASE))!.spec!.renewTime!);
    await waitFor(() => b.elector.isLeader, 'b leads', 10_000);
    expect(a.log.stopped).toHaveLength(1);
    // The old leader stopped before the new one started: never two at once.
    expect(a.log.stopped[0]!).toBeLessThanOrEqual(b.log.led[0]!);
    // b took the Lease only once it had lapsed (its stored duration: whole seconds). How soon after
    // depends on the machine's load, so it is not asserted.
    const taken = await store.get<Lease>(LEASE);
    expect(taken?.spec?.holderIdentity).toBe('b');
    expect(Date.parse(taken!.spec!.acquireTime!) - lastRenewed).toBeGreaterThanOrEqual(
      Math.ceil(timing.leaseDurationMs / 1000) * 1000,
    );
    // Back in touch, it follows: the Lease is b's.
    cutOff.cut(false);
    expect((await renewedTwice(store)).spec?.holderIdentity).toBe('b');
    expect(a.elector.isLeader).toBe(false);
  });

  it('refuses a renew deadline that is not shorter than the lease', () => {
    expect(
      () =>
        new LeaderElector({
          store: {} as Store,
          namespace: 'n',
          name: 'l',
          leaseDurationMs: 1000,
          renewDeadlineMs: 1000,
          onStartedLeading: () => undefined,
          onStoppedLeading: () => undefined,
        }),
    ).toThrow(/renew deadline/);
  });
});
