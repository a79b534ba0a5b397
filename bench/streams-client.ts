// The client side of bench/streams.ts, in its own process (as an agent is): given the sandbox and
// the server in it, it times streaming exec against POST …/exec and a forwarded port against a
// direct connection to the VM, interleaving the peers round by round, and prints the samples as JSON.
import { WebSocket } from 'ws';

interface Job {
  base: string;
  key: string;
  sb: string;
  /** A server in the VM on 0.0.0.0:port (so the direct path reaches it too). */
  vmIp: string;
  port: number;
  execRounds: number;
  downloadRounds: number;
  downloadBytes: number;
  smallRounds: number;
}

const job = JSON.parse(process.env.STREAMS_JOB!) as Job;
const auth = { authorization: `Bearer ${job.key}` };
const on = (rest: string) => `${job.base}/v1/sandboxes/${job.sb}${rest}`;

/** Opens an exec stream of `command`: ms to the socket open, to the first stdout byte, to the status. */
function streamTimes(command: string): Promise<{ open: number; first: number; end: number }> {
  const t0 = performance.now();
  const url = `${on('/exec/stream').replace('http', 'ws')}?command=${encodeURIComponent(command)}`;
  const ws = new WebSocket(url, ['v5.channel.k8s.io'], { headers: auth, perMessageDeflate: false });
  let open = NaN;
  let first = NaN;
  return new Promise((resolve, reject) => {
    ws.once('open', () => (open = performance.now() - t0));
    ws.on('message', (m: Buffer) => {
      if (m[0] === 1 && Number.isNaN(first)) first = performance.now() - t0;
      if (m[0] === 3) resolve({ open, first, end: performance.now() - t0 });
    });
    ws.once('error', reject);
  });
}

async function execTime(command: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(on('/exec'), {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ command }),
  });
  await res.json();
  return performance.now() - t0;
}

/** Bytes/s of one download (request → last byte), and its byte count checked. */
async function download(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  let n = 0;
  for await (const chunk of res.body!) n += (chunk as Uint8Array).length;
  if (n !== job.downloadBytes) throw new Error(`${url}: ${n} bytes, not ${job.downloadBytes}`);
  return n / ((performance.now() - t0) / 1000);
}

async function small(url: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  await (await fetch(url, { headers })).arrayBuffer();
  return performance.now() - t0;
}

const out = {
  streamEcho: [] as { open: number; first: number; end: number }[],
  execEcho: [] as number[],
  streamSlow: [] as { open: number; first: number; end: number }[],
  execSlow: [] as number[],
  direct: [] as number[],
  port: [] as number[],
  smallDirect: [] as number[],
  smallPort: [] as number[],
};

const SLOW = 'echo first; sleep 0.5; echo last';
const directBase = `http://${job.vmIp}:${job.port}`;
const portBase = on(`/ports/${job.port}`);
for (let i = 0; i < 3; i++) {
  await streamTimes('echo hi');
  await execTime('echo hi');
  await small(`${directBase}/small`, {});
  await small(`${portBase}/small`, auth);
}
for (let i = 0; i < job.execRounds; i++) {
  // Which peer goes first flips every round, so drift hits both alike.
  const pair = [
    async () => out.streamEcho.push(await streamTimes('echo hi')),
    async () => out.execEcho.push(await execTime('echo hi')),
  ];
  for (const f of i % 2 ? pair.reverse() : pair) await f();
  if (i % 5 === 0) {
    out.streamSlow.push(await streamTimes(SLOW));
    out.execSlow.push(await execTime(SLOW));
  }
}
for (let i = 0; i < job.smallRounds; i++) {
  out.smallDirect.push(await small(`${directBase}/small`, {}));
  out.smallPort.push(await small(`${portBase}/small`, auth));
}
const bytes = `/bytes?n=${job.downloadBytes}`;
for (let i = 0; i < job.downloadRounds; i++) {
  const pair = [
    async () => out.direct.push(await download(`${directBase}${bytes}`, {})),
    async () => out.port.push(await download(`${portBase}${bytes}`, auth)),
  ];
  for (const f of i % 2 ? pair.reverse() : pair) await f();
}
process.stdout.write(JSON.stringify(out));
