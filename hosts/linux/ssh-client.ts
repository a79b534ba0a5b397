// One pooled SSH connection (ssh2) per VM: every exec, SFTP transfer and tar stream is a channel on
// it. Nagle is off (noDelay): with it on, each small exec round trip waits for a delayed ACK
// (48 ms instead of 3.4 ms here). A dropped connection is re-opened by the next call; a call whose
// channel never opened (a dead connection, a refused open) is retried on a fresh one. Once the channel
// opened, the command may have started (sshd runs it before it answers the exec request): it is never
// sent again, whatever happens to the connection, so exec runs at most once.
//
// Each connection carries a `gone` signal, aborted (with an `unreachable` DriverError) the moment it
// ends for any reason: ssh2 never answers a request sent on a closed channel, so whatever still
// waits on the connection (a paused download, an upload between chunks) must fail on that signal.
// The server's host key is pinned: the VM's own sshd host key, generated when the VM was created.
import { createHash } from 'node:crypto';
import type { Duplex, Readable } from 'node:stream';
import { Client, type ClientChannel, type ExecOptions, type SFTPWrapper } from 'ssh2';
import { DriverError } from '../driver.ts';

export interface SshTarget {
  host: string;
  port: number;
  username: string;
  privateKey: string;
  /** The VM's sshd host public key (an OpenSSH line, `ssh-ed25519 AAAA… comment`); no other is accepted. */
  hostKey: string;
  /**
   * Decides on the presented host key instead of `hostKey` (the tart driver pins each Mac's and
   * guest's key on first use).
   */
  verifyHostKey?: (key: Buffer) => boolean;
  /** A stream to run SSH over instead of a TCP connection (a guest reached through its Mac). */
  sock?: () => Promise<Duplex>;
}

/** Delays between reconnect attempts after failures: `initialMs`, doubling, at most `maxMs`. */
export interface ReconnectBackoff {
  initialMs: number;
  maxMs: number;
}

/** The SFTP session of the pooled connection, and the signal that aborts once it is unusable. */
export interface SftpSession {
  sftp: SFTPWrapper;
  gone: AbortSignal;
}

/**
 * Exec channels open at once on the connection; more wait their turn. The VM's sshd allows 1024
 * sessions per connection (MaxSessions); it frees one only after the client's close reaches it. A
 * channel an exec left open for its background processes no longer counts here (see `open`).
 */
const MAX_CHANNELS = 16;
const OPEN_ATTEMPTS = 3;
export const KEEPALIVE_INTERVAL_MS = 15_000;
export const KEEPALIVE_COUNT_MAX = 3;
const READY_TIMEOUT_MS = 10_000;
/**
 * After closing a channel, how long the VM has to confirm it. Its sshd session runs as the VM's
 * user, who may stop it, and a VM that powered off may never answer again: then the connection is
 * dropped, which ends the call (and every other one waiting on that connection).
 */
export const CONFIRM_CLOSE_MS = 5_000;
/**
 * How long an exec channel may take to open and start its command. The sshd process that answers
 * runs as the VM's user, which may stop it: past this the connection is not trusted any more.
 */
export const OPEN_DEADLINE_MS = 30_000;
/** Output beyond this per stream is drained and dropped, so a runaway command cannot exhaust memory. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface RunResult {
  stdout: Buffer;
  stderr: Buffer;
  /** Exit status; 128 + signal number when the remote process died of a signal. */
  code: number;
  /** Set when the channel was closed by `deadlineMs` before the command exited. */
  deadlineHit: boolean;
}

export class SshClient {
  readonly #target: () => SshTarget;
  #conn: Promise<Client> | undefined;
  /** The client behind `#conn`, so that a late event of an old client never drops a newer one. */
  #current: Client | undefined;
  #sftp: Promise<SftpSession> | undefined;
  /** Aborted when that connection ends (see the header). */
  readonly #gone = new WeakMap<Client, AbortController>();
  #open = 0;
  readonly #waiting: (() => void)[] = [];
  readonly #backoff: ReconnectBackoff | undefined;
  /** Failed connects in a row, and when the next may be tried (with `backoff`). */
  #failures = 0;
  #retryAt = 0;
  #lastFailure = '';

  /**
   * `target` is read at every (re)connect: a re-created VM may come back with a new key. With
   * `backoff`, a failed connect is not tried again until its delay has passed (doubling per failure
   * up to the maximum, reset by a success): calls meanwhile fail at once with `unreachable`, so a Mac
   * that is down costs neither a connect attempt per call nor the calls' time.
   */
  constructor(target: () => SshTarget, opts: { backoff?: ReconnectBackoff } = {}) {
    this.#target = target;
    this.#backoff = opts.backoff;
  }

