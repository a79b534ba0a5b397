// exec through the VM's exec agent (exec-agent.py): one long-lived SSH channel per VM on which each
// call is one request line, answered by a bash that was already waiting for it. A plain SSH exec
// (ssh-client-exec.ts) pays a channel's open (two round trips and an sshd fork) and a shell's start
// for every call; here a call costs a line each way and the command itself.
//
// The guarantees of the plain path hold: a command runs at most once (a request is written once; if
// the agent's channel ends before its exit is known, the call fails, it is never sent again), what
// it starts in the background keeps running and does not hold the call (the agent reports the exit
// of the command's shell, drains what the shell wrote, and drops what comes later), a timeout
// kills the command's whole process group (TERM, then KILL), stdout and stderr stay apart.
//
// The agent runs as the VM's user: the tenant may kill it, stop it, or answer anything in its
// place. Nothing it says is trusted beyond the call it answers: lines are bounded, output is capped,
// every call has its deadline, and a call made while no agent answers goes the plain way (and the
// agent is started again, after a pause that doubles while it keeps failing).
import { readFileSync } from 'node:fs';
import type { ClientChannel } from 'ssh2';
import { DriverError, type ExecResult } from '../driver.ts';
import { commandLine, TIMEOUT_EXIT_CODE, validateExec } from './ssh-client-exec.ts';
import { OutputCapture, shellQuote, type SshClient } from './ssh-client.ts';

const SCRIPT = readFileSync(new URL('./exec-agent.py', import.meta.url), 'utf8');
/** The agent says `ready` once it has its first shells waiting (python's start is ~30 ms). */
const READY_DEADLINE_MS = 10_000;
/** One event line: a base64 chunk of 64 KiB is ~88 KB; anything much longer is not the agent's. */
const MAX_LINE_BYTES = 256 * 1024;
const KILL_AFTER_MS = 2_000;
/** After KILL, how long the agent has to report the exit before the call fails and the agent is dropped. */
const GIVE_UP_AFTER_MS = 5_000;
const RESTART_BACKOFF_MS = { initial: 1_000, max: 60_000 };
/**
 * Lines that answer no call in flight. The agent sends none (it drops what a finished command's
 * background writes); a stream of them is the tenant writing into the channel (it can trace its
 * own agent): the agent is dropped, and calls go the plain way until the backoff has passed.
 */
const MAX_STRAY_LINES = 100;

interface Call {
  stdout: OutputCapture;
  stderr: OutputCapture;
  timedOut: boolean;
  timers: NodeJS.Timeout[];
  resolve: (r: ExecResult) => void;
  reject: (e: Error) => void;
}

type AgentEvent =
  | { ev: 'ready' }
  | { ev: 'started'; id: number; pid: number }
  | { ev: 'out' | 'err'; id: number; data: string }
  | { ev: 'exit'; id: number; code: number }
  | { ev: 'failed'; id?: number; error: string };

/** The agent on one VM; `run` falls back to `plain` whenever the agent is not up. */
export class ExecAgent {
  readonly #ssh: SshClient;
  readonly #env: () => Record<string, string>;
  #channel: ClientChannel | undefined;
  #starting: Promise<void> | undefined;
  #nextId = 1;
  readonly #calls = new Map<number, Call>();
  #failures = 0;
  #retryAt = 0;
  #closed = false;
  #stray = 0;

  constructor(ssh: SshClient, env: () => Record<string, string>) {
    this.#ssh = ssh;
    this.#env = env;
  }

  /** Whether calls go through the agent now (tests, benches). */
  get up(): boolean {
    return this.#channel !== undefined;
  }

  /**
   * Runs `command` through the agent, or returns undefined when the agent is not up (the caller
   * then runs it the plain way); starts the agent for the calls to come.
   */
  run(command: string, timeoutMs: number | undefined): Promise<ExecResult> | undefined {
    validateExec(command, timeoutMs);
    const channel = this.#channel;
    if (!channel) {
      this.#start();
      return undefined;
    }
    const id = this.#nextId++;
    return new Promise<ExecResult>((resolve, reject) => {
      const call: Call = {
        stdout: new OutputCapture(),
        stderr: new OutputCapture(),
        timedOut: false,
        timers: [],
        resolve,
        reject,
      };
      this.#calls.set(id, call);
      if (timeoutMs !== undefined) {
        const kill = (sig: number) => this.#send({ id, op: 'kill', sig });
        call.timers.push(
          setTimeout(() => {
            call.timedOut = true;
            kill(15);
          }, timeoutMs),
          setTimeout(() => kill(9), timeoutMs + KILL_AFTER_MS),
          // No exit even after KILL: the agent, or the sshd session under it, stopped answering. The
          // connection is dropped as the plain path drops it (everything on it fails; the next
          // call opens a fresh one).
          setTimeout(
            () => {
              this.#calls.delete(id);
              reject(new DriverError('timeout', 'the VM did not answer the exec after its timeout', 'exec'));
              this.reset();
              this.#ssh.close();
            },
            timeoutMs + KILL_AFTER_MS + GIVE_UP_AFTER_MS,
          ),
        );
      }
      this.#send({ id, op: 'run', cmd: command });
    });
  }

