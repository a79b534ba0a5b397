// Cua's computer SDK (github trycua/cua, libs/python/computer: `computer.interface.generic`
// GenericComputerInterface) as the wire sees it, written by us from its source for the tests (its
// code is not ours to commit). With `api_base_url=<base>` and `api_headers` (how a Cua user points
// the SDK at a computer-server behind an authenticated proxy) it sends every command first as
// `POST <base>/cmd` (aiohttp, `json=` body: Python's json.dumps) and reads the answer only when the
// body is `data: <json>`; anything else is "Server returned malformed response", and the command is
// sent again over the WebSocket `<base>/ws` (python `websockets`, the same headers on the upgrade, no
// compression, 10 MiB messages), one text message `{"command", "params"}` and the next message read
// as its answer. Each interface method is here with what it sends and what it reads or raises.
import http from 'node:http';
import { WebSocket } from 'ws';
import { pythonJson } from './use-computer-wire.ts';

export type CuaAnswer = { success?: boolean; error?: string; code?: string } & Record<string, unknown>;

/** The SDK's RuntimeError (and its other raises), with the message it would carry. */
export class CuaSdkError extends Error {}

/** Cua's `Key.from_string` and `_normalize_key_for_backend` (computer/interface/models.py, generic.py). */
const KEY_MAPPING: Record<string, string> = {
  page_down: 'pagedown',
  'page down': 'pagedown',
  pagedown: 'pagedown',
  page_up: 'pageup',
  'page up': 'pageup',
  pageup: 'pageup',
  return: 'enter',
  enter: 'enter',
  escape: 'esc',
  esc: 'esc',
  delete: 'del',
  del: 'del',
  alt: 'alt',
  ctrl: 'ctrl',
  control: 'ctrl',
  shift: 'shift',
  win: 'win',
  windows: 'win',
  super: 'win',
  command: 'cmd',
  cmd: 'cmd',
  '⌘': 'cmd',
  option: 'option',
  '⌥': 'option',
};
export function sdkKey(key: string): string {
  return KEY_MAPPING[key.toLowerCase().trim()] ?? key;
}

/** What aiohttp 3.9 sends with every request of the SDK (plus Host, Content-Length). */
const AIOHTTP_HEADERS = {
  accept: '*/*',
  'accept-encoding': 'gzip, deflate',
  'user-agent': 'Python/3.12 aiohttp/3.9.5',
  'content-type': 'application/json',
  'x-cua-client-version': 'computer:0.5.19 core:0.3.1',
};
/** Cua's WEBSOCKET_MAX_SIZE and its SDK's max_size. */
const MAX_SIZE = 10 * 1024 * 1024;
/** The SDK reads and writes files over 5 MB in parts of 1 MB. */
const CHUNK_THRESHOLD = 5 * 1024 * 1024;
const CHUNK = 1024 * 1024;

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * Which way the interface methods go: `sdk` as the SDK does (REST, then the WebSocket when REST gave
 * no answer); `ws` or `cmd` alone, so that a test covers each transport with every command.
 */
export type Transport = 'sdk' | 'ws' | 'cmd';

export class CuaWire {
  readonly base: string;
  readonly headers: Record<string, string>;
  readonly transport: Transport;
  #ws: WebSocket | undefined;

  /** `api_base_url` and `api_headers` as a Cua user passes them to `Computer(...)`. */
  constructor(base: string, headers: Record<string, string>, transport: Transport = 'sdk') {
    this.base = base.replace(/\/$/, '');
    this.headers = headers;
    this.transport = transport;
  }

  // ---- transports ----

