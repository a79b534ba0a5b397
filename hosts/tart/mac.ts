// One Mac mini as the tart driver reaches it: a pooled SSH connection (ssh2, through the linux
// driver's SshClient: bounded concurrent channels, keepalive, re-opened by the next call after a
// drop), logged in with the Mini's credentials, the Mac's host key pinned on first use. Every Tart
// call is one exec whose arguments are each shell-quoted: nothing a customer sends reaches the Mac's
// shell unquoted.
import type { Readable, Writable } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { DriverError, type HostRef } from '../driver.ts';
import { exitCode, OutputCapture, shellQuote, SshClient } from '../linux/ssh-client.ts';
import type { SshCredentials } from './credentials.ts';
import { pinnedOnDisk } from './known-hosts.ts';
import { tartError } from './tart-errors.ts';

/**
 * A Mac that does not answer is tried again after 0.5 s, then 1, 2, 4… up to 30 s: the operator's
 * probes and the API's calls meanwhile fail at once (`unreachable`), and every guest connection
 * (forwarded through this one) waits with it.
 */
export const RECONNECT_BACKOFF = { initialMs: 500, maxMs: 30_000 };

/**
 * Every command on the Mac starts with Homebrew's dirs on PATH: an SSH command runs in a non-login
 * shell whose PATH is `/usr/bin:/bin:/usr/sbin:/sbin` (no `.zprofile`, no `brew shellenv`), where
 * `tart` (/opt/homebrew/bin on Apple silicon, /usr/local/bin on Intel) is not found (exit 127), and
 * Tart looks up `softnet` on the same PATH for `--net-softnet`.
 */
export const MAC_PATH = 'PATH=/opt/homebrew/bin:/usr/local/bin:$PATH; export PATH\n';

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class Mac {
  readonly ref: HostRef;
  readonly #ssh: SshClient;

  constructor(ref: HostRef, credentials: () => SshCredentials, knownHostsDir: string) {
    this.ref = ref;
    const verify = pinnedOnDisk(knownHostsDir, ref.name);
    this.#ssh = new SshClient(
      () => {
        const c = credentials();
        return {
          host: ref.address,
          port: 22,
          username: c.username,
          privateKey: c.privateKey,
          hostKey: '',
          verifyHostKey: verify,
        };
      },
      { backoff: RECONNECT_BACKOFF },
    );
  }

  /**
   * Runs a shell script on the Mac (its login shell, `sh -c`); never rejects on a non-zero exit, but
   * with `unreachable` when the connection is lost under it and `timeout` past `deadlineMs`.
   */
  async sh(script: string, deadlineMs = 120_000): Promise<ShellResult> {
    const r = await this.#ssh.run(MAC_PATH + script, { deadlineMs });
    if (r.deadlineHit) {
      throw new DriverError(
        'timeout',
        `${firstWords(script)} on ${this.ref.name}: no answer within ${deadlineMs} ms`,
      );
    }
    if (r.code === -1) {
      // No exit status: the connection went away under the command (it may or may not have run to
      // its end on the Mac). The Mac is unreachable, not the command wrong: the operator retries.
      throw new DriverError(
        'unreachable',
        `${firstWords(script)} on ${this.ref.name}: the SSH connection was lost before it finished`,
      );
    }
    return { code: r.code, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  }

  /**
   * Runs a script with `stdin` fed to it and its stdout streamed to `stdout` (a delta of many MiB
   * that `sh` would hold in memory); resolves once the script exited and `stdout` has finished.
   * Code -1: the connection went away before the script's exit status arrived.
   */
  async pipe(
    script: string,
    io: { stdin?: Readable; stdout?: Writable },
    deadlineMs = 1_500_000,
  ): Promise<{ code: number; stderr: string }> {
    return this.#ssh.open(
      MAC_PATH + script,
      (channel) =>
        new Promise<{ code: number; stderr: string }>((resolve, reject) => {
          const err = new OutputCapture();
          let code = -1;
          channel.stderr.on('data', (chunk: Buffer) => err.add(chunk));
          channel.on('exit', (status: number | null, signal?: string) => {
            code = exitCode(status, signal);
          });
          const timer = setTimeout(() => channel.close(), deadlineMs);
          const closed = new Promise<void>((done) => channel.on('close', () => done()));
          const written = io.stdout
            ? new Promise<void>((done, fail) => {
                io.stdout!.on('finish', done).on('error', fail);
                channel.pipe(io.stdout!);
              })
            : (channel.resume(), Promise.resolve());
          if (io.stdin) {
            io.stdin.on('error', () => channel.close());
            io.stdin.pipe(channel);
          } else channel.end();
          Promise.all([closed, written]).then(
            () => {
              clearTimeout(timer);
              resolve({ code, stderr: err.text() });
            },
            (e: unknown) => {
              clearTimeout(timer);
              channel.close();
              reject(e as Error);
            },
          );
        }),
    );
  }

  /** `tart ARGS…`; its stdout, or the DriverError its exit code and message map to. */
  async tart(args: string[], deadlineMs?: number): Promise<string> {
    const line = tartLine(args);
    const r = await this.sh(line, deadlineMs);
    if (r.code !== 0) throw tartError(`tart ${args[0]}`, r.code, r.stderr, r.stdout);
    return r.stdout;
  }

  /** A TCP stream from the Mac to `host:port` (a guest's sshd, Tart's VNC server on 127.0.0.1). */
  forward(host: string, port: number): Promise<ClientChannel> {
    return this.#ssh.forwardOut(host, port);
  }

  close(): void {
    this.#ssh.close();
  }
}

export function tartLine(args: string[]): string {
  return ['tart', ...args].map(shellQuote).join(' ');
}

/**
 * A shell loop that runs `body` (lines that `break` or `exit` when done), then sleeps `sleepS`, until
 * `timeoutS` have passed by the Mac's clock: not by a count of rounds, since on a busy Mac a round
 * takes longer than its sleep.
 */
export function untilMacClock(timeoutS: number, body: string[], sleepS: number): string[] {
  return [
    `end=$(($(date +%s) + ${timeoutS}))`,
    'while [ "$(date +%s)" -lt "$end" ]; do',
    ...body.map((line) => `  ${line}`),
    `  sleep ${sleepS}`,
    'done',
  ];
}

/**
 * A script that reads `tart get NAME` every 0.2 s until one of `arms` (shell `case` arms on its JSON,
 * each ending in an exit) matches; exits 124 after `timeoutS` (untilMacClock), or with `tart get`'s
 * code if it fails.
 */
export function pollTartGet(name: string, arms: string, timeoutS: number): string {
  return [
    ...untilMacClock(
      timeoutS,
      [`out=$(${tartLine(['get', name, '--format', 'json'])}) || exit $?`, `case "$out" in ${arms} esac`],
      0.2,
    ),
    'exit 124',
  ].join('\n');
}

/** The VM's directory on the Mac, as a shell word (TART_HOME or ~/.tart, as Tart resolves it). */
export function vmDirWord(name: string): string {
  return `"\${TART_HOME:-$HOME/.tart}/vms/"${shellQuote(name)}`;
}

function firstWords(script: string): string {
  return script.split(/\s+/).slice(0, 3).join(' ');
}
