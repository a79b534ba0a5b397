import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Account, AnyResource } from '../../crds/index.ts';
import type { Store, Watch, WatchEvent, WatchOptions } from '../../store/store.ts';
import { tempStore, waitFor, type TempStore } from '../../test/operator-fixtures.ts';
import { Informer } from './informer.ts';

const API = 'sandbay.io/v1alpha1';
const account = (name: string, displayName = name): Account => ({
  apiVersion: API,
  kind: 'Account',
  metadata: { name },
  spec: { displayName, userId: '00000000-0000-4000-8000-000000000001' },
});

/**
 * The real store with a switch that cuts its watch streams, as a network partition would: while
 * cut, events stop reaching watchers; `heal()` then ends each cut watch with a connection error.
 */
function partitionable(store: Store) {
  const live = new Set<{ resolve: (e: Error) => void; inner: Watch; cut: boolean }>();
  let cut = false;
  const wrapped: Store = Object.create(store) as Store;
  wrapped.watch = <T extends AnyResource>(
    kind: string,
    opts: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
  ) => {
    let resolve!: (e: Error | undefined) => void;
    const done = new Promise<Error | undefined>((r) => (resolve = r));
    const entry = { resolve, inner: undefined as unknown as Watch, cut: false };
    entry.inner = store.watch<T>(kind, opts, (e) => {
      if (!cut && !entry.cut) onEvent(e);
    });
    void entry.inner.done.then((err) => resolve(err));
    live.add(entry);
    return {
      done,
      stop() {
        entry.inner.stop();
        live.delete(entry);
      },
    };
  };
  return {
    store: wrapped,
    partition() {
      cut = true;
      for (const e of live) e.cut = true;
    },
    heal() {
      cut = false;
      for (const e of [...live]) {
        live.delete(e);
        e.inner.stop();
        e.resolve(new Error('connection reset'));
      }
    },
  };
}

describe('Informer', () => {
  let t: TempStore;
  beforeEach(async () => {
    t = await tempStore({ history: { maxEvents: 5 } });
  });
  afterEach(async () => t.cleanup());

  it('lists, then follows every change in its cache and handlers', async () => {
    await t.store.create(account('a'));
    const inf = new Informer<Account>({ store: t.store, kind: 'Account' });
    const seen: string[] = [];
    inf.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (_o, n) => seen.push(`update ${n.metadata.name} ${n.spec.displayName}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    expect(inf.hasSynced()).toBe(false);
    await inf.start();
    expect(inf.hasSynced()).toBe(true);
    expect(inf.get('a')?.spec.displayName).toBe('a');
    await t.store.create(account('b'));
    const a = (await t.store.get<Account>({ kind: 'Account', name: 'a' }))!;
    const updated = await t.store.update({ ...a, spec: { ...a.spec, displayName: 'A' } });
    await t.store.delete({ kind: 'Account', name: 'b' });
    await inf.waitForResourceVersion(updated.metadata.resourceVersion);
    await waitFor(() => seen.length === 4, 'four events');
    expect(seen).toEqual(['add a', 'add b', 'update a A', 'delete b']);
    expect(inf.list().map((o) => o.metadata.name)).toEqual(['a']);
    inf.stop();
  });

  it('answers index lookups as objects change', async () => {
    const inf = new Informer<Account>({ store: t.store, kind: 'Account' });
    inf.addIndex('display', (o) => [o.spec.displayName]);
    await inf.start();
    await t.store.create(account('a', 'team-1'));
    const b = await t.store.create(account('b', 'team-1'));
    await inf.waitForResourceVersion(b.metadata.resourceVersion);
    expect(
      inf
        .byIndex('display', 'team-1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    const moved = await t.store.update({ ...b, spec: { ...b.spec, displayName: 'team-2' } });
    await inf.waitForResourceVersion(moved.metadata.resourceVersion);
    expect(inf.byIndex('display', 'team-1').map((o) => o.metadata.name)).toEqual(['a']);
    expect(inf.byIndex('display', 'team-2').map((o) => o.metadata.name)).toEqual(['b']);
    inf.stop();
  });

  it('lists again and catches up when its watch resumes from an expired version', async () => {
    const net = partitionable(t.store);
    await t.store.create(account('gone'));
    await t.store.create(account('kept'));
    const inf = new Informer<Account>({ store: net.store, kind: 'Account', retryDelayMs: 5 });
    const deleted: string[] = [];
    const added: string[] = [];
    inf.addEventHandler({
      onAdd: (o) => added.push(o.metadata.name),
      onDelete: (o) => deleted.push(o.metadata.name),
    });
    await inf.start();
    expect(inf.relists).toBe(1);

    net.partition();
    await t.store.delete({ kind: 'Account', name: 'gone' });
    for (let i = 0; i < 12; i++) await t.store.create(account(`n${i}`));
    await t.store.compact();
    net.heal();

    await waitFor(() => inf.relists === 2 && inf.size === 13, 'a second list with every account');
    expect(inf.get('gone')).toBeUndefined();
    expect(deleted).toEqual(['gone']);
    expect(added).toContain('n11');
    const late = await t.store.create(account('late'));
    await inf.waitForResourceVersion(late.metadata.resourceVersion);
    expect(inf.get('late')).toBeDefined();
    inf.stop();
  });
});
