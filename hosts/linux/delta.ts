// A VM's disk delta: its overlay upper dir, archived (gzipped tar) together with a manifest that names
// its base image and the image files it deleted. Deletions are recorded logically (an image file
// that the merged home no longer shows) rather than as overlayfs whiteouts and opaque-dir xattrs,
// which tar does not carry. Restoring goes through the merged home of a fresh VM of the same image,
// so overlayfs itself writes the upper dir, and every file gets the new VM user as owner.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';
import { DriverError, type DeltaInfo } from '../driver.ts';

const FORMAT = 'sandbay-linux-delta/1';
const MANIFEST = 'sandbay-delta.json';
const UPPER = 'upper';

export interface DeltaManifest {
  format: typeof FORMAT;
  image: string;
  /** Paths (relative to the home) of image files the VM removed. */
  deleted: string[];
}

export interface DeltaLayers {
  /** The tmpfs holding `upper/`. */
  disk: string;
  lower: string;
  merged: string;
}

/** Archives the delta to `file`; the VM may keep running (the archive is then as of some instant). */
export async function exportDelta(l: DeltaLayers, image: string, file: string): Promise<DeltaInfo> {
  const manifest: DeltaManifest = { format: FORMAT, image, deleted: await deletedPaths(l) };
  const manifestFile = join(l.disk, MANIFEST);
  writeFileSync(manifestFile, JSON.stringify(manifest), { mode: 0o600 });
  const hash = createHash('sha256');
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  try {
    const pack = tar.create(
      {
        gzip: true,
        cwd: l.disk,
        portable: true,
        // Whiteouts are character devices; sockets and fifos cannot be archived meaningfully.
        filter: (_p, st) =>
          !('isCharacterDevice' in st) || st.isFile() || st.isDirectory() || st.isSymbolicLink(),
      },
      [MANIFEST, UPPER],
    );
    await pipeline(pack, count, createWriteStream(file, { mode: 0o600 }));
  } finally {
    unlinkSync(manifestFile);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Image paths no longer visible in the merged home: below every dir the VM has touched. Walked
 * asynchronously: a tenant's disk may hold a great many dirs, and the server's thread serves others.
 */
async function deletedPaths(l: DeltaLayers): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const upperDir = join(l.disk, UPPER, rel);
    const lowerDir = join(l.lower, rel);
    if (await isDir(lowerDir)) {
      for (const name of await readdir(lowerDir)) {
        const r = join(rel, name);
        const upper = join(l.disk, UPPER, r);
        // Gone from the merged view, or replaced by an entry of another kind (dir vs file).
        if (
          !(await exists(join(l.merged, r))) ||
          ((await exists(upper)) &&
            !(await isWhiteout(upper)) &&
            (await isDir(upper)) !== (await isDir(join(l.lower, r))))
        )
          out.push(r);
      }
    }
    for (const e of await readdir(upperDir, { withFileTypes: true }))
      if (e.isDirectory()) await walk(join(rel, e.name));
  };
  await walk('');
  return out.sort();
}

/** Reads the manifest of a delta archive. */
export async function readManifest(file: string): Promise<DeltaManifest> {
  let text: string | undefined;
  await tar
    .t({
      file,
      filter: (p) => p === MANIFEST,
      onReadEntry: (entry) => {
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => (text = Buffer.concat(chunks).toString()));
      },
    })
    .catch((e: unknown) => {
      throw new DriverError('invalid_argument', `not a delta archive: ${(e as Error).message}`);
    });
  const m = text === undefined ? undefined : (JSON.parse(text) as Partial<DeltaManifest>);
  if (!m || m.format !== FORMAT || typeof m.image !== 'string' || !Array.isArray(m.deleted)) {
    throw new DriverError('invalid_argument', `not a ${FORMAT} archive: ${file}`);
  }
  return m as DeltaManifest;
}

/** Applies a delta onto the merged home of a stopped VM of the same image, owned by `uid:gid`. */
export async function importDelta(
  file: string,
  image: string,
  merged: string,
  uid: number,
  gid: number,
): Promise<void> {
  if (!existsSync(file)) throw new DriverError('not_found', `delta archive ${file} does not exist`);
  const m = await readManifest(file);
  if (m.image !== image) {
    throw new DriverError('invalid_argument', `delta was taken on image ${m.image}, the VM runs ${image}`);
  }
  for (const p of m.deleted) {
    const rel = normalize(p);
    if (isAbsolute(rel) || rel.startsWith('..'))
      throw new DriverError('invalid_argument', `bad path in delta: ${p}`);
    rmSync(join(merged, rel), { recursive: true, force: true });
  }
  await pipeline(
    createReadStream(file),
    tar.x({
      cwd: merged,
      strip: 1,
      uid,
      gid,
      preserveOwner: false,
      filter: (p) => p.startsWith(`${UPPER}/`) && p !== `${UPPER}/`,
    }),
  );
}

async function exists(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => undefined)) !== undefined;
}

async function isDir(p: string): Promise<boolean> {
  return (await lstat(p).catch(() => undefined))?.isDirectory() ?? false;
}

async function isWhiteout(p: string): Promise<boolean> {
  const st = await lstat(p).catch(() => undefined);
  return st !== undefined && st.isCharacterDevice() && st.rdev === 0;
}
