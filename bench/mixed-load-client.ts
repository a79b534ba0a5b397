// The clients of bench/mixed-load.ts, each run as its own process so that no client shares the
// server's event loop (a client on the server's loop queues its own timers and parsing behind the
// server's work, and the bench would time itself). One JSON argument says what to do; the result is
// one JSON line on stdout.
//
//   quiet: the second tenant's calls (GET, screenshot, exec), one at a time, for `seconds`:
//          latencies per call. A non-2xx answer ends the run with an error.
//   load:  the noisy sandbox's VNC viewers and screenshot/exec loops for `seconds`: framebuffer
//          updates, viewers the server closed, 5xx answers.
import { WebSocket } from 'ws';
import { RfbClient } from '../test/api-rfb-client.ts';
import { apiCall } from '../test/support/api-call.ts';

export interface QuietJob {
  kind: 'quiet';
  base: string;
  key: string;
  sandbox: string;
  seconds: number;
  /** Seconds of calls first that are not counted (connections opened, code paths warm). */
  warmupSeconds: number;
}

export interface LoadJob {
  kind: 'load';
  base: string;
  key: string;
  sandbox: string;
  seconds: number;
  viewers: number;
}

export type QuietResult = Record<'get' | 'screenshot' | 'exec', number[]> & {
  /** Of each exec in `exec`, the VM's part as the server timed it (its `Server-Timing: vm`). */
  execVm: number[];
};

export interface LoadResult {
  updates: number;
  /** Framebuffer updates of each viewer (one that stalls shows as a low count). */
  perViewer: number[];
  /** Viewer sessions the server closed during the load (code and reason). */
  closes: string[];
  fiveXx: Record<string, number>;
}

async function quiet(job: QuietJob): Promise<QuietResult> {
  const on = (rest: string) => `/v1/sandboxes/${job.sandbox}${rest}`;
  const calls: [keyof QuietResult, () => ReturnType<typeof apiCall>][] = [
    ['get', () => apiCall(job.base, job.key, 'GET', on(''))],
    ['screenshot', () => apiCall(job.base, job.key, 'GET', on('/screenshot'))],
    ['exec', () => apiCall(job.base, job.key, 'POST', on('/exec'), { command: 'echo hi' })],
  ];
  const ms: QuietResult = { get: [], screenshot: [], exec: [], execVm: [] };
  const counted = Date.now() + job.warmupSeconds * 1000;
  const until = counted + job.seconds * 1000;
  while (Date.now() < until) {
    for (const [name, op] of calls) {
      const t = performance.now();
      const r = await op();
      if (r.status >= 300) throw new Error(`quiet ${name}: ${r.status} ${r.bytes.toString().slice(0, 200)}`);
      if (Date.now() < counted) continue;
      ms[name].push(performance.now() - t);
      if (name === 'exec')
        ms.execVm.push(Number(/vm;dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '')?.[1]));
    }
  }
  return ms;
}

async function load(job: LoadJob): Promise<LoadResult> {
  const result: LoadResult = { updates: 0, perViewer: [], closes: [], fiveXx: {} };
  let stopping = false;
  const on = (rest: string) => `/v1/sandboxes/${job.sandbox}${rest}`;
  const counted = async (method: string, url: string, body?: unknown) => {
    const r = await apiCall(job.base, job.key, method, url, body);
    if (r.status >= 500) {
      const what = `${method} ${url.replace(/sb-[a-z0-9]+/, '{id}')} ${r.status} ${r.bytes.toString().slice(0, 120)}`;
      result.fiveXx[what] = (result.fiveXx[what] ?? 0) + 1;
    }
    return r;
  };
  const sandbox = (await counted('GET', on(''))).json<{ vnc_url: string }>();
  const viewer = async (index: number) => {
    result.perViewer[index] = 0;
    const ws = new WebSocket(`${job.base.replace('http', 'ws')}${sandbox.vnc_url}`);
    ws.once('close', (code, reason) => {
      if (!stopping) result.closes.push(`${code} ${reason.toString()}`);
    });
    // Listening before the upgrade completes: the server speaks first (its RFB version).
    const rfb = RfbClient.overWebSocket(ws);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    await rfb.handshake();
    let n = 0;
    while (!stopping) {
      // An active viewer: the pointer moves (a cursor update to send), a full frame every 20th time.
      rfb.pointer(100 + (n % 400), 100 + ((n * 7) % 300));
      rfb.requestUpdate(n++ % 20 !== 0);
      await rfb.readUpdate();
      result.updates++;
      result.perViewer[index]!++;
    }
    rfb.close();
  };
  const loop = async (op: () => Promise<unknown>) => {
    while (!stopping) await op();
  };
  const timer = setTimeout(() => (stopping = true), job.seconds * 1000);
  // A viewer the server closes is reported (and not reopened), never an unhandled failure.
  await Promise.all([
    ...Array.from({ length: job.viewers }, (_, i) =>
      viewer(i).catch((err: unknown) => result.closes.push(String(err))),
    ),
    loop(() => counted('GET', on('/screenshot'))),
    loop(() => counted('POST', on('/exec'), { command: 'echo hi' })),
  ]);
  clearTimeout(timer);
  return result;
}

const job = JSON.parse(process.argv[2] ?? '{}') as QuietJob | LoadJob;
const result = job.kind === 'quiet' ? await quiet(job) : await load(job);
process.stdout.write(`${JSON.stringify(result)}\n`);
