// Files of a VM over its pooled SSH connection: single files through SFTP, directories as tar
// archives through the VM's own tar on an exec channel. Paths are the VM user's view: relative paths
// and `~` resolve against the VM's home; everything runs with the VM user's rights, so the VM
// cannot reach anything its user cannot.
//
// When the VM goes away (stopped, deleted, its connection reset), every request and stream of it
// fails at once with an `unreachable` DriverError: ssh2 leaves a request sent on a closed channel
// unanswered forever, and its SFTP streams emit errors of their own that nobody may be listening to
// any more. Callers get streams of ours; ssh2's stay behind them, always listened to.
import { posix } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import type { Stats } from 'ssh2';
import { DriverError } from '../driver.ts';
import { exitCode, shellQuote, type SftpSession, type SshClient } from './ssh-client.ts';

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
  const message = (err as Error).message;
  // ssh2's answer to every request still pending when the channel closed.
  if (/no response from server/i.test(message))
    return new DriverError('unreachable', `SFTP ${path}: the VM's SSH connection closed`, 'sftp');
  return new DriverError('command_failed', `SFTP ${path}: ${message}`, 'sftp');
}

/** `work`, or the session's DriverError as soon as the session is gone (its answer would never come). */
function whileOpen<T>(s: SftpSession, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onGone = (): void => reject(s.gone.reason);
    if (s.gone.aborted) onGone();
    else s.gone.addEventListener('abort', onGone, { once: true });
    work.then(resolve, reject).finally(() => s.gone.removeEventListener('abort', onGone));
  });
}

/**
 * How long one SFTP request may wait for its answer. The VM's SFTP server runs as its user: an open
 * of a FIFO blocks it, and so does a SIGSTOP. Past this the session is closed (whatever else waits on
 * it fails), and the next request opens a fresh one.
 */
export const SFTP_REQUEST_DEADLINE_MS = 15_000;

/** One SFTP request; `answer` turns its callback into a value or an error. */
function request<T>(
  s: SftpSession,
  send: (answer: (err: Error | null | undefined, value: T) => void) => void,
  what = 'SFTP request',
): Promise<T> {
  return whileOpen(
    s,
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new DriverError(
            'timeout',
            `${what}: no answer within ${SFTP_REQUEST_DEADLINE_MS / 1000} s`,
            'sftp',
          ),
        );
        s.sftp.end();
      }, SFTP_REQUEST_DEADLINE_MS);
      send((err, v) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(v);
      });
    }),
  );
}

function stat(s: SftpSession, path: string): Promise<Stats | undefined> {
  return request<Stats | undefined>(s, (answer) =>
    s.sftp.stat(path, (err, stats) => {
      if (!err) return answer(null, stats);
      if ((err as { code?: unknown }).code === SFTP_NO_SUCH_FILE) return answer(null, undefined);
      answer(sftpError(err, path), undefined);
    }),
  );
}

async function mkdirp(s: SftpSession, dir: string): Promise<void> {
  const st = await stat(s, dir);
  if (st) {
    if (!st.isDirectory()) throw new DriverError('invalid_argument', `not a directory in the VM: ${dir}`);
    return;
  }
  await mkdirp(s, posix.dirname(dir));
  await request<void>(s, (answer) =>
    s.sftp.mkdir(dir, (err) => {
      // A concurrent upload may have created it meanwhile.
      if (err && (err as { code?: unknown }).code !== 4) return answer(sftpError(err, dir), undefined);
      answer(null, undefined);
    }),
  );
}

/**
 * The download handed to the caller: ssh2's read stream of an open handle, up to `size` bytes (a file
 * the VM keeps growing is sent as it was when opened), behind a stream that fails once the session is gone.
 */
