// Streaming exec's first-byte latency and a forwarded port's throughput, on a live sandbay (linux
// driver, a real desktop), measured by a client in its own process (bench/streams-client.ts):
// - exec stream of `echo hi`: upgrade → first stdout byte and → exit status, against POST …/exec of
//   the same command (its answer is its first byte); and of `echo first; sleep 0.5; echo last`,
//   where the stream's first byte comes before the command ends and POST's only after it;
// - a forwarded port (`/v1/sandboxes/{id}/ports/{port}/…`: the API, then a direct-tcpip channel of
//   the VM's pooled SSH connection) against a direct TCP connection to the same server at the VM's
//   own address: a 64 MiB download (throughput) and a small GET (latency), peers interleaved; and the
//   download through OpenSSH's own forward to the same port (`ssh -L`, with the VM's key from
//   …/ssh/credentials), the raw tool for a port carried over SSH.
// The server in the VM is Node's http (the machine's /usr/bin/node, run as the VM's user), so that
// it is not what limits either path.
//
//   node bench/streams.ts            (about two minutes)
//   node bench/streams.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startLiveSandbay } from '../test/support/live-sandbay.ts';
import { apiCall } from '../test/support/api-call.ts';
import { waitFor } from '../test/support/wait.ts';

const QUICK = process.argv.includes('--quick');
const PORT = 8800;
const run = promisify(execFile);

/** Bytes from /bytes?n=N (one buffer reused), a tiny body from /small; on every address of the VM. */
const SERVER = `const http = require('http');
const chunk = Buffer.alloc(1 << 20, 'x');
http.createServer((req, res) => {
  const url = new URL(req.url, 'http://vm');
  if (url.pathname === '/small') return res.end('ok');
  let left = Number(url.searchParams.get('n'));
  res.writeHead(200, { 'content-length': left });
  const more = () => {
    while (left > 0) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) return res.once('drain', more);
    }
    res.end();
  };
  more();
}).listen(Number(process.argv[2]), '0.0.0.0');
`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const ms = (v: number) => v.toFixed(1);
/** What bench/streams-client.ts prints: ms per sample, bytes/s per download. */
interface Samples {
  streamEcho: StreamTimes[];
  execEcho: number[];
  streamSlow: StreamTimes[];
  execSlow: number[];
  direct: number[];
  port: number[];
  openssh: number[];
  smallDirect: number[];
  smallPort: number[];
}
interface StreamTimes {
  open: number;
  first: number;
  end: number;
}
const mbs = (v: number) => (v / (1024 * 1024)).toFixed(0);

async function main(): Promise<void> {
  const live = await startLiveSandbay('benchstreams');
  try {
    const call = (method: string, p: string, body?: unknown) =>
      apiCall(live.url, live.accountKey, method, p, body);
    const created = (await call('POST', '/v1/sandboxes', { ephemeral: false })).json<{
      sandbox_id: string;
      vm_ip: string;
    }>();
    const sb = created.sandbox_id;
    const start = await call('POST', `/v1/sandboxes/${sb}/exec`, {
      command: `cat > bench-server.js <<'EOF'\n${SERVER}EOF\nnohup /usr/bin/node bench-server.js ${PORT} >/dev/null 2>&1 &`,
    });
    if (start.json<{ return_code: number }>().return_code !== 0)
      throw new Error(`server: ${start.bytes.toString()}`);
    await waitFor(
      async () => (await call('GET', `/v1/sandboxes/${sb}/ports/${PORT}/small`)).status === 200,
      'the server',
      30_000,
    );
    const ssh = (await call('GET', `/v1/sandboxes/${sb}/ssh/credentials`)).json<{
      username: string;
      private_key: string;
    }>();
    const job = {
      base: live.url,
      ssh: { username: ssh.username, privateKey: ssh.private_key },
      key: live.accountKey,
      sb,
      vmIp: created.vm_ip,
      port: PORT,
      execRounds: QUICK ? 10 : 200,
      smallRounds: QUICK ? 20 : 300,
      downloadRounds: QUICK ? 2 : 10,
      downloadBytes: 64 * 1024 * 1024,
    };
    const loadBefore = loadavg()[0]!;
    const { stdout } = await run(process.execPath, [path.join(import.meta.dirname, 'streams-client.ts')], {
      env: { ...process.env, STREAMS_JOB: JSON.stringify(job) },
      maxBuffer: 64 << 20,
    });
    const r = JSON.parse(stdout) as Samples;
    const p50 = (xs: number[]) => percentile(xs, 50);
    const both = (xs: number[]) => `${ms(p50(xs))} ms | ${ms(percentile(xs, 99))} ms`;
    const firstEcho = r.streamEcho.map((s) => s.first);
    const firstSlow = r.streamSlow.map((s) => s.first);
    const endSlow = r.streamSlow.map((s) => s.end);
    const load = `load ${loadBefore.toFixed(1)}–${loadavg()[0]!.toFixed(1)}`;
    const rows = [
      [
        'exec stream `echo hi`: upgrade → first stdout byte',
        both(firstEcho),
        `open ${ms(p50(r.streamEcho.map((s) => s.open)))} ms, exit status ${ms(p50(r.streamEcho.map((s) => s.end)))} ms; n=${firstEcho.length}; ${load}`,
      ],
      [
        'POST …/exec `echo hi` (its answer is its first byte), same run',
        both(r.execEcho),
        `first byte of the stream ${(p50(firstEcho) / p50(r.execEcho)).toFixed(2)}× POST's answer`,
      ],
      [
        'exec stream `echo first; sleep 0.5; echo last`: first byte / exit status',
        `${ms(p50(firstSlow))} / ${ms(p50(endSlow))} ms | ${ms(percentile(firstSlow, 99))} / ${ms(percentile(endSlow, 99))} ms`,
        `POST …/exec of it answers after ${ms(p50(r.execSlow))} ms; n=${firstSlow.length}`,
      ],
      [
        'forwarded port, 64 MiB download through the API (/ports) vs direct TCP to the VM',
        `**${mbs(p50(r.port))}** vs ${mbs(p50(r.direct))} MiB/s | —`,
        `**${((p50(r.port) / p50(r.direct)) * 100).toFixed(0)}%** of direct (rounds: port ${r.port.map(mbs).join(', ')}; direct ${r.direct.map(mbs).join(', ')} MiB/s)`,
      ],
      [
        'the same download through OpenSSH `ssh -L` to the port (same run)',
        `${mbs(p50(r.openssh))} MiB/s | —`,
        `/ports is **${((p50(r.port) / p50(r.openssh)) * 100).toFixed(0)}%** of OpenSSH's forward (rounds: ${r.openssh.map(mbs).join(', ')} MiB/s)`,
      ],
      [
        'forwarded port, small GET: /ports vs direct',
        `${ms(p50(r.smallPort))} vs ${ms(p50(r.smallDirect))} ms | ${ms(percentile(r.smallPort, 99))} vs ${ms(percentile(r.smallDirect, 99))} ms`,
        `n=${r.smallPort.length} each; a new SSH channel per request`,
      ],
    ];
    console.log('| what | p50 | p99 | notes |');
    console.log('|---|---|---|---|');
    for (const [what, figures, notes] of rows) console.log(`| ${what} | ${figures} | ${notes} |`);
  } finally {
    await live.close();
  }
}

await main();
