// A sim VM's disk: the files written since it was cloned (its delta against the image), in memory.
// Paths are the guest user's view, as in the linux driver: relative paths and `~` resolve against the
// home, `..` cannot climb above `/`. Directories are tracked so `ls`, getDir and putFile into a file's
// place behave like a filesystem.
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { Header, Pax } from 'tar';
import { DriverError } from '../driver.ts';
import { readTarEntries } from '../tar-entries.ts';

export const HOME = '/Users/sandbay';
const MAX_PATH_BYTES = 4096;

/** Validates a path of the API and makes it absolute inside the VM. */
export function guestPath(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0)
    throw new DriverError('invalid_argument', 'path is required');
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new DriverError('invalid_argument', 'path is too long');
  // eslint-disable-next-line no-control-regex -- rejecting control characters is the point
  if (/[\x00-\x1f\x7f]/.test(path))
    throw new DriverError('invalid_argument', 'path contains control characters');
  const expanded = path === '~' ? HOME : path.startsWith('~/') ? posix.join(HOME, path.slice(2)) : path;
  return posix.resolve(HOME, expanded);
}

export class SimDisk {
  readonly files = new Map<string, Buffer>();
  readonly dirs = new Set<string>(['/', '/Users', HOME]);

  isDir(path: string): boolean {
    return this.dirs.has(path);
  }

  mkdirp(dir: string): void {
    if (this.files.has(dir)) throw new DriverError('invalid_argument', `not a directory in the VM: ${dir}`);
    if (this.dirs.has(dir)) return;
    this.mkdirp(posix.dirname(dir));
    this.dirs.add(dir);
  }

  write(path: string, data: Buffer): void {
    if (this.dirs.has(path)) throw new DriverError('invalid_argument', `is a directory in the VM: ${path}`);
    this.mkdirp(posix.dirname(path));
    this.files.set(path, data);
  }

  read(path: string): Buffer {
    if (this.dirs.has(path))
      throw new DriverError('invalid_argument', `not a regular file in the VM: ${path}`);
    const data = this.files.get(path);
    if (!data) throw new DriverError('not_found', `no such file in the VM: ${path}`);
    return data;
  }

  /** Removes a file, or a directory and everything under it. Returns whether anything was there. */
  remove(path: string): boolean {
    if (this.files.delete(path)) return true;
    if (!this.dirs.has(path) || path === '/') return false;
    const prefix = `${path}/`;
    for (const f of [...this.files.keys()]) if (f.startsWith(prefix)) this.files.delete(f);
    for (const d of [...this.dirs]) if (d === path || d.startsWith(prefix)) this.dirs.delete(d);
    return true;
  }

  /** Names directly inside a directory, sorted. */
  list(dir: string): string[] {
    if (!this.dirs.has(dir)) {
      if (this.files.has(dir)) return [posix.basename(dir)];
      throw new DriverError('not_found', `no such directory in the VM: ${dir}`);
    }
    const names = new Set<string>();
    for (const p of [...this.files.keys(), ...this.dirs]) {
      if (p !== dir && posix.dirname(p) === dir) names.add(posix.basename(p));
    }
    return [...names].sort();
  }

  /** Unpacks a tar stream into `dir` (created if missing); members cannot land outside it. */
  async putDir(dir: string, archive: Readable): Promise<void> {
    if (!(archive instanceof Readable))
      throw new DriverError('invalid_argument', 'the archive must be a Readable');
    this.mkdirp(dir);
    const entries = await readTarEntries(
      archive,
      (e) => new DriverError('invalid_argument', `not a tar archive: ${e.message}`),
    );
    for (const e of entries) {
      const target = posix.resolve(dir, e.path);
      if (target !== dir && !target.startsWith(`${dir === '/' ? '' : dir}/`)) {
        throw new DriverError('invalid_argument', `archive member escapes ${dir}: ${e.path}`);
      }
      if (e.type === 'Directory') this.mkdirp(target);
      else if (e.type === 'File' || e.type === 'OldFile' || e.type === 'ContiguousFile')
        this.write(target, e.data);
    }
  }

  /** Packs `dir` as a tar archive with `./` members, as `tar -C dir -c .` does. */
  getDir(dir: string): Readable {
    if (!this.dirs.has(dir)) {
      if (this.files.has(dir)) throw new DriverError('invalid_argument', `not a directory in the VM: ${dir}`);
      throw new DriverError('not_found', `no such directory in the VM: ${dir}`);
    }
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const blocks: Buffer[] = [tarHeader('./', 'Directory', 0)];
    for (const d of [...this.dirs].filter((p) => p.startsWith(prefix)).sort()) {
      blocks.push(tarHeader(`./${d.slice(prefix.length)}/`, 'Directory', 0));
    }
    for (const [path, data] of [...this.files]
      .filter(([p]) => p.startsWith(prefix))
      .sort(([a], [b]) => a.localeCompare(b))) {
      blocks.push(
        tarHeader(`./${path.slice(prefix.length)}`, 'File', data.length),
        data,
        Buffer.alloc((512 - (data.length % 512)) % 512),
      );
    }
    blocks.push(Buffer.alloc(1024));
    return Readable.from([Buffer.concat(blocks)]);
  }

  /** A copy of this disk (a fork's): file contents are shared, never written in place. */
  copy(): SimDisk {
    const out = new SimDisk();
    for (const d of this.dirs) out.dirs.add(d);
    for (const [p, data] of this.files) out.files.set(p, data);
    return out;
  }

  /** Bytes held, for the driver's memory accounting and `du`. */
  bytes(): number {
    let n = 0;
    for (const data of this.files.values()) n += data.length;
    return n;
  }
}

const EPOCH = new Date(0);

function tarHeader(path: string, type: 'File' | 'Directory', size: number): Buffer {
  const mode = type === 'Directory' ? 0o755 : 0o644;
  const header = new Header({ path, mode, size, mtime: EPOCH, type, uid: 501, gid: 20 });
  const needsPax = header.encode();
  if (!needsPax) return header.block!;
  return Buffer.concat([
    new Pax({ path, mtime: EPOCH } as ConstructorParameters<typeof Pax>[0]).encode(),
    header.block!,
  ]);
}
