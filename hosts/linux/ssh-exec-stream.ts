// A streaming exec (Guest.execStream) over the VM's pooled SSH connection: the same command line as
// `exec` (the VM user's shell, the desktop session's environment, the shell's pid written first),
// with the channel's streams handed out as they come instead of collected.
//
// Without a pty the shell writes exec-marker.ts's markers as it exits: stdout and stderr end there
// and `exit` resolves with the status they carry, while what the command left in the background
// keeps the channel (drained) and runs on, as with `exec`. Under a pty, stdout and stderr are the
// terminal's one stream (the pid is its first line), and the stream ends when the shell exits: sshd
// then hangs the terminal up, as a terminal emulator's window closing does.
//
// A stream takes no place in the connection's queue of exec channels (ssh-client.ts) once open: it
// may live for hours, and the API caps how many a sandbox holds (api/ws/live-sessions.ts).
import { PassThrough, Writable } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import {
  DriverError,
  type ExecExit,
  type ExecStream,
  type ExecStreamOptions,
  type PtySize,
} from '../driver.ts';
import { checkPtySize } from '../stream-checks.ts';
import { MarkedStream, newMarker } from './exec-marker.ts';
import {
  TIMEOUT_EXIT_CODE,
  commandLine,
  markedCommandLine,
  signalGroup,
  timeoutLadder,
  validateExec,
} from './ssh-client-exec.ts';
import { exitCode, type SshClient } from './ssh-client.ts';

const TERM = 'xterm-256color';
/** Output held for a slow reader before the VM's writer is made to wait. */
const OUTPUT_BUFFER_BYTES = 256 * 1024;
/** How long close() waits for the shell's pid before it closes the channel without a hang-up. */
const PID_WAIT_MS = 5_000;
/** The hang-up's second HUP to the command's group (see #hangUp). */
const HUP_AGAIN_MS = 500;

export async function openExecStream(
  ssh: SshClient,
  command: string,
  opts: ExecStreamOptions & { env: Record<string, string> },
): Promise<ExecStream> {
  validateExec(command, opts.timeoutMs);
  if (opts.pty) checkPtySize(opts.pty);
  const marker = opts.pty ? undefined : newMarker();
  const line = marker ? markedCommandLine(command, opts.env, marker) : commandLine(command, opts.env);
  return ssh.open(
    line,
    (channel, gone, release) => {
      // Open for as long as the command runs: no place in the queue of short execs.
      release();
      return new SshExecStream(ssh, channel, gone, marker, opts.timeoutMs);
    },
    opts.pty ? { pty: { ...opts.pty, term: TERM } } : {},
  );
}

/** Attached in the tick the channel opens (see SshClient.open). */
class SshExecStream implements ExecStream {
  readonly stdin: Writable;
  readonly stdout = new PassThrough({ highWaterMark: OUTPUT_BUFFER_BYTES });
  readonly stderr = new PassThrough({ highWaterMark: OUTPUT_BUFFER_BYTES });
  readonly exit: Promise<ExecExit>;
  readonly #ssh: SshClient;
  readonly #channel: ClientChannel;
  readonly #pty: boolean;
  /** The shell's pid, read from the first line it writes (stderr, or the terminal's output). */
  #pid: number | undefined;
  #pidLine = '';
  #code = -1;
  #timedOut = false;
  #ended = false;
  /** close() hung the command up: whatever the VM reports after, the stream did not see it end. */
  #hungUp = false;
  #timers: NodeJS.Timeout[] = [];
  /** What close() left to do once the pid is known. */
  #onPid: (() => void) | undefined;
  #settle!: { resolve: (e: ExecExit) => void; reject: (e: Error) => void };

