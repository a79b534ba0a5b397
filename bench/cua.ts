// Cua's computer protocol against sandbay's own routes, one run on real desktops (linux driver
// under the real operator, the API listening in this process): screenshot, click and the cursor
// position through GET /screenshot, POST /mouse/click, GET /mouse/position and through Cua's
// POST …/cua/cmd and WebSocket …/cua/ws, from a client in its own process (bench/cua-client.ts) in
// interleaved rounds (the order rotating each round). Per command and path: p50, p99, the p50's
// difference to the REST route (target ≤ 0.2 ms), and the server's main-thread CPU per call (this
// process: the API, the operator and the driver's connections), which load on the machine moves
// far less than a latency.
//
//   node bench/cua.ts            (about a minute)
//   node bench/cua.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { fork, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import path from 'node:path';
import { seedAccount, startLinuxApiStack, waitFor } from '../test/api-harness.ts';
import { apiCall } from '../test/support/api-call.ts';

const QUICK = process.argv.includes('--quick');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
const ms = (v: number): string => `${v.toFixed(2)} ms`;

async function main(): Promise<void> {
  const stack = await startLinuxApiStack('sandbay-bench-cua-', {
    rateLimit: { max: 1e9, timeWindowMs: 60_000 },
    bootId: 'bench',
    environment: 'bench',
  });
  try {
    const key = await seedAccount(stack.store, 'bench', 1e9);
    const call = (method: string, url: string, body?: unknown) => apiCall(stack.base, key, method, url, body);
    await waitFor(
      async () =>
        (await call('GET', '/v1/platforms')).json<{ models: { available_minis: number }[] }>().models[0]!
          .available_minis > 0,
      'the local Mac',
      60_000,
    );
    await call('POST', '/v1/reservations', { hours: 24 });
    const sandbox = await waitFor(
      async () => {
        const r = await call('POST', '/v1/sandboxes', {});
        return r.status === 201 ? r.json<{ sandbox_id: string }>().sandbox_id : undefined;
      },
      'a warm VM',
      60_000,
    );
    const rounds = QUICK ? 4 : 30;
    const perRound = QUICK ? 5 : 20;
    const client = fork(
      path.join(import.meta.dirname, 'cua-client.ts'),
      [JSON.stringify({ base: stack.base, sandbox, key })],
      {
        execPath: process.execPath,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    await answerOf(client);
    const ask = async (command: string, p: string, n: number) => {
      const cpu0 = process.threadCpuUsage();
      client.send({ command, path: p, n });
      const out = (await answerOf(client)) as number[];
      const cpu = process.threadCpuUsage(cpu0);
      return { out, cpuUs: cpu.user + cpu.system };
    };
    const rows = [
      `Cua's protocol vs sandbay's REST route, client in its own process, ${rounds} interleaved rounds × ${perRound} calls per path; load ${loadavg()[0]!.toFixed(1)} at the start`,
      '',
      '| command | path | p50 | p99 | p50 − REST p50 | server CPU per call | target |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const command of ['screenshot', 'click', 'cursor position']) {
      const samples: Record<string, number[]> = { rest: [], 'cua/cmd': [], 'cua/ws': [] };
      const cpu: Record<string, number> = { rest: 0, 'cua/cmd': 0, 'cua/ws': 0 };
      const names = Object.keys(samples);
      for (const name of names) await ask(command, name, 10); // warm-up
      for (let round = 0; round < rounds; round++) {
        for (let k = 0; k < names.length; k++) {
          const name = names[(round + k) % names.length]!;
          const { out, cpuUs } = await ask(command, name, perRound);
          samples[name]!.push(...out);
          cpu[name]! += cpuUs;
        }
      }
      const restP50 = percentile(samples.rest!, 50);
      for (const name of names) {
        const p50 = percentile(samples[name]!, 50);
        const delta = name === 'rest' ? '' : `${p50 - restP50 >= 0 ? '+' : ''}${ms(p50 - restP50)}`;
        const cpuPerCall = cpu[name]! / samples[name]!.length / 1000;
        rows.push(
          `| ${command} | ${name} | ${ms(p50)} | ${ms(percentile(samples[name]!, 99))} | ${delta} | ${ms(cpuPerCall)} | ${name === 'rest' ? 'peer' : '≤ +0.2 ms'} |`,
        );
      }
    }
    const png = (await call('GET', `/v1/sandboxes/${sandbox}/screenshot`)).bytes.length;
    const { out: decode } = await ask('screenshot', 'decode', QUICK ? 20 : 200);
    rows.push(
      '',
      `A Cua screenshot answer read by the client (JSON parse + base64 decode of a ${Math.round(png / 1024)} KiB PNG, ${Math.round((png * 4) / 3 / 1024)} KiB of base64), the format's own cost: p50 ${ms(percentile(decode, 50))}, p99 ${ms(percentile(decode, 99))}; load ${loadavg()[0]!.toFixed(1)} at the end`,
    );
    client.send('exit');
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await stack.close();
  }
}

/** The client's next IPC message. */
function answerOf(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench client exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m);
    });
  });
}

await main();
