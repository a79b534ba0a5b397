// `exec` of the API: the user's command in the VM user's own shell over the pooled SSH connection,
// with the desktop session's environment (DISPLAY, XAUTHORITY, XDG_RUNTIME_DIR, the session bus), so
// that a GUI program started by exec appears on the VM's screen.
//
// Timeouts cost nothing until they fire. sshd starts a command without a terminal in a new session
// (setsid), so the shell's pid is also the process group of everything the command starts (a
// non-interactive shell has no job control). The command line first writes that pid on stderr (a
// shell builtin, no extra process; the line is removed from the result). At the deadline a second
// channel signals the whole group — TERM, then KILL — and the channel is closed if the VM still has
// not answered. Wrapping every command in coreutils `timeout` did the same at ~8 ms per call.
import type { ClientChannel } from 'ssh2';
import { DriverError, type ExecResult } from '../driver.ts';
import { exitCode, OutputCapture, shellQuote, type SshClient } from './ssh-client.ts';

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

/** The command line sent to sshd (run by the VM user's login shell with `-c`). */
export function commandLine(command: string, env: Record<string, string>): string {
  return `printf '%s\\n' "$$" >&2\n${envPrefix(env)}${command}`;
}

function validate(command: unknown, timeoutMs: number | undefined): asserts command is string {
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
  validate(command, opts.timeoutMs);
  const result = await ssh.open(commandLine(command, opts.env), (channel) =>
    collectExec(ssh, channel, opts.timeoutMs),
  );
  return result;
}

/** Attached in the tick the channel opens (see SshClient.open). */
function collectExec(
  ssh: SshClient,
  channel: ClientChannel,
  timeoutMs: number | undefined,
): Promise<ExecResult> {
  return new Promise<ExecResult>((resolve, reject) => {
    const stdout = new OutputCapture();
    const stderr = new OutputCapture();
    let pidLine = '';
    let pid: number | undefined;
    let code = -1;
    let timedOut = false;
    const timers: NodeJS.Timeout[] = [];

    channel.on('data', (chunk: Buffer) => stdout.add(chunk));
    channel.stderr.on('data', (chunk: Buffer) => {
      if (pid !== undefined) return stderr.add(chunk);
      // Everything up to the first newline is the shell's pid, written before the user's command runs.
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        pidLine += chunk.toString('latin1');
        return;
      }
      pid = Number.parseInt(pidLine + chunk.subarray(0, nl).toString('latin1'), 10);
      stderr.add(chunk.subarray(nl + 1));
    });
    channel.on('exit', (status: number | null, signal?: string) => {
      code = exitCode(status, signal);
    });
    channel.on('close', () => {
      for (const t of timers) clearTimeout(t);
      // No exit status and no deadline: the connection went away under the command (VM stopped).
      if (code === -1 && !timedOut) {
        reject(
          new DriverError('unreachable', 'the SSH connection closed before the command finished', 'exec'),
        );
        return;
      }
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        return_code: timedOut ? TIMEOUT_EXIT_CODE : code,
        timed_out: timedOut,
      });
    });
    channel.end();

    if (timeoutMs !== undefined) {
      const killGroup = (signal: 'TERM' | 'KILL'): void => {
        // A pid of 1 or less would signal far more than the command: never.
        if (pid === undefined || !(pid > 1)) return;
        ssh.run(`kill -${signal} -- -${pid} 2>/dev/null`).catch(() => undefined);
      };
      timers.push(
        setTimeout(() => {
          timedOut = true;
          killGroup('TERM');
        }, timeoutMs),
        setTimeout(() => killGroup('KILL'), timeoutMs + KILL_AFTER_MS),
        setTimeout(() => channel.close(), timeoutMs + KILL_AFTER_MS + CLOSE_AFTER_MS),
      );
    }
  });
}
