// The sim's streaming exec: the sim shell (shell.ts) with its output handed out command by command
// and its `cat` and `read` reading the stream's stdin. Under a pty, stderr joins stdout, input is
// echoed and newlines are written as CR LF, as a terminal's line discipline does; `tty` and `stty
// size` answer. A timeout ends sleeps and reads (exit 124); close() or the VM's power-off ends the
// command early (its exit rejects, as when the linux driver's stream is hung up).
import { PassThrough, Writable } from 'node:stream';
import {
  DriverError,
  type ExecExit,
  type ExecStream,
  type ExecStreamOptions,
  type PtySize,
} from '../driver.ts';
import { checkPtySize } from '../stream-checks.ts';
import type { SimDisk } from './disk.ts';
import type { SimContext } from './options.ts';
import { runShell, type ShellInput } from './shell.ts';

export interface SimStreamEnv {
  ctx: SimContext;
  disk: SimDisk;
  hostname: string;
  /** Aborted at the VM's power-off. */
  poweredOff: AbortSignal;
  serve(port: number, dir: string): string | undefined;
}

export function simExecStream(command: string, opts: ExecStreamOptions, env: SimStreamEnv): ExecStream {
  if (typeof command !== 'string' || command.trim() === '')
    throw new DriverError('invalid_argument', 'command is required');
  if (opts.pty) checkPtySize(opts.pty);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const input = new Input();
  const stop = new AbortController();
  const { clock } = env.ctx;
  const deadline = opts.timeoutMs === undefined ? Infinity : clock.now() + opts.timeoutMs;
  let size = opts.pty;
  let closed = false;
  let done = false;

  const timer = opts.timeoutMs === undefined ? undefined : clock.setTimer(opts.timeoutMs, () => stop.abort());
  const onPowerOff = () => stop.abort();
  env.poweredOff.addEventListener('abort', onPowerOff, { once: true });
  stop.signal.addEventListener('abort', () => input.end(), { once: true });

  const toTerminal = (text: string) => text.replace(/\r?\n/g, '\r\n');
  const stdin = new Writable({
    write(chunk: Buffer, _enc, cb) {
      let text = chunk.toString('utf8');
      if (size) {
        text = text.replace(/\r/g, '\n'); // icrnl: Enter sends CR, the program reads LF
        stdout.write(toTerminal(text)); // echo
      }
      input.push(text);
      cb();
    },
    final(cb) {
      input.end();
      cb();
    },
  });
  stdin.on('error', () => undefined);

  const exit = runShell(command, {
    disk: env.disk,
    hostname: env.hostname,
    sleep: async (ms) => {
      const left = deadline - clock.now();
      await wait(clock, Math.min(ms, Math.max(0, left)), stop.signal);
      return !stop.signal.aborted && ms <= left;
    },
    write: (stream, text) => {
      if (!text || done) return;
      if (size) stdout.write(toTerminal(text));
      else (stream === 'stdout' ? stdout : stderr).write(text);
    },
    stdin: input,
    ...(size && { tty: () => size! }),
    serve: env.serve,
  }).then(
    (result): ExecExit => {
      finish();
      if (closed || env.poweredOff.aborted)
        throw new DriverError(
          'unreachable',
          closed ? 'the stream was closed before the command finished' : 'the VM stopped',
        );
      const timedOut = result.timed_out || (stop.signal.aborted && deadline <= clock.now());
      return { code: timedOut ? 124 : result.return_code, timedOut };
    },
    (err: unknown) => {
      finish();
      throw err;
    },
  );
  exit.catch(() => undefined);

  function finish(): void {
    done = true;
    timer?.cancel();
    env.poweredOff.removeEventListener('abort', onPowerOff);
    stdout.end();
    stderr.end();
  }

  return {
    stdin,
    stdout,
    stderr,
    exit,
    resize(next: PtySize) {
      if (!size || done) return;
      checkPtySize(next);
      size = next;
    },
    close() {
      if (done) return;
      closed = true;
      stop.abort();
    },
  };
}

/** `ms` of the driver's clock, or less when `signal` aborts (its timer is then cancelled). */
function wait(clock: SimContext['clock'], ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimer(ms, () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The stream's stdin as the shell reads it: lines, or everything to the end. */
class Input implements ShellInput {
  #text = '';
  #ended = false;
  #waiters: (() => void)[] = [];

  push(text: string): void {
    this.#text += text;
    this.#wake();
  }

  end(): void {
    this.#ended = true;
    this.#wake();
  }

  async line(): Promise<string | undefined> {
    for (;;) {
      const nl = this.#text.indexOf('\n');
      if (nl >= 0) {
        const line = this.#text.slice(0, nl);
        this.#text = this.#text.slice(nl + 1);
        return line;
      }
      if (this.#ended) {
        const rest = this.#text;
        this.#text = '';
        return rest === '' ? undefined : rest;
      }
      await this.#next();
    }
  }

  async all(): Promise<string> {
    while (!this.#ended) await this.#next();
    const all = this.#text;
    this.#text = '';
    return all;
  }

  #next(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }
}
