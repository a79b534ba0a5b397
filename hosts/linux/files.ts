// Files of a VM over its pooled SSH connection: single files through SFTP, directories as tar
// archives through the VM's own tar on an exec channel. Paths are the VM user's view: relative paths
// and `~` resolve against the VM's home; everything runs with the VM user's rights, so the VM
// cannot reach anything its user cannot.
import { posix } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import type { SFTPWrapper, Stats } from 'ssh2';
import { DriverError } from '../driver.ts';
import { exitCode, shellQuote, type SshClient } from './ssh-client.ts';

const MAX_PATH_BYTES = 4096;
const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;

/** Validates a path of the API and makes it absolute inside the VM. */
export function vmPath(path: unknown, home: string): string {
  if (typeof path !== 'string' || path.length === 0)
    throw new DriverError('invalid_argument', 'path is required');
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) throw new DriverError('invalid_argument', 'path is too long');
  // NUL ends a C string (the path would silently mean a shorter one); other control characters in a
  // path are far more often an injection attempt or a mistake than a real file name.
  if (hasControlChars(path)) throw new DriverError('invalid_argument', 'path contains control characters');
  const expanded = path === '~' ? home : path.startsWith('~/') ? posix.join(home, path.slice(2)) : path;
  return posix.resolve(home, expanded);
}

function sftpError(err: unknown, path: string): DriverError {
  const code = (err as { code?: unknown }).code;
  if (code === SFTP_NO_SUCH_FILE) return new DriverError('not_found', `no such file in the VM: ${path}`);
  if (code === SFTP_PERMISSION_DENIED)
    return new DriverError('invalid_argument', `permission denied in the VM: ${path}`);
  if (err instanceof DriverError) return err;
  return new DriverError('command_failed', `SFTP ${path}: ${(err as Error).message}`, 'sftp');
}

function stat(sftp: SFTPWrapper, path: string): Promise<Stats | undefined> {
  return new Promise((resolve, reject) => {
    sftp.stat(path, (err, stats) => {
      if (!err) return resolve(stats);
      if ((err as { code?: unknown }).code === SFTP_NO_SUCH_FILE) return resolve(undefined);
      reject(sftpError(err, path));
    });
  });
}

async function mkdirp(sftp: SFTPWrapper, dir: string): Promise<void> {
  const st = await stat(sftp, dir);
  if (st) {
    if (!st.isDirectory()) throw new DriverError('invalid_argument', `not a directory in the VM: ${dir}`);
    return;
  }
  await mkdirp(sftp, posix.dirname(dir));
  await new Promise<void>((resolve, reject) => {
    sftp.mkdir(dir, (err) => {
      // A concurrent upload may have created it meanwhile.
      if (err && (err as { code?: unknown }).code !== 4) return reject(sftpError(err, dir));
      resolve();
    });
  });
}

export class VmFiles {
  readonly #ssh: SshClient;
  readonly #home: string;

  constructor(ssh: SshClient, home: string) {
    this.#ssh = ssh;
    this.#home = home;
  }

  /** Writes to a temporary name beside the file, then renames: a failed upload leaves no half file. */
  async putFile(path: string, data: Buffer | Readable): Promise<void> {
    const target = vmPath(path, this.#home);
    const source = Buffer.isBuffer(data) ? Readable.from([data]) : asReadable(data);
    const sftp = await this.#ssh.sftp();
    await mkdirp(sftp, posix.dirname(target));
    const existing = await stat(sftp, target);
    if (existing?.isDirectory())
      throw new DriverError('invalid_argument', `is a directory in the VM: ${target}`);
    const temp = `${target}.sandbay-${randomBytes(6).toString('hex')}`;
    try {
      // A replaced file keeps its permissions (an uploaded script stays executable).
      const mode = existing ? existing.mode & 0o7777 : 0o644;
      await pipeline(source, sftp.createWriteStream(temp, { mode }));
      await new Promise<void>((resolve, reject) =>
        sftp.ext_openssh_rename(temp, target, (err) => (err ? reject(sftpError(err, target)) : resolve())),
      );
    } catch (err) {
      sftp.unlink(temp, () => {});
      throw sftpError(err, target);
    }
  }

  async getFile(path: string): Promise<Readable> {
    const target = vmPath(path, this.#home);
    const sftp = await this.#ssh.sftp();
    const st = await stat(sftp, target);
    if (!st) throw new DriverError('not_found', `no such file in the VM: ${target}`);
    if (!st.isFile()) throw new DriverError('invalid_argument', `not a regular file in the VM: ${target}`);
    return sftp.createReadStream(target);
  }

  /** Unpacks a tar stream into `path` (created if missing) with the VM's tar, as the VM user. */
  async putDir(path: string, tar: Readable): Promise<void> {
    const dir = vmPath(path, this.#home);
    const source = asReadable(tar);
    const q = shellQuote(dir);
    // GNU tar refuses members with `..` and strips leading `/`, so nothing lands outside `dir`.
    const res = await this.#ssh.run(`mkdir -p -- ${q} && exec tar -x -f - -C ${q}`, { stdin: source });
    if (res.code !== 0) {
      const line = firstLine(res.stderr) || `exit ${res.code}`;
      throw new DriverError('command_failed', `unpacking into ${dir} failed: ${line}`, 'tar -x');
    }
  }

  /** Packs `path` as a tar stream; the stream errors if tar fails part-way. */
  async getDir(path: string): Promise<Readable> {
    const dir = vmPath(path, this.#home);
    const sftp = await this.#ssh.sftp();
    const st = await stat(sftp, dir);
    if (!st) throw new DriverError('not_found', `no such directory in the VM: ${dir}`);
    if (!st.isDirectory()) throw new DriverError('invalid_argument', `not a directory in the VM: ${dir}`);
    return this.#ssh.open(`exec tar -c -f - -C ${shellQuote(dir)} .`, (channel) => {
      const out = new PassThrough();
      const errors: Buffer[] = [];
      let code = -1;
      channel.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
      channel.on('exit', (status: number | null, signal?: string) => {
        code = exitCode(status, signal);
      });
      channel.pipe(out, { end: false });
      channel.on('close', () => {
        if (code === 0) out.end();
        else {
          const line = firstLine(Buffer.concat(errors)) || `exit ${code}`;
          out.destroy(new DriverError('command_failed', `packing ${dir} failed: ${line}`, 'tar -c'));
        }
      });
      // The reader went away early: stop tar.
      out.on('close', () => channel.close());
      channel.end();
      return out as Readable;
    });
  }
}

/** A Readable, or any async iterable of chunks (a minipass stream of the tar package) as one. */
function asReadable(data: unknown): Readable {
  if (data instanceof Readable) return data;
  if (data !== null && typeof data === 'object' && Symbol.asyncIterator in data) {
    return Readable.from(data as AsyncIterable<Buffer>);
  }
  throw new DriverError('invalid_argument', 'data must be a Buffer or a readable stream');
}

/** Any C0 control character or DEL (NUL included). */
export function hasControlChars(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

export function firstLine(buf: Buffer): string {
  return buf.toString('utf8').trim().split('\n')[0] ?? '';
}
