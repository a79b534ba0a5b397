// The one way the linux driver runs programs: argument arrays (never a shell line built from input),
// a missing binary or a non-zero exit becomes a DriverError naming the command and the first line it
// wrote to stderr, every call has a deadline, and every long-running process is tracked by PID so
// that the driver can kill all of them when it closes.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DriverError } from '../driver.ts';
import { LaunchedChild, launchLong, launchRun, type LaunchedRun } from './launcher.ts';
import { childPids, processLives } from './proc.ts';

export interface RunOptions {
  /** Kill the command after this long (default 30 s); the call then fails with code `timeout`. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: string | Buffer;
  /** Aborting kills the command and rejects with the signal's reason: a cancelled call is not a DriverError. */
  signal?: AbortSignal;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * From now on this process's programs are forked by the process launcher (launcher.ts), not by this
 * process: a server's fork holds its event loop for a copy of its page tables (bench/spawn-cost.ts).
 * The linux driver turns it on; tools and tests that use this module alone fork for themselves.
 */
export function spawnThroughLauncher(): void {
  viaLauncher = true;
}

let viaLauncher = false;

/** Runs a command to completion. */
export function run(command: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
  const how = { env: opts.env ?? process.env, cwd: opts.cwd, input: opts.input };
  const proc = viaLauncher ? launchRun(command, args, how) : spawnRun(command, args, how);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      finish(() =>
        reject(new DriverError('timeout', `${command} did not finish within ${timeoutMs} ms`, command)),
      );
    }, timeoutMs);
    const onAbort = () => {
      proc.kill('SIGKILL');
      finish(() => reject(opts.signal?.reason));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    proc.done.then(
      ({ code, signal: sig, stdout: out, stderr: err }) => {
        const stdout = out.toString();
        const stderr = err.toString();
        if (code === 0) return finish(() => resolve({ stdout, stderr }));
        const why =
          firstLine(stderr) || firstLine(stdout) || (sig ? `killed by ${sig}` : `exit code ${code}`);
        finish(() => reject(new DriverError('command_failed', `${command}: ${why}`, command)));
      },
      (e: NodeJS.ErrnoException) =>
        finish(() => reject(e instanceof DriverError ? e : spawnError(command, e))),
    );
  });
}

/** run()'s command forked by this process itself. */
function spawnRun(
  command: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string | undefined; input: string | Buffer | undefined },
): { done: Promise<LaunchedRun>; kill: (signal: NodeJS.Signals) => void } {
  const child = spawn(command, args, {
    env: opts.env,
    cwd: opts.cwd,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  const done = new Promise<LaunchedRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }),
    );
  });
  if (opts.input !== undefined) {
    // A command that exits without reading all of its input makes the pipe fail (EPIPE); its exit
    // status tells what happened, and the error unheard would crash the server.
    child.stdin?.on('error', () => {});
    child.stdin?.end(opts.input);
  }
  return { done, kill: (signal) => child.kill(signal) };
}

/**
 * Starts a process whose lifetime its caller manages itself (the screen recorder, which it stops
 * with SIGINT so that the file is finished): the one other way the driver spawns a program,
 * kept here so that every program the driver runs starts in this module.
 */
export function spawnTool(
  command: string,
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; stdio: StdioOptions },
): ChildProcess {
  return spawn(command, args, { env: opts.env ?? process.env, stdio: opts.stdio });
}

export function spawnError(command: string, e: NodeJS.ErrnoException): DriverError {
  if (e.code === 'ENOENT') return new DriverError('missing_tool', `${command}: not installed`, command);
  return new DriverError('command_failed', `${command}: ${e.message}`, command);
}

export function firstLine(text: string): string {
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t) return t;
  }
  return '';
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Extra file descriptors beyond stdio, e.g. Xvfb's `-displayfd 3` (`'pipe'`). */
  extraFds?: number;
  /** A name for messages (defaults to the command). */
  label?: string;
  /**
   * Where stderr goes (truncated first). Without it stderr is a pipe to this process, and a daemon
   * writing to it after the driver died (a crash, before a restart adopts it) would get SIGPIPE.
   */
  logFile?: string;
}

/** A long-running process the driver started (or adopted after a restart), known by PID. */
export class TrackedProcess {
  readonly label: string;
  readonly pid: number;
  readonly child: ChildProcess | LaunchedChild | undefined;
  /** Resolves with the exit code (or signal name) once the process is gone; never rejects. */
  readonly exited: Promise<number | string>;
  readonly logFile: string | undefined;
  #stderrHead = '';
  #stderrTail = '';
  #alive = true;

