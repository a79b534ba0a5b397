// A sim VM's disk delta as a real file: JSON naming the base image and holding the files and
// directories written since the clone. Snapshot flows (export → blob store → import on another
// Mac) work end to end with it; the byte count and sha256 are those of the file written.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { DriverError, type DeltaInfo } from '../driver.ts';
import { SimDisk } from './disk.ts';

const FORMAT = 'sandbay-sim-delta/1';

interface DeltaFile {
  format: typeof FORMAT;
  image: string;
  dirs: string[];
  files: { path: string; base64: string }[];
}

function checkedPath(p: unknown): string {
  if (typeof p !== 'string' || !p.startsWith('/') || posix.resolve(p) !== p) {
    throw new DriverError('invalid_argument', `bad path in delta: ${String(p)}`);
  }
  return p;
}

export async function writeDelta(disk: SimDisk | undefined, image: string, file: string): Promise<DeltaInfo> {
  const delta: DeltaFile = {
    format: FORMAT,
    image,
    dirs: disk ? [...disk.dirs].sort() : [],
    files: disk ? [...disk.files].map(([path, data]) => ({ path, base64: data.toString('base64') })) : [],
  };
  const bytes = Buffer.from(JSON.stringify(delta));
  try {
    await writeFile(file, bytes, { mode: 0o600 });
  } catch (e) {
    throw new DriverError('command_failed', `writing delta ${file}: ${(e as Error).message}`, 'exportDelta');
  }
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Reads a delta taken on `image` into a fresh disk. */
export async function readDelta(file: string, image: string): Promise<SimDisk> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new DriverError('not_found', `delta archive ${file} does not exist`);
  }
  let delta: DeltaFile;
  try {
    delta = JSON.parse(text) as DeltaFile;
  } catch (e) {
    throw new DriverError('invalid_argument', `not a delta archive: ${(e as Error).message}`);
  }
  if (delta?.format !== FORMAT || !Array.isArray(delta.files) || !Array.isArray(delta.dirs)) {
    throw new DriverError('invalid_argument', `not a ${FORMAT} archive: ${file}`);
  }
  if (delta.image !== image) {
    throw new DriverError(
      'invalid_argument',
      `delta was taken on image ${delta.image}, the VM runs ${image}`,
    );
  }
  const disk = new SimDisk();
  for (const dir of delta.dirs) disk.mkdirp(checkedPath(dir));
  for (const f of delta.files) disk.write(checkedPath(f.path), Buffer.from(f.base64, 'base64'));
  return disk;
}
