// A sandbox handle: the spec's per-sandbox surface (`sandbox.mouse.click`, `sandbox.exec`, …) over
// one Transport. `await using sb = await client.create()` deletes an ephemeral sandbox at scope exit.
import { ClipboardGroup } from './clipboard.ts';
import { Accessibility, Display, Keyboard, Mouse, Recordings, Screenshot } from './controls.ts';
import { ExecStream, type ExecStreamOptions, type ExecStreamResult } from './exec-stream.ts';
import { SandbayError } from './errors.ts';
import { newIdempotencyKey, type Transport } from './http.ts';
import {
  fileSize,
  fileStream,
  packDirectory,
  readLocalFile,
  unpackInto,
  writeLocalFile,
} from './local-fs.ts';
import { execOverSsh } from './ssh.ts';
import type {
  Action,
  AnthropicComputerAction,
  AnthropicComputerResult,
  OpenAIComputerAction,
  OpenAIComputerResult,
  ActResult,
  ExecResult,
  EgressPolicy,
  ForkResult,
  GradeResult,
  Grader,
  Keepalive,
  AttemptFinished,
  AttemptFinishRequest,
  Network,
  SandboxInfo,
  SetupResult,
  SetupStep,
  Snapshot,
  SshCredentials,
  ViewerToken,
} from './types.ts';

/** The spec's default for exec, exec_ssh and exec_ax, in seconds. */
export const DEFAULT_EXEC_TIMEOUT_S = 120;
/** The idle reaper acts after about 2 minutes: a heartbeat every 30 s keeps well inside that. */
export const DEFAULT_KEEPALIVE_MS = 30_000;
/** Files larger than this are streamed (and then not retried); smaller ones are sent as bytes. */
const STREAM_UPLOAD_ABOVE = 64 << 20;
/** A snapshot may take 25 minutes (spec: capture deadline). */
const SNAPSHOT_TIMEOUT_MS = 26 * 60_000;
/** A fork waits up to 10 minutes for its sandboxes to run (the create deadline). */
const FORK_TIMEOUT_MS = 11 * 60_000;
/** A pause or resume answers within a minute. */
const PAUSE_TIMEOUT_MS = 70_000;
/** The API's default deadline of a setup or a grading, in seconds. */
const DEFAULT_EVALUATION_TIMEOUT_S = 600;

/** Options of a setup or a grading: its deadline (seconds), and the Idempotency-Key retries use. */
export interface EvaluationOptions {
  timeoutS?: number;
  idempotencyKey?: string;
}

export interface ViewerLink extends ViewerToken {
  /** The browser page that shows the sandbox live (`/view/<id>?token=…`). */
  url: string;
  /** The VNC WebSocket, absolute (`ws(s)://…/vnc?token=…`). */
  websocket_url: string;
}

export class Sandbox implements AsyncDisposable {
  readonly id: string;
  /** Whether the idle reaper may take it (and so whether dispose deletes it). */
  readonly ephemeral: boolean;
  readonly mouse: Mouse;
  readonly keyboard: Keyboard;
  readonly screenshot: Screenshot;
  readonly display: Display;
  readonly accessibility: Accessibility;
  readonly recording: Recordings;
  readonly clipboard: ClipboardGroup;
  readonly #t: Transport;
  readonly #base: string;
  #keepalive: ReturnType<typeof setInterval> | undefined;