function readStream(s: SftpSession, path: string, handle: Buffer, size: number): Readable {
  if (size === 0) {
    s.sftp.close(handle, () => {});
    return Readable.from([]);
  }
  const inner = s.sftp.createReadStream(path, { handle, start: 0, end: size - 1, autoClose: true });
  const out = new PassThrough();
  const fail = (err: unknown): void => {
    out.destroy(sftpError(err, path));
  };
  const onGone = (): void => fail(s.gone.reason);
  inner.on('error', fail);
  if (s.gone.aborted) onGone();
  else s.gone.addEventListener('abort', onGone, { once: true });
  out.on('close', () => {
    s.gone.removeEventListener('abort', onGone);
    inner.unpipe(out);
    // Closes the remote handle (its answer never comes on a closed session, which is harmless).
    inner.destroy();
  });
  inner.pipe(out);
  return out;
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
    const s = await this.#ssh.sftp();
    await mkdirp(s, posix.dirname(target));
    const existing = await stat(s, target);
    if (existing?.isDirectory())
      throw new DriverError('invalid_argument', `is a directory in the VM: ${target}`);
    const temp = `${target}.sandbay-${randomBytes(6).toString('hex')}`;
    const sink = s.sftp.createWriteStream(temp, {
      // A replaced file keeps its permissions (an uploaded script stays executable).
      mode: existing ? existing.mode & 0o7777 : 0o644,
    });
    // Errors after the pipeline gave up on it (the session gone) are heard here and go nowhere.
    sink.on('error', () => {});
    try {
      await whileOpen(s, pipeline(source, sink));
      await request<void>(s, (answer) =>
        s.sftp.ext_openssh_rename(temp, target, (err) => answer(err && sftpError(err, target), undefined)),
      );
    } catch (err) {
      // The session gone, the pipeline waits forever on its sink: stop reading the upload.
      source.destroy();
      s.sftp.unlink(temp, () => {});
      throw sftpError(err, target);
    }
  }

  /**
   * A regular file's bytes as they are when it is opened. Looked at first (a FIFO or a device is
   * refused without being opened), then checked again on the open handle: the VM may have swapped
   * the name meanwhile, and an open of a FIFO blocks its SFTP server until the request's deadline.
   */
  async getFile(path: string): Promise<Readable> {
    const target = vmPath(path, this.#home);
    const s = await this.#ssh.sftp();
    const st = await stat(s, target);
    if (!st) throw new DriverError('not_found', `no such file in the VM: ${target}`);
    if (!st.isFile()) throw new DriverError('invalid_argument', `not a regular file in the VM: ${target}`);
    const handle = await request<Buffer>(
      s,
      (answer) => s.sftp.open(target, 'r', (err, h) => answer(err && sftpError(err, target), h)),
      `SFTP open ${target}`,
    );
    const opened = await request<Stats>(
      s,
      (answer) => s.sftp.fstat(handle, (err, fst) => answer(err && sftpError(err, target), fst)),
      `SFTP fstat ${target}`,
    ).catch((err: unknown) => {
      s.sftp.close(handle, () => {});
      throw err;
    });
    if (!opened.isFile()) {
      s.sftp.close(handle, () => {});
      throw new DriverError('invalid_argument', `not a regular file in the VM: ${target}`);
    }
    return readStream(s, target, handle, opened.size ?? 0);
  }

  /** Unpacks a tar stream into `path` (created if missing) with the VM's tar, as the VM user. */
  async putDir(path: string, tar: Readable): Promise<void> {
    const dir = vmPath(path, this.#home);
    const source = asReadable(tar);
    const q = shellQuote(dir);
    // GNU tar refuses members with `..` and strips leading `/`, so nothing lands outside `dir`.
    const res = await this.#ssh.run(`mkdir -p -- ${q} && exec tar -x -f - -C ${q}`, { stdin: source });
    if (res.code === -1) throw lostConnection(dir);
    if (res.code !== 0) {
      const line = firstLine(res.stderr) || `exit ${res.code}`;
      throw new DriverError('command_failed', `unpacking into ${dir} failed: ${line}`, 'tar -x');
    }
  }

  /** Packs `path` as a tar stream; the stream errors if tar fails part-way. */
  async getDir(path: string): Promise<Readable> {
    const dir = vmPath(path, this.#home);
    const s = await this.#ssh.sftp();
    const st = await stat(s, dir);
    if (!st) throw new DriverError('not_found', `no such directory in the VM: ${dir}`);
    if (!st.isDirectory()) throw new DriverError('invalid_argument', `not a directory in the VM: ${dir}`);
    // COPYFILE_DISABLE: macOS's bsdtar (the tart driver's guests) would add an AppleDouble `._*`
    // member for every file with extended attributes; GNU tar ignores it.
    return this.#ssh.open(`COPYFILE_DISABLE=1 exec tar -c -f - -C ${shellQuote(dir)} .`, (channel, gone) => {
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
        // No exit status: the connection went away under tar.
        else if (code === -1) out.destroy(gone.aborted ? gone.reason : lostConnection(dir));
        else {
          const line = firstLine(Buffer.concat(errors)) || `exit ${code}`;
          out.destroy(new DriverError('command_failed', `packing ${dir} failed: ${line}`, 'tar -c'));
        }
      });
      // A paused reader would otherwise learn of a lost connection only after reading what is buffered.
      const onGone = (): void => {
        out.destroy(gone.reason);
      };
      gone.addEventListener('abort', onGone, { once: true });
      // The reader went away early: stop tar.
      out.on('close', () => {
        gone.removeEventListener('abort', onGone);
        channel.close();
      });
      channel.end();
      return out as Readable;
    });
  }
}

function lostConnection(dir: string): DriverError {
  return new DriverError('unreachable', `the VM's SSH connection closed while tar worked on ${dir}`, 'tar');
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