  /**
   * Runs `command` in the VM user's shell. `stdin` is piped in (the channel's stdin is closed when it
   * ends, or at once without it). `deadlineMs` closes the channel if the command has not exited by then,
   * and drops the connection if the VM has not confirmed that close CONFIRM_CLOSE_MS later.
   */
  async run(command: string, opts: { stdin?: Readable; deadlineMs?: number } = {}): Promise<RunResult> {
    return this.open(command, (channel) => collect(channel, opts, () => this.close()));
  }

  /**
   * Opens an exec channel and hands it to `attach` synchronously, in the same tick it opens: a fast
   * command's output, exit status and close often arrive in the very packet batch that confirms the
   * channel, and an event emitted before its listener exists is lost. The channel's slot is freed
   * when it closes, or earlier by `release` (a channel left open on purpose, see ssh-client-exec.ts).
   * `gone` aborts when the connection under the channel ends. `options`: ssh2's (a pty, for one).
   */
  async open<T>(
    command: string,
    attach: (channel: ClientChannel, gone: AbortSignal, release: () => void) => T,
    options: ExecOptions = {},
  ): Promise<T> {
    await this.#acquire();
    // Freed once: by the channel's close, or by a failure to open it (never by both).
    let held = true;
    const release = (): void => {
      if (!held) return;
      held = false;
      this.#release();
    };
    try {
      const opened = await this.#openExec(command, options, (channel, gone) => {
        channel.once('close', release);
        // A stream error on the channel (a write after the VM closed it) ends it; its close reports
        // the outcome. Unheard, it would crash the server.
        channel.on('error', () => channel.close());
        return attach(channel, gone, release);
      });
      return await opened.value;
    } catch (err) {
      release();
      throw err;
    }
  }

  /** The SFTP session of the pooled connection (one, shared). */
  async sftp(): Promise<SftpSession> {
    const current = this.#sftp;
    if (current) {
      const session = await current.catch(() => undefined);
      if (session && !session.gone.aborted) return session;
      if (this.#sftp !== current) return this.sftp();
    }
    const opening = this.#client().then(
      (client) =>
        new Promise<SftpSession>((resolve, reject) => {
          client.sftp((err, sftp) => {
            if (err)
              return reject(new DriverError('unreachable', `SFTP on ${this.#describe()}: ${err.message}`));
            const ended = new AbortController();
            const end = (why: string): void => {
              if (this.#sftp === opening) this.#sftp = undefined;
              ended.abort(new DriverError('unreachable', `SFTP on ${this.#describe()}: ${why}`, 'sftp'));
            };
            // A fatal SFTP protocol error is emitted on the session: unheard, it would crash the server.
            sftp.on('error', (e: Error) => end(e.message));
            sftp.once('close', () => end('the session closed'));
            resolve({ sftp, gone: AbortSignal.any([this.#goneSignal(client), ended.signal]) });
          });
        }),
    );
    this.#sftp = opening;
    opening.catch(() => {
      if (this.#sftp === opening) this.#sftp = undefined;
    });
    return opening;
  }

  /**
   * A TCP connection from the SSH server's side to `host:port` (ssh -W), as a stream. A refusal is
   * `unreachable`; with `byReason`, the server's reason decides: `refused` when nothing listens
   * there, `not_supported` when the server forwards nothing.
   */
  async forwardOut(host: string, port: number, opts: { byReason?: boolean } = {}): Promise<ClientChannel> {
    const client = await this.#client();
    return new Promise((resolve, reject) => {
      try {
        client.forwardOut('127.0.0.1', 0, host, port, (err, channel) => {
          if (err) {
            // The server's reason: nothing listens there (2), or it forwards nothing (1).
            const reason = (err as { reason?: unknown }).reason;
            const code = !opts.byReason
              ? 'unreachable'
              : reason === 2
                ? 'refused'
                : reason === 1
                  ? 'not_supported'
                  : 'unreachable';
            return reject(
              new DriverError(code, `${host}:${port} via ${this.#describe()}: ${err.message}`, 'ssh'),
            );
          }
          channel.on('error', () => channel.close());
          resolve(channel);
        });
      } catch (err) {
        this.#drop(client);
        reject(
          new DriverError(
            'unreachable',
            `${host}:${port} via ${this.#describe()}: ${(err as Error).message}`,
            'ssh',
          ),
        );
      }
    });
  }

  /** Ends the connection; whatever still waits on it fails at once, and a later call opens a new one. */
  close(): void {
    const conn = this.#conn;
    this.#conn = undefined;
    this.#sftp = undefined;
    conn?.then(
      (c) => this.#drop(c),
      () => {},
    );
  }

  /**
   * Retries only a failure to open the channel, never a command that may have started: `attach`'s
   * result comes back boxed, so a failure of the running command does not look like a failure to open.
   */
  async #openExec<T>(
    command: string,
    options: ExecOptions,
    attach: (channel: ClientChannel, gone: AbortSignal) => T,
  ): Promise<{ value: T }> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#client();
      try {
        return await new Promise<{ value: T }>((resolve, reject) => {
          // The open (and the exec request with it) unanswered: the command may have started, so it
          // is not tried again; the connection is dropped, which fails everything else waiting on it.
          const timer = setTimeout(() => {
            this.#drop(client);
            reject(
              new DriverError(
                'timeout',
                `SSH exec on ${this.#describe()}: no answer within ${OPEN_DEADLINE_MS / 1000} s`,
                'ssh',
              ),
            );
          }, OPEN_DEADLINE_MS);
          try {
            client.exec(command, options, (err, channel) => {
              clearTimeout(timer);
              if (err) reject(err);
              else resolve({ value: attach(channel, this.#goneSignal(client)) });
            });
          } catch (err) {
            clearTimeout(timer);
            reject(err as Error); // "Not connected": the socket is already gone
          }
        });
      } catch (err) {
        if (err instanceof DriverError) throw err;
        const message = (err as Error).message;
        const dead = this.#current !== client || /not connected|no response/i.test(message);
        if (dead) this.#drop(client);
        // The channel opened and the exec request was sent: sshd may have run the command already.
        if (!neverOpened(err as Error) || attempt >= OPEN_ATTEMPTS) {
          throw new DriverError('unreachable', `SSH exec on ${this.#describe()}: ${message}`, 'ssh');
        }
        // A dead connection (sshd restarted with the VM) is replaced; a refused channel is retried on
        // the same connection after a short pause.
        if (!dead) await new Promise((r) => setTimeout(r, 20 * attempt));
      }
    }
  }

  #client(): Promise<Client> {
    if (this.#conn) return this.#conn;
    const wait = this.#retryAt - Date.now();
    if (wait > 0) {
      return Promise.reject(
        new DriverError(
          'unreachable',
          `SSH to ${this.#describe()}: not retried for ${wait} ms after ${this.#failures} failed connects (${this.#lastFailure})`,
          'ssh',
        ),
      );
    }
    const conn = this.#connect().then(
      (client) => {
        this.#failures = 0;
        this.#retryAt = 0;
        return client;
      },
      (err: unknown) => {
        // A connect that failed before any client existed (a forwarded stream refused) left #conn set.
        if (this.#conn === conn) this.#conn = undefined;
        this.#failures++;
        this.#lastFailure = (err as Error).message;
        if (this.#backoff) {
          const { initialMs, maxMs } = this.#backoff;
          this.#retryAt = Date.now() + Math.min(maxMs, initialMs * 2 ** (this.#failures - 1));
        }
        throw err;
      },
    );
    this.#conn = conn;
    return conn;
  }

  #connect(): Promise<Client> {
    const target = this.#target();
    if (!target.sock) return this.#handshake(target);
    return target.sock().then((sock) => this.#handshake(target, sock));
  }

  #handshake(target: SshTarget, sock?: Duplex): Promise<Client> {
    const client = new Client();
    let presented: Buffer | undefined;
    const connecting = new Promise<Client>((resolve, reject) => {
      client.once('ready', () => resolve(client));
      client.once('error', (err) => {
        this.#drop(client);
        const why = presented ? hostKeyMismatch(presented, target.hostKey) : err.message;
        reject(new DriverError('unreachable', `SSH to ${this.#describe()}: ${why}`, 'ssh'));
      });
    });
    // After 'ready', errors end the connection; the next call re-opens it.
    client.on('error', () => this.#drop(client));
    client.on('close', () => this.#drop(client));
    const pinned = hostKeyBlob(target.hostKey);
    client.connect({
      ...(sock ? { sock } : { host: target.host, port: target.port }),
      username: target.username,
      privateKey: target.privateKey,
      readyTimeout: READY_TIMEOUT_MS,
      // A VM whose sshd session stops answering loses the connection within a minute, and every
      // stream on it (a terminal, a forwarded port) ends: what bounds a long-lived stream (guest-deadlines.ts).
      keepaliveInterval: KEEPALIVE_INTERVAL_MS,
      keepaliveCountMax: KEEPALIVE_COUNT_MAX,
      // Only the VM's own sshd: another process on its address (its port freed by a crash and taken)
      // must not receive the VM's commands and files.
      hostVerifier: (key: Buffer) => {
        if (target.verifyHostKey ? target.verifyHostKey(key) : pinned?.equals(key)) return true;
        presented = key;
        return false;
      },
    });
    if (!sock) client.setNoDelay(true);
    this.#current = client;
    return connecting;
  }

  #drop(client: Client): void {
    if (this.#current === client) {
      this.#current = undefined;
      this.#conn = undefined;
      this.#sftp = undefined;
    }
    this.#goneController(client).abort(
      new DriverError('unreachable', `the SSH connection to ${this.#describe()} closed`, 'ssh'),
    );
    client.end();
  }

  #goneController(client: Client): AbortController {
    let gone = this.#gone.get(client);
    if (!gone) {
      gone = new AbortController();
      this.#gone.set(client, gone);
    }
    return gone;
  }

  #goneSignal(client: Client): AbortSignal {
    return this.#goneController(client).signal;
  }

  #describe(): string {
    const t = this.#target();
    return `${t.username}@${t.host}:${t.port}`;
  }

  async #acquire(): Promise<void> {
    if (this.#open < MAX_CHANNELS) {
      this.#open++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#open--;
  }
}

/**
 * Whether ssh2 failed `exec` before the channel opened, so the command never reached sshd. ssh2's
 * errors at that stage: the socket was already closed ("Not connected"), the connection ended while
 * the open was pending ("No response from server": only pending opens get it, an open channel's
 * pending request fails with "Unable to exec"), the server refused the open (`reason` set), no local
 * channel id was free, or the channel closed before the exec request could be sent.
 */
function neverOpened(err: Error): boolean {
  if ('reason' in err) return true;
  return /^(Not connected|No response from server|No free channels available|Channel is not open)$/.test(
    err.message,
  );
}

function collect(
  channel: ClientChannel,
  opts: { stdin?: Readable; deadlineMs?: number },
  drop: () => void,
): Promise<RunResult> {
  return new Promise<RunResult>((resolve) => {
    const out = new OutputCapture();
    const err = new OutputCapture();
    channel.on('data', (chunk: Buffer) => out.add(chunk));
    channel.stderr.on('data', (chunk: Buffer) => err.add(chunk));
    let code = -1;
    let deadlineHit = false;
    channel.on('exit', (status: number | null, signal?: string) => {
      code = exitCode(status, signal);
    });
    const timers: NodeJS.Timeout[] = [];
    const finish = (): void => {
      for (const t of timers) clearTimeout(t);
      resolve({ stdout: out.buffer(), stderr: err.buffer(), code, deadlineHit });
    };
    if (opts.deadlineMs !== undefined) {
      timers.push(
        setTimeout(() => {
          deadlineHit = true;
          channel.close();
        }, opts.deadlineMs),
        // The close unconfirmed (a guest that powered off mid-command, its connection silent): the
        // connection goes, and the call ends without waiting for the channel's close.
        setTimeout(() => {
          drop();
          finish();
        }, opts.deadlineMs + CONFIRM_CLOSE_MS),
      );
    }
    channel.on('close', finish);
    if (opts.stdin) {
      opts.stdin.on('error', () => channel.close());
      opts.stdin.pipe(channel);
    } else {
      channel.end();
    }
  });
}

const SIGNALS: Record<string, number> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ABRT: 6,
  KILL: 9,
  SEGV: 11,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
};

