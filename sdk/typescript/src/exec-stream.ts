// Streaming exec (`GET …/exec/stream`, a WebSocket in Kubernetes' exec channel protocol): a command
// whose output arrives as it is written, through `onStdout`/`onStderr` callbacks or `for await` over
// its events, with stdin, a pty and resize, and the exit code at the end. The runtime's own
// WebSocket carries it (Node's and Bun's take the Authorization header in their second argument).
import { SandbayConnectionError, SandbayError } from './errors.ts';
import type { Transport } from './http.ts';

const PROTOCOL = 'v5.channel.k8s.io';
const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const STATUS = 3;
const RESIZE = 4;
const CLOSE = 255;

export interface ExecStreamOptions {
  /** Run under a pseudo-terminal (stderr then arrives merged into stdout). */
  tty?: boolean;
  /** The terminal's size (a tty); default 80×24. */
  cols?: number;
  rows?: number;
  /** Keep the command's stdin open for `write()`; default false (it reads EOF at once). */
  stdin?: boolean;
  /** Seconds until the command is killed (exit code 124); default none. */
  timeout?: number;
  /** Called with each piece of stdout as it arrives (UTF-8). */
  onStdout?: (data: string) => void;
  /** Called with each piece of stderr as it arrives (UTF-8). */
  onStderr?: (data: string) => void;
}

export type ExecEvent =
  | { type: 'stdout'; data: string }
  | { type: 'stderr'; data: string }
  | { type: 'exit'; exitCode: number; timedOut: boolean };

export interface ExecStreamResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  timed_out: boolean;
}

type WebSocketWithHeaders = new (
  url: string,
  init: { headers: Record<string, string>; protocols?: string[] },
) => WebSocket;

/**
 * A running command. Its events are buffered until read, so `for await` started late misses
 * nothing; `wait()` resolves with everything once the command exits.
 */
export class ExecStream implements AsyncIterable<ExecEvent> {
  readonly #ws: WebSocket;
  readonly #opts: ExecStreamOptions;
  readonly #events: ExecEvent[] = [];
  #wake: (() => void) | undefined;
  #stdout = '';
  #stderr = '';
  #failure: Error | undefined;
  #ended = false;
  readonly #done: Promise<ExecStreamResult>;
  readonly #out = new TextDecoder();
  readonly #err = new TextDecoder();

