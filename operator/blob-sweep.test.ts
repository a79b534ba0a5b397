// The blob sweep on a real blob directory and a real SQLite store: abandoned temp files and blobs
// whose Snapshot or Task is gone are removed; anything recent, and anything whose owner exists, stays.
import { mkdtemp, rm, utimes, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_VERSION } from '../crds/index.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import { createBlobStore, type BlobStore } from './blob-store.ts';
import { ownerInStore, sweepBlobs } from './blob-sweep.ts';
import { SNAPSHOT_TRANSFER_DEADLINE_MS } from '../crds/index.ts';

let dir: string;
let store: SqliteStore;
let blobs: BlobStore;
const HOUR = 60 * 60_000;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sandbay-blob-sweep-'));
  store = await openSqliteStore({ file: path.join(dir, 'store.db'), synchronous: 'NORMAL' });
  blobs = createBlobStore(path.join(dir, 'blobs'));
});
afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Sets a file's mtime `ms` in the past (as if written then). */
async function age(location: string, ms: number): Promise<void> {
  const t = new Date(Date.now() - ms);
  await utimes(path.join(blobs.dir, location), t, t);
}

it('removes abandoned temp files and blobs whose owner is gone, and nothing else', async () => {
  await store.create({
    apiVersion: API_VERSION,
    kind: 'Task',
    metadata: { name: 'kept', namespace: 'acme' },
    spec: { instruction: 'x' },
  });
  const put = (location: string) => blobs.put(location, Readable.from([Buffer.from(location)]));
  await put('tasks/acme/kept/step-0.png');
  await put('tasks/acme/gone/step-0.png');
  await put('tasks/acme/gone/recording.mp4');
  await put('tasks/acme/fresh/step-0.png');
  await put('snapshots/acme/gone.delta');
  await put('snapshots/acme/fresh.delta');
  await mkdir(path.join(blobs.dir, '.tmp'), { recursive: true });
  await writeFile(path.join(blobs.dir, '.tmp', 'old.part'), 'x');
  await writeFile(path.join(blobs.dir, '.tmp', 'writing.part'), 'x');
  await writeFile(path.join(blobs.dir, '.tmp', 'transfer.part'), 'x');
  for (const old of [
    'tasks/acme/kept/step-0.png',
    'tasks/acme/gone/step-0.png',
    'tasks/acme/gone/recording.mp4',
    'snapshots/acme/gone.delta',
  ])
    await age(old, 2 * HOUR);
  await age('.tmp/old.part', HOUR);
  // A snapshot's delta may sit in a temp file for as long as its transfer is allowed to run.
  await age('.tmp/transfer.part', SNAPSHOT_TRANSFER_DEADLINE_MS);

  const report = await sweepBlobs(blobs, ownerInStore(store), { now: Date.now() });
  expect(report.temps).toEqual(['.tmp/old.part']);
  expect(report.orphans.sort()).toEqual([
    'snapshots/acme/gone.delta',
    'tasks/acme/gone/recording.mp4',
    'tasks/acme/gone/step-0.png',
  ]);
  const exists = (l: string) => existsSync(path.join(blobs.dir, l));
  expect(['tasks/acme/gone', 'snapshots/acme/gone.delta', '.tmp/old.part'].some(exists)).toBe(false);
  // An owner that exists, a blob or temp file too recent to judge: kept.
  for (const l of [
    'tasks/acme/kept/step-0.png',
    'tasks/acme/fresh/step-0.png',
    'snapshots/acme/fresh.delta',
    '.tmp/writing.part',
    '.tmp/transfer.part',
  ])
    expect(exists(l)).toBe(true);
  // A second pass finds nothing more.
  expect(await sweepBlobs(blobs, ownerInStore(store), { now: Date.now() })).toEqual({
    temps: [],
    orphans: [],
  });
});

it('removes uploaded blobs whose Blob is gone and uploads a crash interrupted; keeps the rest', async () => {
  const hex = (c: string) => c.repeat(64);
  await store.create({
    apiVersion: API_VERSION,
    kind: 'Blob',
    metadata: { name: `sha256-${hex('a')}`, namespace: 'acme' },
    spec: { artifact: { location: `uploads/acme/${hex('a')}`, bytes: 1, sha256: hex('a') } },
  });
  const put = (location: string) => blobs.put(location, Readable.from([Buffer.from('x')]));
  for (const l of [hex('a'), hex('b'), hex('c'), 'incoming-old', 'incoming-new'])
    await put(`uploads/acme/${l}`);
  for (const l of [hex('a'), hex('b'), 'incoming-old']) await age(`uploads/acme/${l}`, 2 * HOUR);
  const report = await sweepBlobs(blobs, ownerInStore(store), { now: Date.now() });
  expect(report.orphans.sort()).toEqual([`uploads/acme/${hex('b')}`, 'uploads/acme/incoming-old']);
  for (const l of [hex('a'), hex('c'), 'incoming-new'])
    expect(existsSync(path.join(blobs.dir, 'uploads', 'acme', l)), l).toBe(true);
});
