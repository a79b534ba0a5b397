// The client of bench/cua.ts, in its own process (forked, told what to run over IPC): one command
// over sandbay's REST route, Cua's POST …/cua/cmd or Cua's WebSocket …/cua/ws, `n` calls in a row,
// each timed from send to its answer read as its SDK reads it: the REST screenshot's bytes; a Cua
// answer's JSON parsed and its base64 decoded. Answers the times; `decode` times the reading alone.
import { WebSocket } from 'ws';

interface Job {
  base: string;
  sandbox: string;
  key: string;
}

const job = JSON.parse(process.argv[2]!) as Job;
const auth = { authorization: `Bearer ${job.key}` };
const on = (rest: string) => `${job.base}/v1/sandboxes/${job.sandbox}${rest}`;

type Call = () => Promise<void>;

async function rest(method: string, url: string, body?: unknown): Promise<Buffer> {
  const res = await fetch(url, {
    method,
    headers: { ...auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${bytes.toString().slice(0, 200)}`);
  return bytes;
}

/** A Cua answer as the SDK reads it: `success` checked, a screenshot's base64 decoded. */
function read(text: string): void {
  const answer = JSON.parse(text) as { success: boolean; error?: string; image_data?: string };
  if (!answer.success) throw new Error(`cua: ${answer.error}`);
  if (answer.image_data !== undefined) Buffer.from(answer.image_data, 'base64');
}

async function cmd(command: string, params: Record<string, unknown>): Promise<void> {
  const text = (await rest('POST', on('/cua/cmd'), { command, params })).toString('utf8');
  read(text.trim().slice('data: '.length));
}

const ws = new WebSocket(`${on('/cua/ws').replace(/^http/, 'ws')}`, {
  headers: auth,
  perMessageDeflate: false,
  maxPayload: 10 * 1024 * 1024,
});
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

function overWs(command: string, params: Record<string, unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('message', (data: Buffer) => {
      try {
        read(data.toString('utf8'));
        resolve();
      } catch (err) {
        reject(err as Error);
      }
    });
    ws.send(JSON.stringify({ command, params }));
  });
}

const point = { x: 700, y: 500 };
const COMMANDS: Record<string, Record<string, Call>> = {
  screenshot: {
    rest: async () => void (await rest('GET', on('/screenshot'))),
    'cua/cmd': () => cmd('screenshot', {}),
    'cua/ws': () => overWs('screenshot', {}),
  },
  click: {
    rest: async () => void (await rest('POST', on('/mouse/click'), point)),
    'cua/cmd': () => cmd('left_click', point),
    'cua/ws': () => overWs('left_click', point),
  },
  'cursor position': {
    rest: async () => void (await rest('GET', on('/mouse/position'))),
    'cua/cmd': () => cmd('get_cursor_position', {}),
    'cua/ws': () => overWs('get_cursor_position', {}),
  },
};

/** The reading alone of one Cua screenshot answer (its text received): what the protocol costs the client. */
async function decodeOnly(n: number): Promise<number[]> {
  const text = await new Promise<string>((resolve) => {
    ws.once('message', (data: Buffer) => resolve(data.toString('utf8')));
    ws.send(JSON.stringify({ command: 'screenshot', params: {} }));
  });
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    read(text);
    out.push(performance.now() - t);
  }
  return out;
}

process.on('message', (m: { command: string; path: string; n: number } | 'exit') => {
  if (m === 'exit') {
    ws.close();
    process.disconnect();
    return;
  }
  void (async () => {
    if (m.path === 'decode') return process.send!(await decodeOnly(m.n));
    const call = COMMANDS[m.command]![m.path]!;
    const out: number[] = [];
    for (let i = 0; i < m.n; i++) {
      const t = performance.now();
      await call();
      out.push(performance.now() - t);
    }
    process.send!(out);
  })();
});
process.send!('ready');