  /** Opens the stream: resolves once the command runs, rejects with the API's error otherwise. */
  static async open(t: Transport, path: string, command: string, o: ExecStreamOptions): Promise<ExecStream> {
    const query = {
      command,
      ...(o.tty && { tty: 'true' }),
      ...(o.stdin && { stdin: 'true' }),
      ...(o.cols !== undefined && { cols: o.cols }),
      ...(o.rows !== undefined && { rows: o.rows }),
      ...(o.timeout !== undefined && { timeout: o.timeout }),
    };
    const url = t.url(path, query).replace(/^http/, 'ws');
    const WS = globalThis.WebSocket as unknown as WebSocketWithHeaders;
    const headers: Record<string, string> =
      t.apiKey === undefined ? {} : { authorization: `Bearer ${t.apiKey}` };
    const ws = new WS(url, { headers, protocols: [PROTOCOL] });
    ws.binaryType = 'arraybuffer';
    const stream = new ExecStream(ws, o);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener(
        'error',
        // A refused upgrade shows no status to a WebSocket: the same request without the upgrade
        // answers the API's error (or 426 when nothing but the upgrade itself failed).
        () =>
          void t.call('GET', path, { query }).then(
            () => reject(new SandbayConnectionError('exec stream: the WebSocket did not open')),
            (err: unknown) =>
              reject(
                err instanceof SandbayError && err.code === 'upgrade_required'
                  ? new SandbayConnectionError(
                      'exec stream: the WebSocket upgrade was refused (too many connections?)',
                    )
                  : err,
              ),
          ),
        { once: true },
      );
    });
    return stream;
  }

  private constructor(ws: WebSocket, o: ExecStreamOptions) {
    this.#ws = ws;
    this.#opts = o;
    let resolve!: (r: ExecStreamResult) => void;
    let reject!: (e: Error) => void;
    this.#done = new Promise((res, rej) => ((resolve = res), (reject = rej)));
    this.#done.catch(() => undefined);
    let exit: { exitCode: number; timedOut: boolean } | undefined;
    ws.addEventListener('message', (e) => {
      const bytes = new Uint8Array(e.data as ArrayBuffer);
      const body = bytes.subarray(1);
      if (bytes[0] === STDOUT) this.#output('stdout', this.#out.decode(body, { stream: true }));
      else if (bytes[0] === STDERR) this.#output('stderr', this.#err.decode(body, { stream: true }));
      else if (bytes[0] === STATUS) exit = exitOf(JSON.parse(new TextDecoder().decode(body)) as Status);
    });
    ws.addEventListener('close', (e) => {
      this.#output('stdout', this.#out.decode());
      this.#output('stderr', this.#err.decode());
      if (exit && exit.exitCode >= 0) {
        this.#push({ type: 'exit', ...exit });
        resolve({
          stdout: this.#stdout,
          stderr: this.#stderr,
          exit_code: exit.exitCode,
          timed_out: exit.timedOut,
        });
      } else {
        this.#failure = new SandbayConnectionError(
          `exec stream closed before the command's end was seen (${e.code}${e.reason ? `: ${e.reason}` : ''})`,
        );
        reject(this.#failure);
      }
      this.#ended = true;
      this.#wake?.();
    });
  }

  #output(type: 'stdout' | 'stderr', data: string): void {
    if (!data) return;
    if (type === 'stdout') {
      this.#stdout += data;
      this.#opts.onStdout?.(data);
    } else {
      this.#stderr += data;
      this.#opts.onStderr?.(data);
    }
    this.#push({ type, data });
  }

  #push(event: ExecEvent): void {
    this.#events.push(event);
    this.#wake?.();
  }

  /** Sends bytes (a string as UTF-8) to the command's stdin (opened with `stdin: true`). */
  write(data: string | Uint8Array): void {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const msg = new Uint8Array(bytes.length + 1);
    msg[0] = STDIN;
    msg.set(bytes, 1);
    this.#ws.send(msg);
  }

  /** Closes the command's stdin (it reads EOF). */
  closeStdin(): void {
    this.#ws.send(new Uint8Array([CLOSE, STDIN]));
  }

  /** New terminal size (a tty). */
  resize(cols: number, rows: number): void {
    const body = new TextEncoder().encode(JSON.stringify({ Width: cols, Height: rows }));
    const msg = new Uint8Array(body.length + 1);
    msg[0] = RESIZE;
    msg.set(body, 1);
    this.#ws.send(msg);
  }

  /** Hangs the command up (SIGHUP to its process group, as when a terminal closes). */
  kill(): void {
    this.#ws.close(1000, 'hung up by the client');
  }

  /** Resolves once the command exits, with all its output and its exit code. */
  wait(): Promise<ExecStreamResult> {
    return this.#done;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ExecEvent> {
    for (;;) {
      const next = this.#events.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#ended) {
        if (this.#failure) throw this.#failure;
        return;
      }
      await new Promise<void>((r) => (this.#wake = r));
      this.#wake = undefined;
    }
  }
}

interface Status {
  status: 'Success' | 'Failure';
  reason?: string;
  details?: { causes?: { reason: string; message?: string }[] };
}

/** The exit code of a status frame (kubelet's shape); -1 when it reports no command exit. */
function exitOf(s: Status): { exitCode: number; timedOut: boolean } {
  if (s.status === 'Success') return { exitCode: 0, timedOut: false };
  const causes = s.details?.causes ?? [];
  const code = causes.find((c) => c.reason === 'ExitCode')?.message;
  return {
    exitCode: code === undefined ? -1 : Number(code),
    timedOut: causes.some((c) => c.reason === 'TimedOut'),
  };
}