  constructor(
    ssh: SshClient,
    channel: ClientChannel,
    gone: AbortSignal,
    marker: string | undefined,
    timeoutMs: number | undefined,
  ) {
    this.#ssh = ssh;
    this.#channel = channel;
    this.#pty = marker === undefined;
    this.exit = new Promise<ExecExit>((resolve, reject) => (this.#settle = { resolve, reject }));
    // Whoever holds the stream may never ask how it ended: an unheard rejection must not crash.
    this.exit.catch(() => undefined);
    this.stdin = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        if (this.#ended || channel.destroyed) return done();
        if (channel.write(chunk)) done();
        else channel.once('drain', () => done());
      },
      final: (done) => {
        if (!this.#ended) channel.end();
        done();
      },
    });
    this.stdin.on('error', () => undefined);

    const out = marker ? new MarkedStream(marker, true, (c) => this.#emit(this.stdout, c)) : undefined;
    const err = marker ? new MarkedStream(marker, false, (c) => this.#emit(this.stderr, c)) : undefined;
    // After a timeout the ladder kills the group and closes the channel, and after a hang-up close()
    // closed it: the close decides.
    const markersSeen = () => {
      if (out?.done && err?.done && !this.#timedOut && !this.#hungUp) this.#finish(out.status ?? this.#code);
    };
    channel.on('data', (chunk: Buffer) => {
      if (this.#ended) return; // drained: a background process's later output is not the stream's
      const rest = this.#pty ? this.#takePid(chunk) : chunk;
      if (!rest.length) return;
      if (out) {
        out.add(rest);
        markersSeen();
      } else this.#emit(this.stdout, rest);
    });
    channel.stderr.on('data', (chunk: Buffer) => {
      if (this.#ended || !err) return;
      const rest = this.#takePid(chunk);
      if (!rest.length) return;
      err.add(rest);
      markersSeen();
    });
    channel.on('exit', (status: number | null, signal?: string) => {
      this.#code = exitCode(status, signal);
    });
    channel.on('close', () => {
      if (this.#ended) return;
      if (this.#hungUp || (this.#code === -1 && !this.#timedOut)) {
        const why = this.#hungUp
          ? 'the stream was closed before the command finished'
          : 'the SSH connection closed before the command finished';
        return this.#fail(new DriverError('unreachable', why, 'exec'));
      }
      out?.flush();
      err?.flush();
      this.#finish(this.#code);
    });
    gone.addEventListener('abort', () => this.#fail(gone.reason as Error), { once: true });
    // Output is flow-controlled: a reader that stops holds the VM's writer (the SSH window).
    for (const s of [this.stdout, this.stderr]) s.on('drain', () => channel.resume());
    if (timeoutMs !== undefined) {
      this.#timers = timeoutLadder(ssh, () => this.#pid, channel, timeoutMs, {
        timedOut: () => (this.#timedOut = true),
        unconfirmed: () =>
          this.#fail(new DriverError('timeout', 'the VM did not end the command after its timeout', 'exec')),
      });
    }
  }

  resize(size: PtySize): void {
    if (!this.#pty || this.#ended) return;
    checkPtySize(size);
    this.#channel.setWindow(size.rows, size.cols, 0, 0);
  }

  close(): void {
    if (this.#ended || this.#hungUp) return;
    this.#hungUp = true;
    if (this.#pid !== undefined) return this.#hangUp();
    // The pid line may still be on its way: sshd reads the command's stdout and stderr apart, so
    // the command's first output can overtake it. Hang up once it is here, or close after a while.
    const timer = setTimeout(() => this.#hangUp(), PID_WAIT_MS);
    this.#timers.push(timer);
    this.#onPid = () => {
      clearTimeout(timer);
      this.#hangUp();
    };
  }

  #hangUp(): void {
    signalGroup(this.#ssh, this.#pid, 'HUP');
    // Once more a moment later: a HUP that reaches the shell just before it forks the next command
    // (`echo ready; sleep 3603`) is held by the shell while it forks, and the child, not yet in the
    // group when it was signalled, outlives it in the same group (full runs 26 and 30).
    setTimeout(() => signalGroup(this.#ssh, this.#pid, 'HUP'), HUP_AGAIN_MS).unref();
    this.#channel.close();
  }

  #emit(stream: PassThrough, chunk: Buffer): void {
    if (!stream.write(chunk)) this.#channel.pause();
  }

  /** Everything up to the first newline is the shell's pid, written before the user's command runs. */
  #takePid(chunk: Buffer): Buffer {
    if (this.#pid !== undefined) return chunk;
    const nl = chunk.indexOf(0x0a);
    if (nl < 0) {
      this.#pidLine += chunk.toString('latin1');
      return Buffer.alloc(0);
    }
    this.#pid = Number.parseInt(this.#pidLine + chunk.subarray(0, nl).toString('latin1'), 10);
    this.#onPid?.();
    this.#onPid = undefined;
    return chunk.subarray(nl + 1);
  }

  #finish(code: number): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const t of this.#timers) clearTimeout(t);
    this.stdout.end();
    this.stderr.end();
    // Drained from now on (see the header); a timed-out command's channel is closed by its ladder.
    this.#channel.resume();
    this.#settle.resolve({
      code: this.#timedOut ? TIMEOUT_EXIT_CODE : code,
      timedOut: this.#timedOut,
    });
  }

  #fail(err: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const t of this.#timers) clearTimeout(t);
    // Readers see the streams end early; `exit` says why (an 'error' nobody listens to would crash).
    this.stdout.destroy();
    this.stderr.destroy();
    this.#settle.reject(err);
  }
}
