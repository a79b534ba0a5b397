// `exec` of the API: the user's command in the VM user's own shell over the pooled SSH connection,
// with the desktop session's environment (DISPLAY, XAUTHORITY, XDG_RUNTIME_DIR, the session bus), so
// that a GUI program started by exec appears on the VM's screen.
//
// A call returns when the command's shell exits, with the output the command wrote until then; what
// it started in the background keeps running and does not hold the call (see exec-marker.ts): the
// channel stays open, drained, until those processes close the inherited pipes, so they never write
// into a closed pipe (SIGPIPE). Its slot in the connection's channel limit is freed at return.
//
// Timeouts cost nothing until they fire. sshd starts a command without a terminal in a new session
// (setsid), so the shell's pid is also the process group of everything the command starts (a
// non-interactive shell has no job control). The command line first writes that pid on stderr (a
// shell builtin, no extra process; the line is removed from the result). At the deadline a second
// channel signals the whole group — TERM, then KILL — and the channel is closed if the VM still has
// not answered. Wrapping every command in coreutils `timeout` did the same at ~8 ms per call.
import type { ClientChannel } from 'ssh2';
import { DriverError, type ExecResult } from '../driver.ts';
import { MarkedStream, markerTrap, newMarker } from './exec-marker.ts';
import { CONFIRM_CLOSE_MS, exitCode, shellQuote, type SshClient } from './ssh-client.ts';

const KILL_AFTER_MS = 2_000;
/** After KILL, the host stops waiting for the channel this much later (a process that left the group may hold it). */
const CLOSE_AFTER_MS = 3_000;
const MAX_TIMEOUT_MS = 24 * 3600 * 1000;
const MAX_COMMAND_BYTES = 256 * 1024;
/** `timeout`'s exit code, which the API uses for a command killed at its deadline. */
export const TIMEOUT_EXIT_CODE = 124;

export interface RunOptions {
  env: Record<string, string>;
  timeoutMs?: number;
}

function envPrefix(env: Record<string, string>): string {
  const pairs = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return pairs.length > 0 ? `export ${pairs.join(' ')}\n` : '';
}

/** `command` with `env` exported first (values quoted), without the pid line of `commandLine`. */
export function withEnv(command: string, env: Record<string, string>): string {
  return `${envPrefix(env)}${command}`;
}

/** The command line sent to sshd (run by the VM user's login shell with `-c`). */
export function commandLine(command: string, env: Record<string, string>): string {
  return `printf '%s\\n' "$$" >&2\n${envPrefix(env)}${command}`;
}

/** `commandLine` whose shell writes `marker` on stdout and stderr when it exits (exec-marker.ts). */
export function markedCommandLine(command: string, env: Record<string, string>, marker: string): string {
  return commandLine(`${markerTrap(marker)}\n${command}`, env);
}

/**
 * The exec's own checks, before anything is sent: shared with the exec agent (exec-agent.ts) and
 * the exec stream (ssh-exec-stream.ts).
 */
export function validateExec(command: unknown, timeoutMs: number | undefined): asserts command is string {
  if (typeof command !== 'string' || command.trim() === '')
    throw new DriverError('invalid_argument', 'command is required');
  if (command.includes('\0')) throw new DriverError('invalid_argument', 'command contains a NUL byte');
  if (Buffer.byteLength(command) > MAX_COMMAND_BYTES)
    throw new DriverError('invalid_argument', 'command is too long');
  if (
    timeoutMs !== undefined &&
    (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS)
  ) {
    throw new DriverError('invalid_argument', `timeout must be between 0 and 24 h, got ${timeoutMs} ms`);
  }
}

export async function runCommand(ssh: SshClient, command: string, opts: RunOptions): Promise<ExecResult> {
  validateExec(command, opts.timeoutMs);
  const marker = newMarker();
  return ssh.open(markedCommandLine(command, opts.env, marker), (channel, _gone, release) =>
    collectExec(ssh, channel, release, marker, opts.timeoutMs),
  );
}

