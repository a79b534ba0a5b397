// A directory blob store for large bytes (snapshot deltas). Resources hold only the returned
// location, size and SHA-256. Writes go to a temp file, synced, and are renamed into place (the
// directory synced too), so a reader never sees a half-written blob, a blob a resource points at
// survives a power loss, and a crash leaves at most a stray temp file (operator/blob-sweep.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface BlobInfo {
  /** Relative to the store's directory, `/`-separated. */
  location: string;
  bytes: number;
  sha256: string;
}

export interface BlobStore {
  readonly dir: string;
  /** Stores a file (by path) or a stream under `location`, replacing any blob there. */
  put(location: string, source: string | Readable): Promise<BlobInfo>;
  /** The absolute path of a stored blob (for drivers that take a file). */
  path(location: string): string;
  open(location: string): Readable;
  /** True when the blob exists with exactly this size and digest. */
  verify(info: BlobInfo): Promise<boolean>;
  delete(location: string): Promise<void>;
  /** A fresh path under the store's temp directory, for a producer to write before `put`. */
  tempPath(suffix?: string): Promise<string>;
}

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/** Rejects locations that could escape the directory or name nothing. */
export function checkLocation(location: string): string[] {
  const parts = location.split('/');
  if (parts.length === 0 || parts.some((p) => !SEGMENT.test(p) || p === '.' || p === '..')) {
    throw new Error(`invalid blob location ${JSON.stringify(location)}`);
  }
  return parts;
}

/** A pass-through that counts and hashes what flows through it: `digest()` once it has ended. */
export function digestTap(): { tap: Transform; digest(): { bytes: number; sha256: string } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, digest: () => ({ bytes, sha256: hash.digest('hex') }) };
}

/** fsync of a file or a directory (a directory's sync makes a rename in it durable). */
async function syncPath(p: string, flags: 'r' | 'r+'): Promise<void> {
  const fh = await open(p, flags);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export function createBlobStore(dir: string): BlobStore {
  const root = path.resolve(dir);
  const tmpDir = path.join(root, '.tmp');
  const abs = (location: string) => path.join(root, ...checkLocation(location));

  async function tempPath(suffix = ''): Promise<string> {
    await mkdir(tmpDir, { recursive: true });
    return path.join(tmpDir, `${randomBytes(8).toString('hex')}${suffix}`);
  }

  async function put(location: string, source: string | Readable): Promise<BlobInfo> {
    const target = abs(location);
    const tmp = await tempPath('.part');
    const { tap, digest } = digestTap();
    try {
      const input = typeof source === 'string' ? createReadStream(source) : source;
      await pipeline(input, tap, createWriteStream(tmp));
      // Durable before anyone is told where it is: the bytes, then the name (its directory).
      await syncPath(tmp, 'r+');
      await mkdir(path.dirname(target), { recursive: true });
      await rename(tmp, target);
      await syncPath(path.dirname(target), 'r');
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { location, ...digest() };
  }

  async function verify(info: BlobInfo): Promise<boolean> {
    const file = abs(info.location);
    const st = await stat(file).catch(() => undefined);
    if (!st || st.size !== info.bytes) return false;
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    return hash.digest('hex') === info.sha256;
  }

  return {
    dir: root,
    put,
    path: abs,
    open: (location) => createReadStream(abs(location)),
    verify,
    delete: (location) => rm(abs(location), { force: true }),
    tempPath,
  };
}