  constructor(label: string, pid: number, child?: ChildProcess | LaunchedChild, logFile?: string) {
    this.label = label;
    this.pid = pid;
    this.child = child;
    this.logFile = logFile;
    if (child) {
      // Keep draining stderr (a full pipe would block the process) but remember only the start.
      child.stderr?.on('data', (b: Buffer) => {
        if (this.#stderrHead.length < 2048) this.#stderrHead += b.toString();
        this.#stderrTail = (this.#stderrTail + b.toString()).slice(-2048);
      });
      this.exited = new Promise((resolve) => {
        const onExit = (code: number | null, sig: NodeJS.Signals | null) => {
          this.#alive = false;
          resolve(code ?? sig ?? 'unknown');
        };
        // A launched program can have exited before this object was made (launcher.ts).
        const gone =
          child instanceof LaunchedChild
            ? child.exited
            : child.exitCode !== null || child.signalCode !== null;
        if (gone) onExit(child.exitCode, child.signalCode);
        else child.once('exit', onExit);
      });
    } else {
      this.exited = waitForPidExit(pid).then(() => {
        this.#alive = false;
        return 'unknown';
      });
    }
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** First stderr line, for error messages. */
  get reason(): string {
    return firstLine(this.logFile ? readLog(this.logFile, 'head') : this.#stderrHead);
  }

  /** Last stderr line: a dying daemon says why at the end, after any startup warnings. */
  get lastWords(): string {
    return this.recentLines(1);
  }

  /** Its last `n` non-empty log (or stderr) lines, joined with " | ": what it said before a deadline. */
  recentLines(n: number): string {
    const tail = this.logFile ? readLog(this.logFile, 'tail') : this.#stderrTail;
    const lines = tail
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.slice(-n).join(' | ');
  }

  /** The error to report when the process died while we waited on it. */
  diedError(): DriverError {
    const why =
      this.lastWords === this.reason
        ? this.reason
        : [this.reason, this.lastWords].filter(Boolean).join(' … ');
    return new DriverError('command_failed', `${this.label} exited: ${why || 'no message'}`, this.label);
  }

  /** SIGTERM, then SIGKILL once `graceMs` passed (x11vnc can hang on SIGTERM). */
  async stop(graceMs = 2000): Promise<void> {
    if (!this.#alive) return;
    signalPid(this.pid, 'SIGTERM');
    const timer = setTimeout(() => signalPid(this.pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** SIGKILL to the process and its children (tini's child in a VM's PID namespace, ns-enter.ts). */
  kill(): void {
    if (this.#alive) killTree(this.pid);
  }
}

/** Every long-running process of the driver, so that `close()` leaves none behind. */
export class ProcessTracker {
  readonly #procs = new Set<TrackedProcess>();

  /** Starts a long-running process; fails at once with `missing_tool` when the binary is absent. */
  start(command: string, args: readonly string[], opts: StartOptions = {}): Promise<TrackedProcess> {
    const label = opts.label ?? command;
    if (viaLauncher) {
      const how = {
        env: opts.env ?? process.env,
        cwd: opts.cwd,
        logFile: opts.logFile,
        extraFds: opts.extraFds ?? 0,
      };
      return launchLong(command, args, how).then(
        (child) => this.#track(new TrackedProcess(label, child.pid!, child, opts.logFile)),
        (e: NodeJS.ErrnoException) => {
          throw e instanceof DriverError ? e : spawnError(label, e);
        },
      );
    }
    const logFd = opts.logFile === undefined ? undefined : openSync(opts.logFile, 'w', 0o600);
    const stdio: StdioOptions = ['ignore', 'ignore', logFd ?? 'pipe'];
    for (let i = 0; i < (opts.extraFds ?? 0); i++) stdio.push('pipe');
    return new Promise<TrackedProcess>((resolve, reject) => {
      const child = spawn(command, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio });
      child.once('error', (e: NodeJS.ErrnoException) => reject(spawnError(label, e)));
      child.once('spawn', () => {
        if (child.pid === undefined)
          return reject(new DriverError('command_failed', `${label}: no pid`, label));
        resolve(this.#track(new TrackedProcess(label, child.pid, child, opts.logFile)));
      });
    }).finally(() => {
      if (logFd !== undefined) closeSync(logFd);
    });
  }

  /** Tracks a process started by an earlier incarnation of the driver (after a restart). */
  adopt(label: string, pid: number, logFile?: string): TrackedProcess {
    return this.#track(new TrackedProcess(label, pid, undefined, logFile));
  }

  #track(p: TrackedProcess): TrackedProcess {
    this.#procs.add(p);
    void p.exited.then(() => this.#procs.delete(p));
    return p;
  }

  get size(): number {
    return this.#procs.size;
  }

  /** SIGKILLs every tracked process and waits until all are gone. */
  async killAll(): Promise<void> {
    const all = [...this.#procs];
    for (const p of all) p.kill();
    await Promise.all(all.map((p) => p.exited));
  }
}

/**
 * SIGKILLs `pid`'s children, then `pid`: what a process the driver started in a VM's PID namespace
 * is (tini outside, the command its child inside), since SIGKILL is the one signal tini cannot pass on.
 */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const child of childPids(pid)) signalPid(child, 'SIGKILL');
  signalPid(pid, 'SIGKILL');
}

export function signalPid(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Waits (polling, since a non-child gives no exit event) until `pid` is gone. */
async function waitForPidExit(pid: number): Promise<void> {
  while (processLives(pid)) await delay(20);
}

/** The first or last 2 KiB of a log file ('' when unreadable). */
function readLog(file: string, end: 'head' | 'tail'): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const len = Math.min(size, 2048);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, end === 'head' ? 0 : size - len);
    return buf.toString();
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Polls `check` until it returns a value other than undefined, or fails with `timeout` after
 * `timeoutMs`. For conditions the kernel gives no event for (a cgroup emptying, a port opening).
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 5,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) throw new DriverError('timeout', `${what}: not done within ${timeoutMs} ms`);
    await delay(intervalMs);
  }
}
