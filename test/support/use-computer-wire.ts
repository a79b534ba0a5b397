// The public use.computer Python SDK (github josancamon19/use-computer-python, import
// `use_computer`) as the wire sees it, written by us from its source for the tests (its code is not
// ours to commit): every request its macOS surface sends, built as httpx 0.23 and urllib build them
// (headers, query encoding, Python's json.dumps spacing), and what it reads of each answer (its
// models' `from_dict`, its `raise_for_status`, its 501 hook and its retry rule).
import http from 'node:http';
import type { FastifyInstance } from 'fastify';

/** One HTTP request, exactly as it goes out. */
export interface WireRequest {
  method: string;
  /** Path with the query string. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface WireAnswer {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: Buffer;
}

export type Send = (request: WireRequest) => Promise<WireAnswer>;

/** `httpx.HTTPStatusError` of `raise_for_status()`. */
export class HttpStatusError extends Error {
  readonly answer: WireAnswer;
  constructor(answer: WireAnswer) {
    super(`HTTP ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
    this.answer = answer;
  }
}

/** `use_computer.PlatformNotSupportedError`: raised by its response hook on its 501 shape. */
export class PlatformNotSupportedError extends Error {
  readonly action: string;
  readonly sandboxType: string;
  readonly hint: string;
  constructor(action: string, sandboxType: string, hint: string) {
    super(`${action} not supported on ${sandboxType} sandbox: ${hint}`);
    this.action = action;
    this.sandboxType = sandboxType;
    this.hint = hint;
  }
}

// ---- its transport's retry rule (use_computer/retry.py) ----

export const RETRYABLE_STATUS_CODES = [500, 502, 503, 504, 529];
const NO_RETRY_PATTERNS = ['not found', 'connection refused'];

/** Whether its RetryTransport sends this request again (up to three times, 2 s apart). */
export function clientRetries(answer: WireAnswer): boolean {
  if (!RETRYABLE_STATUS_CODES.includes(answer.status)) return false;
  const body = answer.body.toString('utf8').slice(0, 500).toLowerCase();
  return !NO_RETRY_PATTERNS.some((p) => body.includes(p));
}

// ---- request encoding: httpx 0.23 and urllib ----

/** `json.dumps(value)` with Python's defaults: `", "` and `": "`, non-ASCII as `\uXXXX`. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const items = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${pythonString(k)}: ${pythonJson(v)}`,
    );
    return `{${items.join(', ')}}`;
  }
  if (typeof value === 'string') return pythonString(value);
  return JSON.stringify(value);
}

function pythonString(s: string): string {
  return JSON.stringify(s).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** httpx's query values: booleans lower-case (`show_cursor=false`), numbers as Python prints them. */
function queryOf(params: Record<string, string | number | boolean> | undefined): string {
  if (!params) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) q.set(k, String(v));
  return `?${q.toString()}`;
}

const HTTPX_HEADERS = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  connection: 'keep-alive',
  'user-agent': 'python-httpx/0.23.3',
};

interface Call {
  params?: Record<string, string | number | boolean>;
  json?: unknown;
  content?: Buffer;
  headers?: Record<string, string>;
}

// ---- what it reads (use_computer/models.py) ----

export interface ExecResult {
  return_code: number;
  stdout: string;
}
export interface RecordingInfo {
  id: string;
  status: string;
  name: string | null;
  filename: string;
  file_size: number;
}
export interface DisplayInfo {
  width: number;
  height: number;
  scale: number;
  platform: string;
}
export interface AccessibilityTree {
  available: boolean;
  tree: unknown;
  error: string;
}
export interface ActResult {
  screenshot?: Buffer;
  data?: Record<string, unknown>;
}
/** What `create()` gives a MacOSSandbox (its URLs prefixed with the base URL, as it does). */
export interface MacOSSandboxFields {
  sandbox_id: string;
  vnc_url: string;
  ssh_url: string;
  vm_ip: string;
  host: string;
}

type Json = Record<string, unknown>;
const get = <T>(d: Json, k: string, dflt: T): T => (d[k] === undefined ? dflt : (d[k] as T));

