// The server's end of the process launcher (launcher-process.ts): the linux driver's programs are
// forked by that small process instead of by the server, whose every fork held its event loop for a
// copy of its page tables (about 20 ms at the ~350 MiB a server with desktops holds; a boot spawns
// about ten programs, right after each claim, while the claimed sandbox's first calls wait).
// One launcher per process, started at first use and again if it dies. A program it started is
// the launcher's child: its exit comes as a message, and if the launcher dies first, by polling.
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { DriverError } from '../driver.ts';
import { processLives } from './proc.ts';

export type LauncherRequest =
  | {
      op: 'run';
      id: number;
      command: string;
      args: readonly string[];
      env: NodeJS.ProcessEnv;
      cwd: string | undefined;
      input: string | Buffer | undefined;
    }
  | {
      op: 'start';
      id: number;
      command: string;
      args: readonly string[];
      env: NodeJS.ProcessEnv;
      cwd: string | undefined;
      logFile: string | undefined;
      extraFds: number;
    }
  | { op: 'kill'; id: number; signal: NodeJS.Signals };

export type LauncherReply =
  | { op: 'ready' }
  | { op: 'got'; id: number }
  | { op: 'error'; id: number; code: string; message: string }
  | {
      op: 'closed';
      id: number;
      code: number | null;
      signal: NodeJS.Signals | null;
      stdout: Uint8Array;
      stderr: Uint8Array;
    }
  | { op: 'spawned'; id: number; pid: number }
  | { op: 'data'; id: number; fd: number; data: Uint8Array }
  /** A piped fd reached its end: after the program's exit when a child of its own holds it open. */
  | { op: 'eof'; id: number; fd: number }
  | { op: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null };

/** A reply; undefined when the launcher died with the request; 'unsent' when it never got it. */
type Waiter = (m: LauncherReply | undefined | 'unsent') => void;

/**
 * A program the launcher started, as much of a ChildProcess as the driver uses: its exit is an event
 * and, as on a ChildProcess, `exitCode`/`signalCode`, since it can come before anyone listens (the
 * launcher's "spawned" and "exit" replies of a program that exits at once arrive in one read).
 */
export class LaunchedChild extends EventEmitter {
  pid: number | undefined;
  /** Index 2 is stderr when it is a pipe, 3 and up the extra pipes (Xvfb's -displayfd). */
  readonly stdio: (Readable | null)[];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  exited = false;

  constructor(stderrPiped: boolean, extraFds: number) {
    super();
    this.stdio = [null, null, stderrPiped ? new PassThrough() : null];
    for (let i = 0; i < extraFds; i++) this.stdio.push(new PassThrough());
  }

  get stderr(): Readable | null {
    return this.stdio[2] ?? null;
  }

  /** Its exit, once. Its streams end on their own eof: output written just before the exit still comes. */
  finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }

  /** One piped fd ended (or all of them, the launcher gone). */
  endStream(fd?: number): void {
    const streams = fd === undefined ? this.stdio : [this.stdio[fd]];
    for (const s of streams) if (s && !(s as PassThrough).writableEnded) (s as PassThrough).end();
  }

  /** Exited, and every piped fd ended: nothing more will come for it. */
  get done(): boolean {
    return this.exited && this.stdio.every((s) => !s || (s as PassThrough).writableEnded);
  }
}

class Launcher {
  readonly #child: ChildProcess;
  readonly #waiters = new Map<number, Waiter>();
  readonly #children = new Map<number, LaunchedChild>();
  /** Requests the launcher said it received: after its death they are not sent again. */
  readonly #received = new Set<number>();
  readonly ready: Promise<void>;
  #dead = false;

  constructor() {
    this.#child = spawn(process.execPath, [join(import.meta.dirname, 'launcher-process.ts')], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    // The launcher does not keep this process alive; its channel does while a request waits on it or
    // a program it started runs, as a child process's handle does.
    this.#child.unref();
    this.#child.channel?.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      this.#child.once('error', reject);
      this.#child.once('exit', () => reject(new Error('the process launcher exited before it was ready')));
      this.#child.once('message', () => resolve());
    });
    this.ready.catch(() => undefined);
    this.#child.on('message', (m: LauncherReply) => this.#onReply(m));
    this.#child.once('exit', () => this.#died());
    this.#child.on('error', () => this.#died());
  }

  get dead(): boolean {
    return this.#dead;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  send(m: LauncherRequest, waiter?: Waiter, child?: LaunchedChild): void {
    if (!this.#child.connected) this.#died();
    if (this.#dead) return waiter?.('unsent');
    if (waiter) this.#waiters.set(m.id, waiter);
    if (child) this.#children.set(m.id, child);
    this.#holdOpen();
    this.#child.send(m, (e) => {
      if (!e) return;
      // The channel refused the message (EPIPE: the launcher is dead, its exit not yet seen here): it
      // never saw this one, and no later one will reach it either. Marked dead now, so the request
      // goes to a new launcher rather than into this channel again before its 'exit' comes.
      if (waiter) {
        this.#children.delete(m.id);
        this.#reply(m.id, 'unsent');
      }
      this.#died();
    });
  }

  #holdOpen(): void {
    if (this.#dead) return;
    if (this.#waiters.size > 0 || this.#children.size > 0) this.#child.channel?.ref();
    else this.#child.channel?.unref();
  }

  #onReply(m: LauncherReply): void {
    if (m.op === 'ready') return;
    if (m.op === 'got') {
      this.#received.add(m.id);
      return;
    }
    const child = this.#children.get(m.id);
    if (child && m.op === 'data') {
      const s = child.stdio[m.fd] as PassThrough | null | undefined;
      if (s && !s.writableEnded) s.write(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.length));
      return;
    }
    if (child && (m.op === 'exit' || m.op === 'eof')) {
      if (m.op === 'exit') child.finish(m.code, m.signal);
      else child.endStream(m.fd);
      if (child.done) this.#children.delete(m.id);
      this.#holdOpen();
      return;
    }
    if (child && m.op === 'error') this.#children.delete(m.id);
    this.#reply(m.id, m);
  }

  #reply(id: number, m: LauncherReply | undefined | 'unsent'): void {
    const waiter = this.#waiters.get(id);
    this.#waiters.delete(id);
    this.#received.delete(id);
    this.#holdOpen();
    waiter?.(m);
  }

  /** Calls in flight fail; programs already running are watched by their pid from now on. */
  #died(): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const id of [...this.#waiters.keys()])
      this.#reply(id, this.#received.has(id) ? undefined : 'unsent');
    // A program that runs (its pid known) is watched; a request not yet answered is answered above.
    // Its pipes went with the launcher.
    for (const child of this.#children.values()) {
      child.endStream();
      if (child.pid !== undefined) void watchOrphan(child);
    }
    this.#children.clear();
  }
}