  constructor(t: Transport, id: string, ephemeral: boolean) {
    this.#t = t;
    this.id = id;
    this.ephemeral = ephemeral;
    this.#base = `/v1/sandboxes/${encodeURIComponent(id)}`;
    this.mouse = new Mouse(t, this.#base);
    this.keyboard = new Keyboard(t, this.#base);
    this.screenshot = new Screenshot(t, this.#base);
    this.display = new Display(t, this.#base);
    this.accessibility = new Accessibility(t, this.#base);
    this.recording = new Recordings(t, this.#base);
    this.clipboard = new ClipboardGroup(t, this.#base);
  }

  /** The sandbox's current info (state, last activity, a fresh viewer link). */
  info(): Promise<SandboxInfo> {
    return this.#t.json('GET', this.#base);
  }

  // ---- shell ----

  /** A shell command over the VM's SSH; a non-zero exit is a result, not an error. */
  exec(command: string, o: { timeout?: number } = {}): Promise<ExecResult> {
    return this.#exec(command, o.timeout ?? DEFAULT_EXEC_TIMEOUT_S, false);
  }

  /** A command under the in-VM control agent's session (what accessibility APIs need). */
  execAx(command: string, o: { timeout?: number } = {}): Promise<ExecResult> {
    return this.#exec(command, o.timeout ?? DEFAULT_EXEC_TIMEOUT_S, true);
  }

  /**
   * Starts a command whose output streams as it is written (`onStdout`/`onStderr`, or `for await`
   * over the handle), with stdin, a pty and resize: resolves with the handle once it runs, which
   * `wait()`s for the exit code. Not awaiting `wait()` leaves it running in the background until it
   * exits or `kill()` hangs it up.
   */
  execStream(command: string, o: ExecStreamOptions = {}): Promise<ExecStream> {
    return ExecStream.open(this.#t, `${this.#base}/exec/stream`, command, o);
  }

  /** `execStream` run to its end: the callbacks see the output as it comes; resolves with all of it. */
  async execStreamed(command: string, o: ExecStreamOptions = {}): Promise<ExecStreamResult> {
    return (await this.execStream(command, o)).wait();
  }

  /**
   * The URL of a port of the sandbox (HTTP and WebSocket to 127.0.0.1:`port` inside it), carrying a
   * fresh viewer token: opens in a browser as is (E2B's `getHost`). `path` is appended.
   */
  async portUrl(port: number, o: { path?: string } = {}): Promise<string> {
    const token = await this.#t.json<ViewerToken>('POST', `${this.#base}/viewer-token`);
    const path = (o.path ?? '/').replace(/^\/?/, '/');
    return `${this.#t.baseUrl}${this.#base}/ports/${port}${path}${path.includes('?') ? '&' : '?'}sandbay_token=${encodeURIComponent(token.token)}`;
  }

  /** A command through a real SSH session over the SSH WebSocket (needs the `ssh2` package). */
  async execSsh(command: string, o: { timeout?: number } = {}): Promise<ExecResult> {
    const apiKey = this.#t.apiKey;
    if (apiKey === undefined)
      throw new Error('sandbay: execSsh needs an API key (Node), not a browser session');
    const creds = await this.sshCredentials();
    const ws = this.#t.url(creds.ssh_url).replace(/^http/, 'ws');
    return execOverSsh(ws, apiKey, creds, command, o.timeout ?? DEFAULT_EXEC_TIMEOUT_S);
  }

  #exec(command: string, timeout: number, ax: boolean): Promise<ExecResult> {
    return this.#t.json('POST', `${this.#base}/exec`, {
      json: { command, timeout, ...(ax && { ax }) },
      timeoutMs: timeout * 1000 + 30_000,
    });
  }

  /**
   * One action, then (by default) a screenshot: resolves with PNG bytes, or with
   * `{ok, action}` when `screenshotAfter` is false.
   */
  act(action: Action, o?: { screenshotAfter?: true; screenshotDelayMs?: number }): Promise<Uint8Array>;
  act(action: Action, o: { screenshotAfter: false }): Promise<ActResult>;
  act(
    action: Action,
    o?: { screenshotAfter?: boolean; screenshotDelayMs?: number },
  ): Promise<Uint8Array | ActResult>;
  async act(
    action: Action,
    o: { screenshotAfter?: boolean; screenshotDelayMs?: number } = {},
  ): Promise<Uint8Array | ActResult> {
    const res = await this.#t.call('POST', `${this.#base}/act`, {
      json: {
        action,
        ...(o.screenshotAfter !== undefined && { screenshot_after: o.screenshotAfter }),
        ...(o.screenshotDelayMs !== undefined && { screenshot_delay_ms: o.screenshotDelayMs }),
      },
    });
    if (res.headers.get('content-type')?.startsWith('application/json'))
      return (await res.json()) as ActResult;
    return new Uint8Array(await res.arrayBuffer());
  }

  /** Anthropic's computer tool input, unchanged; resolves with the content of its tool_result. */
  actAnthropic(input: AnthropicComputerAction): Promise<AnthropicComputerResult> {
    return this.#t.json<AnthropicComputerResult>('POST', `${this.#base}/act`, { json: input });
  }

  /** OpenAI's computer_call action, unchanged; resolves with the output of its computer_call_output. */
  actOpenAI(action: OpenAIComputerAction): Promise<OpenAIComputerResult> {
    return this.#t.json<OpenAIComputerResult>('POST', `${this.#base}/act`, { json: action });
  }

  // ---- files ----

  /** Uploads a local file to `remote` (parent directories are created). */
  async upload(localPath: string, remote: string): Promise<void> {
    const body =
      (await fileSize(localPath)) > STREAM_UPLOAD_ABOVE
        ? await fileStream(localPath)
        : await readLocalFile(localPath);
    await this.#t.none('PUT', `${this.#base}/files`, { query: { path: remote }, body });
  }

  /** Writes bytes (or a string, as UTF-8) to `remote`. */
  uploadBytes(data: Uint8Array | string, remote: string): Promise<void> {
    const body = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    return this.#t.none('PUT', `${this.#base}/files`, { query: { path: remote }, body });
  }

  /** A file's bytes. */
  downloadBytes(remote: string): Promise<Uint8Array> {
    return this.#t.bytes('GET', `${this.#base}/files`, { query: { path: remote } });
  }

  /** Saves a file of the sandbox to a local path. */
  async downloadFile(remote: string, localPath: string): Promise<void> {
    const res = await this.#t.call('GET', `${this.#base}/files`, { query: { path: remote } });
    await writeLocalFile(localPath, res.body!);
  }

  /** Uploads a tar archive (bytes or a stream), unpacked into the directory `remote`. */
  uploadTar(tar: Uint8Array | ReadableStream<Uint8Array>, remote: string): Promise<void> {
    return this.#t.none('PUT', `${this.#base}/files/archive`, {
      query: { path: remote },
      body: tar,
      contentType: 'application/x-tar',
    });
  }

  /** The directory `remote` as a tar stream. */
  async downloadTar(remote: string): Promise<ReadableStream<Uint8Array>> {
    return (await this.#t.call('GET', `${this.#base}/files/archive`, { query: { path: remote } })).body!;
  }

  /** Uploads a local directory (streamed as a tar archive) into `remote`. */
  async uploadDir(localDir: string, remote: string): Promise<void> {
    await this.uploadTar(await packDirectory(localDir), remote);
  }

  /** Downloads the directory `remote` (streamed as a tar archive) into `localDir`; returns the files written. */
  async downloadDir(remote: string, localDir: string): Promise<string[]> {
    return unpackInto(await this.downloadTar(remote), localDir);
  }

  // ---- access ----

  /** A fresh viewer link (valid at most an hour): the live-view page and its VNC WebSocket. */
  async viewerLink(): Promise<ViewerLink> {
    const token = await this.#t.json<ViewerToken>('POST', `${this.#base}/viewer-token`);
    const q = `token=${encodeURIComponent(token.token)}`;
    return {
      ...token,
      url: `${this.#t.baseUrl}/view/${encodeURIComponent(this.id)}?${q}`,
      websocket_url: this.#t.url(token.vnc_url).replace(/^http/, 'ws'),
    };
  }

  /**
   * Revokes every viewer link of this sandbox minted so far: they answer 401 from now on and live
   * views opened with one close (4003) within a second. The next `viewerLink()` mints a new one.
   */
  async revokeViewerLinks(): Promise<void> {
    await this.#t.none('DELETE', `${this.#base}/viewer-token`);
  }

  /** The VM's SSH login, for an SSH client using the SSH WebSocket (`ssh_url`) as its transport. */
  sshCredentials(): Promise<SshCredentials> {
    return this.#t.json('GET', `${this.#base}/ssh/credentials`);
  }

  // ---- network ----

  /** The egress policy in force, and the modes the sandbox's Mac enforces. */
  network(): Promise<Network> {
    return this.#t.json('GET', `${this.#base}/network`);
  }

  /**
   * Changes the egress policy of the running sandbox; resolves once it is in force
   * (`{mode: 'allow', allow: ['example.com', '203.0.113.0/24']}`, `{mode: 'none'}`, `{mode: 'all'}`).
   */
  setEgress(egress: EgressPolicy): Promise<Network> {
    return this.#t.json('PATCH', `${this.#base}/network`, { json: { egress }, timeoutMs: 90_000 });
  }

  // ---- snapshots ----

  /** Captures the disk as a snapshot (idempotent: retried with one Idempotency-Key). */
  snapshot(name: string, o: { idempotencyKey?: string } = {}): Promise<Snapshot> {
    return this.#t.json('POST', `${this.#base}/snapshots`, {
      json: { name },
      idempotencyKey: o.idempotencyKey ?? newIdempotencyKey(),
      timeoutMs: SNAPSHOT_TIMEOUT_MS,
    });
  }