  /** `POST <base>/cmd` with a body of exactly `body`, as aiohttp sends it. */
  postRaw(body: string, headers: Record<string, string> = this.headers): Promise<RawAnswer> {
    const url = new URL(`${this.base}/cmd`);
    const data = Buffer.from(body, 'utf8');
    return new Promise((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          headers: { host: url.host, ...AIOHTTP_HEADERS, ...headers, 'content-length': String(data.length) },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (b: Buffer) => parts.push(b));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(parts).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }

  /** `_send_command_rest`: the answer of a `data: ` body, else the SDK's "malformed response". */
  async rest(command: string, params: Record<string, unknown> = {}): Promise<CuaAnswer> {
    const answer = await this.postRaw(pythonJson({ command, params }));
    const text = answer.text.trim();
    if (!text.startsWith('data: '))
      return { success: false, error: 'Server returned malformed response', message: text };
    return JSON.parse(text.slice('data: '.length)) as CuaAnswer;
  }

  /** The SDK's WebSocket, opened once (its keepalive task) and kept. */
  async socket(): Promise<WebSocket> {
    if (this.#ws?.readyState === WebSocket.OPEN) return this.#ws;
    const ws = new WebSocket(`${this.base.replace(/^http/, 'ws')}/ws`, {
      headers: { ...this.headers, 'user-agent': 'Python/3.12 websockets/15.0.1' },
      perMessageDeflate: false,
      maxPayload: MAX_SIZE,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`WebSocket refused: HTTP ${res.statusCode}`)),
      );
    });
    this.#ws = ws;
    return ws;
  }

  /** One text message out, the next message in (`_send_command_ws`, without its retries). */
  async wsSend(text: string): Promise<CuaAnswer> {
    const ws = await this.socket();
    const answer = new Promise<CuaAnswer>((resolve, reject) => {
      const onClose = (code: number) => reject(new Error(`WebSocket closed (${code})`));
      ws.once('message', (data: Buffer) => {
        ws.off('close', onClose);
        resolve(JSON.parse(data.toString('utf8')) as CuaAnswer);
      });
      ws.once('close', onClose);
    });
    ws.send(text);
    return answer;
  }

  ws(command: string, params: Record<string, unknown> = {}): Promise<CuaAnswer> {
    return this.wsSend(pythonJson({ command, params }));
  }

  /** `_send_command`: REST, then the WebSocket when REST's answer was no answer. */
  async send(command: string, params: Record<string, unknown> = {}): Promise<CuaAnswer> {
    if (this.transport === 'ws') return this.ws(command, params);
    const result = await this.rest(command, params);
    if (this.transport === 'cmd') return result;
    if (
      result.success === false &&
      (result.error === 'Request failed' || result.error === 'Server returned malformed response')
    )
      return this.ws(command, params);
    return result;
  }

  close(): void {
    this.#ws?.close();
    this.#ws = undefined;
  }

  /** `wait_for_ready` as `Computer.run()` calls it: `version` over REST, then `get_screen_size`. */
  async waitForReady(): Promise<void> {
    const version = await this.rest('version');
    if (version.success === false) throw new CuaSdkError(`version: ${version.error}`);
    const size = await this.send('get_screen_size');
    if (!size.success) throw new CuaSdkError(`get_screen_size: ${size.error}`);
  }

  // ---- the interface's methods: what each sends, and what it reads or raises ----

  async screenshot(): Promise<Buffer> {
    const r = await this.send('screenshot');
    if (!r.image_data) throw new CuaSdkError('Failed to take screenshot, no image data received from server');
    return Buffer.from(r.image_data as string, 'base64');
  }
  async getScreenSize(): Promise<{ width: number; height: number }> {
    const r = await this.send('get_screen_size');
    if (r.success && r.size) return r.size as { width: number; height: number };
    throw new CuaSdkError('Failed to get screen size');
  }
  async getCursorPosition(): Promise<{ x: number; y: number }> {
    const r = await this.send('get_cursor_position');
    if (r.success && r.position) return r.position as { x: number; y: number };
    throw new CuaSdkError('Failed to get cursor position');
  }

  // The input methods ignore the answer; it is returned here for the tests to look at.
  leftClick = (x?: number, y?: number) => this.send('left_click', { x: x ?? null, y: y ?? null });
  rightClick = (x?: number, y?: number) => this.send('right_click', { x: x ?? null, y: y ?? null });
  doubleClick = (x?: number, y?: number) => this.send('double_click', { x: x ?? null, y: y ?? null });
  moveCursor = (x: number, y: number) => this.send('move_cursor', { x, y });
  mouseDown = (x?: number, y?: number, button = 'left') =>
    this.send('mouse_down', { x: x ?? null, y: y ?? null, button });
  mouseUp = (x?: number, y?: number, button = 'left') =>
    this.send('mouse_up', { x: x ?? null, y: y ?? null, button });
  dragTo = (x: number, y: number, button = 'left', duration = 0.5) =>
    this.send('drag_to', { x, y, button, duration });
  drag = (path: [number, number][], button = 'left', duration = 0.5) =>
    this.send('drag', { path, button, duration });
  keyDown = (key: string) => this.send('key_down', { key: sdkKey(key) });
  keyUp = (key: string) => this.send('key_up', { key: sdkKey(key) });
  typeText = (text: string) => this.send('type_text', { text });
  press = (key: string) => this.send('press_key', { key: sdkKey(key) });
  hotkey = (...keys: string[]) => this.send('hotkey', { keys: keys.map(sdkKey) });
  scroll = (x: number, y: number) => this.send('scroll', { x, y });
  scrollDown = (clicks = 1) => this.send('scroll_down', { clicks });
  scrollUp = (clicks = 1) => this.send('scroll_up', { clicks });

  async runCommand(command: string): Promise<{ stdout: string; stderr: string; returncode: number }> {
    const r = await this.send('run_command', { command });
    if (!r.success) throw new CuaSdkError(r.error ?? 'Failed to run command');
    return {
      stdout: (r.stdout as string) ?? '',
      stderr: (r.stderr as string) ?? '',
      returncode: (r.return_code as number) ?? 0,
    };
  }
  async launch(app: string, args?: string[]): Promise<number | undefined> {
    const r = await this.send('launch', { app, ...(args !== undefined && { args }) });
    if (!r.success) throw new CuaSdkError(r.error ?? 'Failed to launch application');
    return r.pid as number | undefined;
  }

  async getFileSize(path: string): Promise<number> {
    return (await this.#checked('get_file_size', { path }, 'Failed to get file size')).size as number;
  }
  async readBytes(path: string, offset = 0, length: number | null = null): Promise<Buffer> {
    if (length === null) {
      const size = await this.getFileSize(path);
      if (size > CHUNK_THRESHOLD) {
        const parts: Buffer[] = [];
        for (let at = offset; at < size; at += CHUNK) {
          const r = await this.#checked(
            'read_bytes',
            { path, offset: at, length: Math.min(CHUNK, size - at) },
            'Failed to read file chunk',
          );
          parts.push(Buffer.from(r.content_b64 as string, 'base64'));
        }
        return Buffer.concat(parts);
      }
    }
    const r = await this.#checked('read_bytes', { path, offset, length }, 'Failed to read file');
    return Buffer.from((r.content_b64 as string) ?? '', 'base64');
  }
  /** `read_bytes(path).decode("utf-8")`: bytes that are not UTF-8 raise. */
  async readText(path: string): Promise<string> {
    return new TextDecoder('utf-8', { fatal: true }).decode(await this.readBytes(path));
  }
  async writeBytes(path: string, content: Buffer, append = false): Promise<void> {
    if (content.length <= CHUNK_THRESHOLD) {
      await this.#checked(
        'write_bytes',
        { path, content_b64: content.toString('base64'), append },
        'Failed to write file',
      );
      return;
    }
    for (let at = 0; at < content.length; at += CHUNK) {
      const part = content.subarray(at, at + CHUNK);
      await this.#checked(
        'write_bytes',
        { path, content_b64: part.toString('base64'), append: at === 0 ? append : true },
        'Failed to write file chunk',
      );
    }
  }
  writeText = (path: string, content: string, append = false) =>
    this.writeBytes(path, Buffer.from(content, 'utf8'), append);
  async fileExists(path: string): Promise<boolean> {
    return ((await this.send('file_exists', { path })).exists as boolean) ?? false;
  }
  async directoryExists(path: string): Promise<boolean> {
    return ((await this.send('directory_exists', { path })).exists as boolean) ?? false;
  }
  async listDir(path: string): Promise<string[]> {
    return ((await this.#checked('list_dir', { path }, 'Failed to list directory')).files as string[]) ?? [];
  }
  createDir = (path: string) => this.#checked('create_dir', { path }, 'Failed to create directory');
  deleteFile = (path: string) => this.#checked('delete_file', { path }, 'Failed to delete file');
  deleteDir = (path: string) => this.#checked('delete_dir', { path }, 'Failed to delete directory');
  getAccessibilityTree = () =>
    this.#checked('get_accessibility_tree', {}, 'Failed to get accessibility tree');

  /** The methods that raise `RuntimeError(result.get("error", …))` on `success: false`. */
  async #checked(command: string, params: Record<string, unknown>, otherwise: string): Promise<CuaAnswer> {
    const r = await this.send(command, params);
    if (!r.success) throw new CuaSdkError(r.error ?? otherwise);
    return r;
  }
}