let current: Launcher | undefined;
let nextId = 1;

async function launcher(): Promise<Launcher> {
  if (!current || current.dead) current = new Launcher();
  const l = current;
  await l.ready;
  return l;
}

/**
 * One request and its first reply, on a launcher that received it: one that died before it could
 * (its death not yet seen here) is replaced, and the request sent once more. A launcher that dies
 * with the request answers undefined: the program may have started, so it is not sent again.
 */
async function request(
  build: (id: number) => LauncherRequest,
  child?: LaunchedChild,
  onSent?: (l: Launcher, id: number) => void,
): Promise<LauncherReply | undefined> {
  for (let attempt = 0; ; attempt++) {
    const l = await launcher();
    const id = nextId++;
    const m = await new Promise<LauncherReply | undefined | 'unsent'>((resolve) => {
      l.send(build(id), resolve, child);
      onSent?.(l, id);
    });
    if (m !== 'unsent') return m;
    if (attempt > 0) return undefined;
  }
}

function launcherGone(command: string): DriverError {
  return new DriverError('command_failed', `${command}: the process launcher exited`, command);
}

export interface LaunchedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Runs a command to its end through the launcher; `kill` signals it meanwhile. Rejects with the
 * spawn's own error (an ENOENT for a missing binary) as spawn would emit it.
 */
export function launchRun(
  command: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string | undefined; input: string | Buffer | undefined },
): { done: Promise<LaunchedRun>; kill: (signal: NodeJS.Signals) => void } {
  let sentTo: { l: Launcher; id: number } | undefined;
  let killed: NodeJS.Signals | undefined;
  const kill = (signal: NodeJS.Signals) => sentTo?.l.send({ op: 'kill', id: sentTo.id, signal });
  const done = request(
    (id) => ({ op: 'run', id, command, args, ...opts }),
    undefined,
    (l, id) => {
      sentTo = { l, id };
      if (killed) kill(killed);
    },
  ).then((m) => {
    if (m?.op === 'error') throw Object.assign(new Error(m.message), { code: m.code });
    if (m?.op !== 'closed') throw launcherGone(command);
    return {
      code: m.code,
      signal: m.signal,
      stdout: Buffer.from(m.stdout.buffer, m.stdout.byteOffset, m.stdout.length),
      stderr: Buffer.from(m.stderr.buffer, m.stderr.byteOffset, m.stderr.length),
    };
  });
  return {
    done,
    kill: (signal) => {
      killed = signal;
      kill(signal);
    },
  };
}

/** Starts a long-running program through the launcher; resolves once it runs (its pid known). */
export async function launchLong(
  command: string,
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; cwd: string | undefined; logFile: string | undefined; extraFds: number },
): Promise<LaunchedChild> {
  const child = new LaunchedChild(opts.logFile === undefined, opts.extraFds);
  const m = await request((id) => ({ op: 'start', id, command, args, ...opts }), child);
  if (m?.op === 'error') throw Object.assign(new Error(m.message), { code: m.code });
  if (m?.op !== 'spawned') throw launcherGone(command);
  child.pid = m.pid;
  return child;
}

/**
 * A program whose launcher died: no exit message will come, so its pid is polled until it is gone.
 * A zombie counts as gone: reparented to an init that does not reap, it would stay one for good.
 */
async function watchOrphan(child: LaunchedChild): Promise<void> {
  while (!child.exited && child.pid !== undefined && processLives(child.pid))
    await new Promise((r) => setTimeout(r, 50));
  child.finish(null, null);
}

/** The launcher's pid (tests: the parent of every program the driver starts). */
export async function launcherPid(): Promise<number | undefined> {
  return (await launcher()).pid;
}