/**
 * The SDK's calls of a macOS sandbox, one method per SDK method, each sending what the SDK sends
 * and answering what it reads.
 */
export class UseComputerWire {
  readonly #send: Send;
  readonly #key: string;
  readonly #base: string;

  /** `base` is USE_COMPUTER_BASE_URL (the SDK prefixes vnc_url and ssh_url with it). */
  constructor(send: Send, key: string, base = 'http://sandbay.test') {
    this.#send = send;
    this.#key = key;
    this.#base = base;
  }

  /** One httpx request with the client's headers; the 501 hook applies, as on every answer. */
  async request(method: string, path: string, call: Call = {}): Promise<WireAnswer> {
    const headers: Record<string, string> = { ...HTTPX_HEADERS, authorization: `Bearer ${this.#key}` };
    let body: Buffer | undefined;
    if (call.json !== undefined) {
      body = Buffer.from(pythonJson(call.json), 'utf8');
      headers['content-type'] = 'application/json';
    } else if (call.content !== undefined) {
      body = call.content;
    }
    if (body !== undefined || ['POST', 'PUT', 'PATCH'].includes(method))
      headers['content-length'] = String(body?.length ?? 0);
    Object.assign(headers, call.headers);
    const answer = await this.#send({
      method,
      path: path + queryOf(call.params),
      headers,
      ...(body && { body }),
    });
    raiseIfUnsupported(answer);
    return answer;
  }

  async #ok(method: string, path: string, call: Call = {}): Promise<WireAnswer> {
    const answer = await this.request(method, path, call);
    if (answer.status >= 400) throw new HttpStatusError(answer);
    return answer;
  }

  async #json<T = Json>(method: string, path: string, call: Call = {}): Promise<T> {
    return JSON.parse((await this.#ok(method, path, call)).body.toString('utf8')) as T;
  }

  // ---- Computer ----

  /** `Computer().create(type=…, host=…)`: 180 s timeout on the real client. */
  async create(o: { type?: string; host?: string } = {}, extra: Json = {}): Promise<MacOSSandboxFields> {
    const body: Json = { type: o.type ?? 'macos', ...(o.host && { host: o.host }), ...extra };
    const data = await this.#json('POST', '/v1/sandboxes', { json: body });
    return {
      sandbox_id: data.sandbox_id as string,
      vnc_url: `${this.#base}${get(data, 'vnc_url', '')}`,
      ssh_url: `${this.#base}${get(data, 'ssh_url', '')}`,
      vm_ip: get(data, 'vm_ip', ''),
      host: get(data, 'host', ''),
    };
  }

  /** `Computer().get(id)`: the sandbox type it reads decides the class (`macos` when absent). */
  async getType(id: string): Promise<string> {
    return get(await this.#json('GET', `/v1/sandboxes/${id}`), 'type', 'macos');
  }

  /** `sandbox.close()`: DELETE, status not checked. */
  async close(id: string): Promise<WireAnswer> {
    return this.request('DELETE', `/v1/sandboxes/${id}`);
  }

  // ---- MacOSSandbox ----

  async execSsh(id: string, command: string): Promise<ExecResult> {
    return execResult(await this.#json('POST', `/v1/sandboxes/${id}/exec`, { json: { command } }));
  }

  async execAx(id: string, command: string): Promise<ExecResult> {
    return execResult(await this.#json('POST', `/v1/sandboxes/${id}/exec_ax`, { json: { command } }));
  }

  async uploadBytes(id: string, data: Buffer, remotePath: string): Promise<void> {
    await this.#ok('PUT', `/v1/sandboxes/${id}/files`, {
      params: { path: remotePath },
      content: data,
      headers: { 'content-type': 'application/octet-stream' },
    });
  }

  async downloadFile(id: string, remotePath: string): Promise<Buffer> {
    return (await this.#ok('GET', `/v1/sandboxes/${id}/files`, { params: { path: remotePath } })).body;
  }

  /** `upload_dir`: a tar.gz to /tmp, then `mkdir -p && tar xzf && rm` through exec. */
  async uploadDir(id: string, tarGz: Buffer, remoteDir: string): Promise<ExecResult> {
    const tmp = `/tmp/_use_computer_upload_${id.slice(-8)}.tar.gz`;
    await this.uploadBytes(id, tarGz, tmp);
    return this.execSsh(id, `mkdir -p "${remoteDir}" && tar xzf ${tmp} -C "${remoteDir}" && rm -f ${tmp}`);
  }

  /** `download_dir`: `find DIR -type f` through exec, then each file; relative path → bytes. */
  async downloadDir(id: string, remoteDir: string): Promise<Map<string, Buffer>> {
    const listed = await this.execSsh(id, `find "${remoteDir}" -type f`);
    const out = new Map<string, Buffer>();
    for (const raw of listed.stdout.trim().split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      out.set(line.slice(remoteDir.length).replace(/^\/+/, ''), await this.downloadFile(id, line));
    }
    return out;
  }

  async act(id: string, action: Json, screenshotAfter = true, delayMs = 100): Promise<ActResult> {
    const answer = await this.#ok('POST', `/v1/sandboxes/${id}/act`, {
      json: { action, screenshot_after: screenshotAfter, screenshot_delay_ms: delayMs },
    });
    if (screenshotAfter && (answer.headers['content-type'] ?? '').startsWith('image/'))
      return { screenshot: answer.body };
    return { data: JSON.parse(answer.body.toString('utf8')) as Json };
  }

  /** `start_keepalive()`'s thread: urllib POST, no body, no content type (errors ignored). */
  async keepalive(id: string): Promise<WireAnswer> {
    return this.#send({
      method: 'POST',
      path: `/v1/sandboxes/${id}/keepalive`,
      headers: {
        'accept-encoding': 'identity',
        'content-length': '0',
        'user-agent': 'Python-urllib/3.11',
        authorization: `Bearer ${this.#key}`,
        connection: 'close',
      },
    });
  }

  // ---- screenshot ----

  async takeFullScreen(id: string, showCursor = false): Promise<Buffer> {
    return (await this.#ok('GET', `/v1/sandboxes/${id}/screenshot`, { params: { show_cursor: showCursor } }))
      .body;
  }

  async takeRegion(id: string, x: number, y: number, width: number, height: number): Promise<Buffer> {
    return (
      await this.#ok('GET', `/v1/sandboxes/${id}/screenshot/region`, { params: { x, y, width, height } })
    ).body;
  }

  async takeCompressed(id: string, format = 'jpeg', quality = 80, scale?: number): Promise<WireAnswer> {
    return this.#ok('GET', `/v1/sandboxes/${id}/screenshot/compressed`, {
      params: { format, quality, ...(scale !== undefined && { scale }) },
    });
  }

  // ---- mouse and keyboard: an ActionResult reads `status` (default "ok") ----

  async mouse(id: string, what: 'click' | 'move' | 'drag' | 'scroll', body: Json): Promise<string> {
    return get(await this.#json('POST', `/v1/sandboxes/${id}/mouse/${what}`, { json: body }), 'status', 'ok');
  }

  async getPosition(id: string): Promise<{ x: number; y: number }> {
    const d = await this.#json('GET', `/v1/sandboxes/${id}/mouse/position`);
    return { x: get(d, 'x', 0), y: get(d, 'y', 0) };
  }

  async keyboard(id: string, what: 'type' | 'press' | 'hotkey', body: Json): Promise<string> {
    return get(
      await this.#json('POST', `/v1/sandboxes/${id}/keyboard/${what}`, { json: body }),
      'status',
      'ok',
    );
  }

  // ---- recording ----

  async recordingStart(id: string, name?: string): Promise<RecordingInfo> {
    return recordingInfo(
      await this.#json('POST', `/v1/sandboxes/${id}/recording/start`, { json: name ? { name } : {} }),
    );
  }

  async recordingStop(id: string, recordingId: string): Promise<RecordingInfo> {
    return recordingInfo(
      await this.#json('POST', `/v1/sandboxes/${id}/recording/stop`, { json: { id: recordingId } }),
    );
  }

  async recordingList(id: string): Promise<RecordingInfo[]> {
    return (await this.#json<Json[]>('GET', `/v1/sandboxes/${id}/recordings`)).map(recordingInfo);
  }

  async recordingGet(id: string, recordingId: string): Promise<RecordingInfo> {
    return recordingInfo(await this.#json('GET', `/v1/sandboxes/${id}/recordings/${recordingId}`));
  }

  async recordingDownload(id: string, recordingId: string): Promise<Buffer> {
    return (await this.#ok('GET', `/v1/sandboxes/${id}/recordings/${recordingId}/download`)).body;
  }

  async recordingDelete(id: string, recordingId: string): Promise<void> {
    await this.#ok('DELETE', `/v1/sandboxes/${id}/recordings/${recordingId}`);
  }

  // ---- display and accessibility ----

  async displayInfo(id: string): Promise<DisplayInfo> {
    const d = await this.#json('GET', `/v1/sandboxes/${id}/display/info`);
    return {
      width: get(d, 'width', 0),
      height: get(d, 'height', 0),
      scale: get(d, 'scale', 1),
      platform: get(d, 'platform', ''),
    };
  }

  /** `display.get_windows()`: typed `list[dict]`, answered as parsed. */
  async getWindows(id: string): Promise<unknown> {
    return this.#json<unknown>('GET', `/v1/sandboxes/${id}/display/windows`);
  }

  /** `accessibility.get_tree()` (best_effort=True): a 4xx/5xx is "not available", with the body. */
  async getTree(id: string): Promise<AccessibilityTree> {
    const answer = await this.request('GET', `/v1/sandboxes/${id}/display/windows`, {
      params: { best_effort: '1' },
    });
    if (answer.status >= 400) return { available: false, tree: null, error: answer.body.toString('utf8') };
    const data = JSON.parse(answer.body.toString('utf8')) as unknown;
    if (data !== null && typeof data === 'object' && !Array.isArray(data) && 'available' in data) {
      const d = data as Json;
      return { available: Boolean(d.available), tree: d.tree, error: get(d, 'error', '') };
    }
    return { available: true, tree: data, error: '' };
  }
}

function execResult(d: Json): ExecResult {
  return { return_code: get(d, 'return_code', 0), stdout: get(d, 'stdout', '') };
}

function recordingInfo(d: Json): RecordingInfo {
  return {
    id: (d.id as string) || get(d, 'recording_id', ''),
    status: get(d, 'status', ''),
    name: get<string | null>(d, 'name', null),
    filename: get(d, 'filename', ''),
    file_size: get(d, 'file_size', 0),
  };
}

/** Its response hook: a 501 whose `error` is exactly the gateway's iOS sentence raises. */
function raiseIfUnsupported(answer: WireAnswer): void {
  if (answer.status !== 501) return;
  let data: unknown;
  try {
    data = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return;
  }
  const d = data as Json;
  if (data === null || typeof data !== 'object' || d.error !== 'not supported on iOS sandbox') return;
  throw new PlatformNotSupportedError(get(d, 'action', ''), get(d, 'sandbox_type', ''), get(d, 'hint', ''));
}

// ---- transports: a real listener (node:http, headers exactly as given), or Fastify's inject ----

/** Sends over a real connection to `base` (`http://127.0.0.1:<port>`). */
export function httpSend(base: string): Send {
  const agent = new http.Agent({ keepAlive: true });
  const { hostname, port } = new URL(base);
  return (request) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { agent, hostname, port, method: request.method, path: request.path, headers: request.headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: flat(res.headers), body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(request.body);
    });
}

/** Sends through `app.inject` (the sim stack's app). */
export function injectSend(app: FastifyInstance): Send {
  return async (request) => {
    const res = await app.inject({
      method: request.method as 'GET',
      url: request.path,
      headers: request.headers,
      ...(request.body && { payload: request.body }),
    });
    return { status: res.statusCode, headers: flat(res.headers), body: res.rawPayload };
  };
}

function flat(headers: http.IncomingHttpHeaders | Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = String(v);
  return out;
}