  /** Ends the agent for good (the VM is going away). */
  close(): void {
    this.#closed = true;
    this.reset();
  }

  /** Drops the agent's channel (calls waiting on it fail); the next call starts it again. */
  reset(): void {
    const channel = this.#channel;
    this.#channel = undefined;
    channel?.close();
    this.#end(new DriverError('unreachable', 'the exec agent was dropped', 'exec'));
  }

  #send(request: object): void {
    this.#channel?.write(`${JSON.stringify(request)}\n`);
  }

  #start(): void {
    if (this.#starting || this.#closed || Date.now() < this.#retryAt) return;
    this.#starting = this.#open()
      .then(() => {
        this.#failures = 0;
      })
      .catch(() => {
        this.#failures++;
        const pause = Math.min(
          RESTART_BACKOFF_MS.max,
          RESTART_BACKOFF_MS.initial * 2 ** (this.#failures - 1),
        );
        this.#retryAt = Date.now() + pause;
      })
      .finally(() => {
        this.#starting = undefined;
      });
  }

  async #open(): Promise<void> {
    const line = commandLine(`exec /usr/bin/python3 -u -c ${shellQuote(SCRIPT)}`, this.#env());
    await this.#ssh.open(
      line,
      (channel, gone, release) =>
        new Promise<void>((resolve, reject) => {
          // The agent's channel is not an exec in flight: it does not hold one of the connection's slots.
          release();
          let buffered = '';
          let ready = false;
          const timer = setTimeout(() => {
            channel.close();
            reject(new DriverError('timeout', 'the exec agent did not start', 'exec-agent'));
          }, READY_DEADLINE_MS);
          channel.stderr.resume();
          channel.on('data', (chunk: Buffer) => {
            buffered += chunk.toString('utf8');
            if (buffered.length > MAX_LINE_BYTES && !buffered.includes('\n')) {
              channel.close(); // not the agent speaking
              return;
            }
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              const text = buffered.slice(0, nl);
              buffered = buffered.slice(nl + 1);
              const event = parse(text);
              if (!event) {
                if (++this.#stray > MAX_STRAY_LINES) this.#misbehaved();
                continue;
              }
              if (event.ev === 'ready' && !ready) {
                ready = true;
                clearTimeout(timer);
                this.#channel = channel;
                resolve();
              } else this.#onEvent(event);
            }
          });
          const ended = () => {
            clearTimeout(timer);
            if (this.#channel === channel) this.#channel = undefined;
            this.#end(gone.reason instanceof Error ? gone.reason : lostAgent());
            if (!ready) reject(lostAgent());
          };
          channel.on('close', ended);
          gone.addEventListener('abort', () => channel.close(), { once: true });
        }),
    );
  }

  #onEvent(e: AgentEvent): void {
    const id = 'id' in e && typeof e.id === 'number' ? e.id : undefined;
    const call = id === undefined ? undefined : this.#calls.get(id);
    if (id === undefined || !call) {
      if (++this.#stray > MAX_STRAY_LINES) this.#misbehaved();
      return;
    }
    switch (e.ev) {
      case 'started':
        break;
      case 'out':
      case 'err':
        (e.ev === 'out' ? call.stdout : call.stderr).add(Buffer.from(String(e.data), 'base64'));
        break;
      case 'exit':
        this.#finish(id, Number.isInteger(e.code) ? e.code : -1);
        break;
      case 'failed':
        this.#calls.delete(id);
        for (const t of call.timers) clearTimeout(t);
        call.reject(new DriverError('command_failed', `exec agent: ${String(e.error)}`, 'exec'));
        break;
    }
  }

  #finish(id: number, code: number): void {
    const call = this.#calls.get(id);
    if (!call) return;
    this.#calls.delete(id);
    for (const t of call.timers) clearTimeout(t);
    call.resolve({
      stdout: call.stdout.text(),
      stderr: call.stderr.text(),
      return_code: call.timedOut ? TIMEOUT_EXIT_CODE : code,
      timed_out: call.timedOut,
    });
  }

  /** Dropped for what it sent; not started again before the backoff has passed. */
  #misbehaved(): void {
    this.#stray = 0;
    this.#failures++;
    this.#retryAt = Date.now() + RESTART_BACKOFF_MS.max;
    this.reset();
  }

  /** The channel ended: every call still waiting fails (none is sent again: it may have run). */
  #end(err: Error): void {
    for (const [id, call] of this.#calls) {
      this.#calls.delete(id);
      for (const t of call.timers) clearTimeout(t);
      call.reject(err);
    }
  }
}

function parse(text: string): AgentEvent | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && 'ev' in v ? (v as AgentEvent) : undefined;
  } catch {
    return undefined;
  }
}

function lostAgent(): DriverError {
  return new DriverError('unreachable', 'the exec agent ended before the command finished', 'exec');
}
