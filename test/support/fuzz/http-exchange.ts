// One HTTP/1.1 exchange over a fresh TCP connection, written byte for byte: any method, path,
// header or body framing the fuzzer makes up goes out as it is (Node's and undici's clients refuse
// to send most of them). The answer is read whole, or up to its head for a stream that never ends
// (server-sent events, a watch, a 101), within a deadline: past it, the exchange is a hang.
import { connect } from 'node:net';

export interface RequestParts {
  method: string;
  /** Sent as is: the fuzzer encodes (or does not) what it puts in. */
  path: string;
  /** In order; a name may repeat. `Host` and `Connection: close` come first unless given. */
  headers?: [string, string][];
  body?: Buffer | string;
  /** Leave out the Content-Length header that a body otherwise gets. */
  noContentLength?: boolean;
}

export type Exchange =
  | {
      kind: 'answer';
      status: number;
      /** Names lower-cased; a repeated header keeps its last value. */
      headers: Record<string, string>;
      body: Buffer;
      /** Only the head was read: the body streams on (event stream, 101, a watch). */
      streaming: boolean;
      ms: number;
    }
  /** The server closed the connection without a complete answer (`error`: how, when it reset it). */
  | { kind: 'closed'; ms: number; received: number; error?: string }
  /** No complete answer before the deadline. */
  | { kind: 'hang'; ms: number; received: number };

export function requestBytes(r: RequestParts): Buffer {
  const headers = r.headers ?? [];
  const has = (n: string) => headers.some(([k]) => k.toLowerCase() === n);
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const lines = [`${r.method} ${r.path} HTTP/1.1`];
  if (!has('host')) lines.push('Host: 127.0.0.1');
  if (!has('connection')) lines.push('Connection: close');
  for (const [k, v] of headers) lines.push(`${k}: ${v}`);
  if (body && !r.noContentLength && !has('content-length') && !has('transfer-encoding'))
    lines.push(`Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body ? Buffer.concat([head, body]) : head;
}

/** Streams a client reads only the head of: the rest may never end. */
function isStreaming(status: number, headers: Record<string, string>): boolean {
  if (status === 101) return true;
  const type = headers['content-type'] ?? '';
  return type.startsWith('text/event-stream');
}

/**
 * Sends `bytes` (then half-closes when `end`) and reads the answer. `watch`: the request may be a
 * Kubernetes watch, whose chunked body never ends (a 200's head is the answer).
 */
export function exchange(
  port: number,
  bytes: Buffer,
  opts: { deadlineMs: number; host?: string; end?: boolean; method?: string; watch?: boolean },
): Promise<Exchange> {
  const started = performance.now();
  const ms = () => performance.now() - started;
  return new Promise((resolve) => {
    const socket = connect({ port, host: opts.host ?? '127.0.0.1', noDelay: true });
    let buffered = Buffer.alloc(0);
    let settled = false;
    const finish = (e: Exchange) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(e);
    };
    const timer = setTimeout(
      () => finish({ kind: 'hang', ms: ms(), received: buffered.length }),
      opts.deadlineMs,
    );
    socket.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'closed', ms: ms(), received: buffered.length, error: err.code ?? err.message }),
    );
    socket.on('close', () => {
      const done = parse(buffered, opts.method ?? '', opts.watch ?? false, true);
      if (done) finish({ kind: 'answer', ...done, ms: ms() });
      else finish({ kind: 'closed', ms: ms(), received: buffered.length });
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const done = parse(buffered, opts.method ?? '', opts.watch ?? false, false);
      if (done) finish({ kind: 'answer', ...done, ms: ms() });
    });
    socket.once('connect', () => {
      socket.write(bytes);
      if (opts.end) socket.end();
    });
  });
}

type Parsed = { status: number; headers: Record<string, string>; body: Buffer; streaming: boolean };

/** The answer in `buf` once it is complete (`closed`: nothing more will come), else undefined. */
function parse(buf: Buffer, method: string, watch: boolean, closed: boolean): Parsed | undefined {
  let headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  let [statusLine, ...lines] = buf.subarray(0, headEnd).toString('latin1').split('\r\n');
  let status = Number(statusLine!.split(' ')[1]);
  // A 100 Continue is not the answer.
  while (status === 100) {
    const next = buf.indexOf('\r\n\r\n', headEnd + 4);
    if (next < 0) return undefined;
    [statusLine, ...lines] = buf
      .subarray(headEnd + 4, next)
      .toString('latin1')
      .split('\r\n');
    status = Number(statusLine!.split(' ')[1]);
    headEnd = next;
  }
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const colon = l.indexOf(':');
    if (colon > 0) headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
  }
  const rest = buf.subarray(headEnd + 4);
  if (isStreaming(status, headers) || (watch && status === 200))
    return { status, headers, body: rest, streaming: true };
  if (method === 'HEAD' || status === 204 || status === 304)
    return { status, headers, body: Buffer.alloc(0), streaming: false };
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
    const body = dechunk(rest);
    return body ? { status, headers, body, streaming: false } : undefined;
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return rest.length >= length
      ? { status, headers, body: rest.subarray(0, length), streaming: false }
      : undefined;
  }
  return closed ? { status, headers, body: rest, streaming: false } : undefined;
}

/** A chunked body once its last chunk arrived, else undefined. */
function dechunk(buf: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return Buffer.concat(parts);
    if (size === 0) return Buffer.concat(parts);
    if (buf.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