/**
 * sshd reports a status, or the name of the signal that killed the process (then 128 + its number).
 * ssh2 hands the name on as `SIG` + what sshd sent (`SIGHUP`).
 */
export function exitCode(status: number | null | undefined, signal?: string): number {
  if (typeof status === 'number') return status;
  if (signal) return 128 + (SIGNALS[signal.replace(/^SIG/, '')] ?? 0);
  return -1;
}

/** Collects one output stream; beyond MAX_OUTPUT_BYTES it is drained and dropped. */
export class OutputCapture {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;

  add(chunk: Buffer): void {
    const room = MAX_OUTPUT_BYTES - this.#bytes;
    if (room <= 0 || chunk.length === 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(part);
    this.#bytes += part.length;
  }

  buffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }

  text(): string {
    return this.buffer().toString('utf8');
  }
}

/** The key blob of an OpenSSH public key line (`type base64 [comment]`), undefined when it has none. */
function hostKeyBlob(line: string): Buffer | undefined {
  const b64 = line.trim().split(/\s+/)[1];
  return b64 ? Buffer.from(b64, 'base64') : undefined;
}

/** OpenSSH's fingerprint of a key blob: `SHA256:` and the unpadded base64 of its hash. */
function fingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

function hostKeyMismatch(presented: Buffer, expected: string): string {
  const pinned = hostKeyBlob(expected);
  const want = pinned ? `the VM's key is ${fingerprint(pinned)}` : 'no host key is known for the VM';
  return `host key verification failed: the server presented ${fingerprint(presented)}, ${want}`;
}

/** One POSIX shell word for `value`, for the VM user's shell: single-quoted, `'` as `'\''`. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
