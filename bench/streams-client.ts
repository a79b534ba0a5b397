// The client side of bench/streams.ts, in its own process (as an agent is): given the sandbox and
// the server in it, it times streaming exec against POST …/exec and a forwarded port against a
// direct connection to the VM and against OpenSSH's own forward (`ssh -L`, the raw tool for a port
// over SSH), interleaving the peers round by round, and prints the samples as JSON.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get, type RequestOptions } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocket } from 'ws';
import { waitFor } from '../test/support/wait.ts';

interface Job {
  base: string;
  key: string;
  sb: string;
  /** A server in the VM on 0.0.0.0:port (so the direct path reaches it too). */
  vmIp: string;
  port: number;
  /** The VM's login (GET …/ssh/credentials), for OpenSSH's forward to the same port. */
  ssh: { username: string; privateKey: string };
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

/** Bytes/s of one download (request → last byte) with node:http, and its byte count checked. */
function download(options: RequestOptions): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    get({ ...options, agent: false }, (res) => {
      let n = 0;
      res.on('data', (chunk: Buffer) => (n += chunk.length));
      res.on('end', () => {
        if (n !== job.downloadBytes)
          reject(new Error(`${options.path}: ${n} bytes, not ${job.downloadBytes}`));
        else resolve(n / ((performance.now() - t0) / 1000));
      });
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** `ssh -N -L socket:127.0.0.1:port` to the VM's sshd with its own key; resolves once it listens. */
async function openSshForward(): Promise<{ socketPath: string; close: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-streams-'));
  const keyFile = path.join(dir, 'key');
  await writeFile(keyFile, job.ssh.privateKey, { mode: 0o600 });
  const socketPath = path.join(dir, 'fwd.sock');
  const ssh = spawn(
    'ssh',
    [
      ...['-N', '-i', keyFile, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes'],
      ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'],
      ...['-o', 'ExitOnForwardFailure=yes', '-L', `${socketPath}:127.0.0.1:${job.port}`],
      `${job.ssh.username}@${job.vmIp}`,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => ssh.once('exit', () => resolve()));
  await waitFor(() => existsSync(socketPath) || ssh.exitCode !== null, 'ssh -L listening', 15_000);
  if (ssh.exitCode !== null) throw new Error(`ssh -L exited with ${ssh.exitCode}`);
  return {
    socketPath,
    close: async () => {
      ssh.kill();
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
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
  openssh: [] as number[],
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
const api = new URL(job.base);
const forward = await openSshForward();
try {
  const peers = [
    async () => out.direct.push(await download({ host: job.vmIp, port: job.port, path: bytes })),
    async () =>
      out.port.push(
        await download({
          host: api.hostname,
          port: api.port,
          path: `/v1/sandboxes/${job.sb}/ports/${job.port}${bytes}`,
          headers: auth,
        }),
      ),
    async () => out.openssh.push(await download({ socketPath: forward.socketPath, path: bytes })),
  ];
  for (let i = 0; i < job.downloadRounds; i++) {
    // Each round starts with the next peer, so drift hits all three alike.
    for (let k = 0; k < peers.length; k++) await peers[(i + k) % peers.length]!();
  }
} finally {
  await forward.close();
}
process.stdout.write(JSON.stringify(out));