  /** This sandbox's snapshots, oldest first. */
  snapshots(): Promise<Snapshot[]> {
    return this.#t.json('GET', `${this.#base}/snapshots`);
  }

  // ---- fork, pause ----

  /**
   * `count` new sandboxes started from a copy of this one's disk, all running (all fit, or none is
   * made). Retried safely with one Idempotency-Key. The answer's `sandboxes` hold their create
   * responses; `forks` the handles.
   */
  async fork(count = 1, o: { idempotencyKey?: string } = {}): Promise<ForkResult & { forks: Sandbox[] }> {
    const result = await this.#t.json<ForkResult>('POST', `${this.#base}/fork`, {
      json: { count },
      idempotencyKey: o.idempotencyKey ?? newIdempotencyKey(),
      timeoutMs: FORK_TIMEOUT_MS,
    });
    return { ...result, forks: result.sandboxes.map((s) => new Sandbox(this.#t, s.sandbox_id, s.ephemeral)) };
  }

  /** Freezes the sandbox where it is (memory kept, no CPU used); every other call answers 409 until resume(). */
  pause(): Promise<SandboxInfo> {
    return this.#t.json('POST', `${this.#base}/pause`, {
      idempotencyKey: newIdempotencyKey(),
      timeoutMs: PAUSE_TIMEOUT_MS,
    });
  }

  /** Lets a paused sandbox run on from where it was. */
  resume(): Promise<SandboxInfo> {
    return this.#t.json('POST', `${this.#base}/resume`, {
      idempotencyKey: newIdempotencyKey(),
      timeoutMs: PAUSE_TIMEOUT_MS,
    });
  }

  // ---- setup and grading (docs/evaluation.md) ----

  /**
   * Runs setup steps in order. A failed step is a result (`status: 'failed'`, `failed_step`,
   * `message`), not an error; a step of an unknown kind is a SandbayError 400 `invalid_setup_step`.
   */
  setup(steps: SetupStep[], o: EvaluationOptions = {}): Promise<SetupResult> {
    return this.#evaluate('setup', { steps }, o);
  }

  /** Runs a task's setup (its setup script, then its steps). */
  setupTask(taskId: string, o: EvaluationOptions = {}): Promise<SetupResult> {
    return this.#evaluate('setup', { task_id: taskId }, o);
  }

  /** Grades the sandbox: `{combine?, checks}` (or a shell script) → a reward in [0, 1] with each check. */
  grade(grader: Grader, o: EvaluationOptions = {}): Promise<GradeResult> {
    return this.#evaluate('grade', { grader }, o);
  }

  /** Grades the sandbox with a task's grader. */
  gradeTask(taskId: string, o: EvaluationOptions = {}): Promise<GradeResult> {
    return this.#evaluate('grade', { task_id: taskId }, o);
  }

  #evaluate<T>(what: 'setup' | 'grade', body: Record<string, unknown>, o: EvaluationOptions): Promise<T> {
    return this.#t.json('POST', `${this.#base}/${what}`, {
      json: { ...body, ...(o.timeoutS !== undefined && { timeout_s: o.timeoutS }) },
      // Retried safely under one key: a retry replays the answer instead of running steps twice.
      idempotencyKey: o.idempotencyKey ?? newIdempotencyKey(),
      timeoutMs: ((o.timeoutS ?? DEFAULT_EVALUATION_TIMEOUT_S) + 90) * 1000,
    });
  }

  /**
   * An evaluation attempt's agent says it has finished (`outcome: 'done'`, the default) or gave up:
   * the attempt is graded now (docs/evaluation.md, "Evaluation runs"; the attempt's agent key).
   */
  done(body: AttemptFinishRequest = {}): Promise<AttemptFinished> {
    return this.#t.json('POST', `${this.#base}/done`, { json: body });
  }

  // ---- lifetime ----

  /** One heartbeat: counts as activity for the idle reaper. */
  keepalive(): Promise<Keepalive> {
    return this.#t.json('POST', `${this.#base}/keepalive`);
  }

  /**
   * Sends a heartbeat every `intervalMs` until stopKeepalive() or delete(). A failed heartbeat is
   * reported to `onError` (default: ignored; the next one tries again).
   */
  startKeepalive(o: { intervalMs?: number; onError?: (err: unknown) => void } = {}): void {
    this.stopKeepalive();
    const beat = () => void this.keepalive().catch((err: unknown) => o.onError?.(err));
    this.#keepalive = setInterval(beat, o.intervalMs ?? DEFAULT_KEEPALIVE_MS);
    // Node: the timer alone does not keep the process alive (Deno and browsers return a number).
    (this.#keepalive as { unref?: () => void }).unref?.();
  }

  stopKeepalive(): void {
    if (this.#keepalive !== undefined) clearInterval(this.#keepalive);
    this.#keepalive = undefined;
  }

  /** Destroys the sandbox (its VM is discarded). */
  async delete(): Promise<void> {
    this.stopKeepalive();
    await this.#t.none('DELETE', this.#base);
  }

  /** `await using`: deletes an ephemeral sandbox (one already gone is fine); keeps a non-ephemeral one. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.stopKeepalive();
    if (!this.ephemeral) return;
    try {
      await this.delete();
    } catch (err) {
      if (!(err instanceof SandbayError && err.status === 404)) throw err;
    }
  }
}
