import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore } from './blob-store.ts';

let dir: string;
let blobs: BlobStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sandbay-blobs-'));
  blobs = createBlobStore(dir);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('blob store', () => {
  it('stores a file or a stream under a location with its size and SHA-256', async () => {
    const data = Buffer.from('disk delta '.repeat(1000));
    const src = path.join(dir, 'src.bin');
    await writeFile(src, data);
    const a = await blobs.put('snapshots/acme/v1.delta', src);
    expect(a).toEqual({ location: 'snapshots/acme/v1.delta', bytes: data.length, sha256: sha(data) });
    const b = await blobs.put(
      'snapshots/acme/v2.delta',
      Readable.from([data.subarray(0, 10), data.subarray(10)]),
    );
    expect(b.sha256).toBe(sha(data));
    expect(await readFile(blobs.path(a.location))).toEqual(data);
    expect(await blobs.verify(a)).toBe(true);
    await writeFile(blobs.path(a.location), 'tampered');
    expect(await blobs.verify(a)).toBe(false);
    await blobs.delete(a.location);
    expect(await blobs.verify(a)).toBe(false);
  });

  it('refuses locations that could leave its directory', async () => {
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', '']) {
      expect(() => blobs.path(bad)).toThrow(/invalid blob location/);
    }
  });

  it('leaves no half-written blob when the source fails', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('source broke'));
      },
    });
    await expect(blobs.put('snapshots/x.delta', failing)).rejects.toThrow('source broke');
    expect(await readdir(path.join(dir, '.tmp'))).toEqual([]);
    expect(
      await blobs.verify({ location: 'snapshots/x.delta', bytes: 0, sha256: sha(Buffer.alloc(0)) }),
    ).toBe(false);
  });
});
