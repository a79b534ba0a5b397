import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyResource } from '../crds/index.ts';
import { runStoreConformance } from './conformance.ts';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
import { isStoreError, type WatchEvent } from './store.ts';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-store-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

runStoreConformance({
  name: 'sqlite',
  open: async () => {
    const store = await openSqliteStore({ file: tempFile() });
    return {
      store,
      cleanup: () => store.close(),
      compact: async () => void (await store.compact({ maxEvents: 1 })),
    };
  },
});

const API = 'sandbay.io/v1alpha1';
const task = (name: string, instruction = 'do it'): AnyResource => ({
  apiVersion: API,
  kind: 'Task',
  metadata: { name, namespace: 'acct' },
  spec: { instruction },
});

/** Counts the rows of the events table with a connection of its own. */
function countEvents(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const [row] = db.prepare('SELECT count(*) AS n FROM events').all() as { n: number }[];
    return row?.n ?? -1;
  } finally {
    db.close();
  }
}

async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('sqlite store', () => {
  const stores: SqliteStore[] = [];
  const open = async (opts: Partial<SqliteStoreOptions> & { file: string }): Promise<SqliteStore> => {
    const store = await openSqliteStore(opts);
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it('numbers writes with consecutive resourceVersions; a refused write uses none', async () => {
    const store = await open({ file: tempFile() });
    const a = await store.create(task('a'));
    await expect(store.create({ ...task('bad'), spec: { instruction: 7 } })).rejects.toThrow(
      /spec.instruction/,
    );
    const b = await store.create(task('b'));
    expect(Number(b.metadata.resourceVersion)).toBe(Number(a.metadata.resourceVersion) + 1);
    expect((await store.list('Task')).resourceVersion).toBe(b.metadata.resourceVersion);
  });

  it('answers each write of a group commit on its own', async () => {
    const store = await open({ file: tempFile() });
    const results = await Promise.allSettled([
      store.create(task('one')),
      store.create({ ...task('two'), spec: {} }),
      store.create(task('three')),
      store.create(task('one')),
    ]);
    expect(
      results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as { code: string }).code)),
    ).toEqual(['ok', 'Invalid', 'ok', 'AlreadyExists']);
    expect((await store.list('Task')).items.map((t) => t.metadata.name)).toEqual(['one', 'three']);
  });

  it('bounds the history by event count and expires watches from before it', async () => {
    const file = tempFile();
    const store = await open({ file, history: { maxEvents: 10 } });
    const first = await store.create(task('t-0'));
    for (let i = 1; i < 40; i++) await store.create(task(`t-${i}`));
    expect(countEvents(file)).toBeLessThanOrEqual(11);
    const expired = store.watch(
      'Task',
      { resourceVersion: first.metadata.resourceVersion as string },
      () => {},
    );
    expect(isStoreError(await expired.done, 'Expired')).toBe(true);
    const recent: WatchEvent[] = [];
    store.watch('Task', { resourceVersion: '35' }, (e) => recent.push(e));
    await waitFor(() => recent.length === 5, 'the 5 events after 35');
    expect(recent.map((e) => e.object.metadata.name)).toEqual(['t-35', 't-36', 't-37', 't-38', 't-39']);
  });

  it('bounds the history by age with the injected clock', async () => {
    let clock = Date.parse('2030-01-01T00:00:00Z');
    const file = tempFile();
    const store = await open({ file, now: () => clock, history: { maxEvents: 1000, maxAgeMs: 60_000 } });
    const old = await store.create(task('old'));
    await store.create(task('old-2'));
    clock += 120_000;
    await store.create(task('new'));
    expect(countEvents(file)).toBe(1);
    const w = store.watch('Task', { resourceVersion: old.metadata.resourceVersion as string }, () => {});
    expect(isStoreError(await w.done, 'Expired')).toBe(true);
    expect(
      (await store.get({ kind: 'Task', namespace: 'acct', name: 'old' }))?.metadata.creationTimestamp,
    ).toBe('2030-01-01T00:00:00Z');
  });

  it('keeps objects and resourceVersions across a reopen, and resumes a watch across it', async () => {
    const file = tempFile();
    const first = await open({ file });
    const a = await first.create(task('a'));
    await first.close();
    const second = await open({ file });
    expect(await second.get({ kind: 'Task', namespace: 'acct', name: 'a' })).toEqual(a);
    const b = await second.create(task('b'));
    expect(Number(b.metadata.resourceVersion)).toBe(Number(a.metadata.resourceVersion) + 1);
    const events: WatchEvent[] = [];
    second.watch('Task', { resourceVersion: '0' }, (e) => events.push(e));
    await waitFor(() => events.length === 2, 'both events replayed');
    expect(events.map((e) => e.object.metadata.name)).toEqual(['a', 'b']);
  });

  it('delivers writes of another connection on the same file, in order and without gaps', async () => {
    const file = tempFile();
    const here = await open({ file, pollIntervalMs: 20 });
    const there = await open({ file });
    const events: WatchEvent[] = [];
    here.watch('Task', {}, (e) => events.push(e));
    await there.create(task('remote-1'));
    await waitFor(() => events.length === 1, 'the remote write (poll)');
    await there.create(task('remote-2'));
    await here.create(task('local-3')); // publishes after a gap: the hub reads remote-2 first
    await waitFor(() => events.length === 3, 'all three writes');
    expect(events.map((e) => e.object.metadata.name)).toEqual(['remote-1', 'remote-2', 'local-3']);
    const versions = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(versions).toEqual([versions[0], versions[0]! + 1, versions[0]! + 2]);
  });

  it('lets one of two connections win a conditional update of one object', async () => {
    const file = tempFile();
    const a = await open({ file });
    const b = await open({ file });
    const t = await a.create(task('claim-me'));
    const results = await Promise.allSettled([
      a.update({ ...t, spec: { instruction: 'mine (a)' } }),
      b.update({ ...t, spec: { instruction: 'mine (b)' } }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(isStoreError(loser.reason, 'Conflict')).toBe(true);
  });

  it('refuses a create of a name that another connection took since this one last wrote', async () => {
    const file = tempFile();
    const a = await open({ file });
    const b = await open({ file });
    await a.create(task('warm-up')); // a now assumes it knows the store's resourceVersion
    await b.create(task('taken'));
    await expect(a.create(task('taken'))).rejects.toMatchObject({ code: 'AlreadyExists' });
    const fresh = await a.create(task('fresh'));
    expect(Number(fresh.metadata.resourceVersion)).toBe(3);
  });

  it('rejects an open it cannot do (a missing directory) with the SQLite error', async () => {
    await expect(openSqliteStore({ file: join(tempFile(), 'missing', 'store.sqlite') })).rejects.toThrow(
      /unable to open database file/,
    );
  });

  it('ends watches on close and refuses calls afterwards', async () => {
    const store = await openSqliteStore({ file: tempFile() });
    const w = store.watch('Task', {}, () => {});
    await store.close();
    expect(await w.done).toBeUndefined();
    await expect(store.get({ kind: 'Task', namespace: 'acct', name: 'a' })).rejects.toThrow(/closed/);
  });

  it('closes while watches are still replaying history (no SQLITE_BUSY)', async () => {
    const store = await openSqliteStore({ file: tempFile() });
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.create(task(`t${i}`))));
    const watches = Array.from({ length: 5 }, () => store.watch('Task', { resourceVersion: '1' }, () => {}));
    await expect(store.close()).resolves.toBeUndefined();
    for (const w of watches) expect(await w.done).toBeUndefined();
  });

  it('ends a watch whose callback throws, with that error', async () => {
    const store = await open({ file: tempFile() });
    const w = store.watch('Task', {}, () => {
      throw new Error('consumer failed');
    });
    await store.create(task('a'));
    expect((await w.done)?.message).toBe('consumer failed');
  });
});