/** Attached in the tick the channel opens (see SshClient.open). */
function collectExec(
  ssh: SshClient,
  channel: ClientChannel,
  release: () => void,
  marker: string,
  timeoutMs: number | undefined,
): Promise<ExecResult> {
  return new Promise<ExecResult>((resolve, reject) => {
    const stdout = new MarkedStream(marker, true);
    const stderr = new MarkedStream(marker, false);
    let pidLine = '';
    let pid: number | undefined;
    let code = -1;
    let timedOut = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (returnCode: number): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      resolve({
        stdout: stdout.capture.text(),
        stderr: stderr.capture.text(),
        return_code: timedOut ? TIMEOUT_EXIT_CODE : returnCode,
        timed_out: timedOut,
      });
    };
    // The shell exited normally: the call is done; the channel lives on, drained, for its background
    // processes. After a timeout the channel is closed instead (the kill took the group).
    const markersSeen = (): void => {
      if (!stdout.done || !stderr.done || timedOut) return;
      finish(stdout.status ?? code);
      release();
    };

    channel.on('data', (chunk: Buffer) => {
      stdout.add(chunk);
      markersSeen();
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      if (pid === undefined) {
        // Everything up to the first newline is the shell's pid, written before the user's command runs.
        const nl = chunk.indexOf(0x0a);
        if (nl < 0) {
          pidLine += chunk.toString('latin1');
          return;
        }
        pid = Number.parseInt(pidLine + chunk.subarray(0, nl).toString('latin1'), 10);
        chunk = chunk.subarray(nl + 1);
      }
      stderr.add(chunk);
      markersSeen();
    });
    channel.on('exit', (status: number | null, signal?: string) => {
      code = exitCode(status, signal);
    });
    channel.on('close', () => {
      // No exit status and no deadline: the connection went away under the command (VM stopped).
      if (!settled && code === -1 && !timedOut) {
        settled = true;
        for (const t of timers) clearTimeout(t);
        reject(
          new DriverError('unreachable', 'the SSH connection closed before the command finished', 'exec'),
        );
        return;
      }
      // No markers: the shell was killed, or replaced by `exec`; the streams ended with everything.
      stdout.flush();
      stderr.flush();
      finish(code);
    });
    channel.end();

    if (timeoutMs !== undefined) {
      timers.push(
        ...timeoutLadder(ssh, () => pid, channel, timeoutMs, {
          timedOut: () => (timedOut = true),
          unconfirmed: () => {
            if (settled) return;
            settled = true;
            for (const t of timers) clearTimeout(t);
            reject(
              new DriverError(
                'timeout',
                'the VM did not close the command after its timeout; connection dropped',
                'exec',
              ),
            );
          },
        }),
      );
    }
  });
}

/** Signals the process group of the command whose shell is `pid` (sshd made it a session leader). */
export function signalGroup(ssh: SshClient, pid: number | undefined, signal: 'TERM' | 'KILL' | 'HUP'): void {
  // A pid of 1 or less would signal far more than the command: never.
  if (pid === undefined || !(pid > 1)) return;
  ssh.run(`kill -${signal} -- -${pid} 2>/dev/null`).catch(() => undefined);
}

/**
 * What a command's timeout does, step by step: at `timeoutMs` TERM to its group (`timedOut` is
 * called), KILL 2 s later, the channel closed 3 s after that, and if the VM has not confirmed the
 * close 5 s later the connection is dropped (`unconfirmed`). Returns the timers, for the caller to
 * clear once the command ended.
 */
export function timeoutLadder(
  ssh: SshClient,
  pid: () => number | undefined,
  channel: ClientChannel,
  timeoutMs: number,
  on: { timedOut: () => void; unconfirmed: () => void },
): NodeJS.Timeout[] {
  return [
    setTimeout(() => {
      on.timedOut();
      signalGroup(ssh, pid(), 'TERM');
    }, timeoutMs),
    setTimeout(() => signalGroup(ssh, pid(), 'KILL'), timeoutMs + KILL_AFTER_MS),
    setTimeout(() => channel.close(), timeoutMs + KILL_AFTER_MS + CLOSE_AFTER_MS),
    setTimeout(
      () => {
        ssh.close();
        on.unconfirmed();
      },
      timeoutMs + KILL_AFTER_MS + CLOSE_AFTER_MS + CONFIRM_CLOSE_MS,
    ),
  ];
}
