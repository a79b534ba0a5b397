// A neighbour's latency while one tenant tries to wedge the control plane (issue 29): `sandbay
// server` in its own process on real desktops, two sandboxes. This process is the clients: the
// neighbour's screenshot and exec one at a time, timed on a quiet server first, then while the
// hostile tenant holds each hostile state (test/support/hostile-probes.ts) and keeps calling into it:
// a FIFO at its X cookie's name (screenshots), a file growing without end (downloads), its X server
// grabbed (screenshots), its sshd sessions stopped (execs). Then the time from SIGTERM to exit with
// all of it at once and the neighbour under load, on a fresh server each time.
//
//   node bench/hostile-tenant.ts                  (60 neighbour rounds per phase, 3 stops)
//   node bench/hostile-tenant.ts --rounds 20 --stops 1
//
// Runs as root (the linux driver creates VM users). Prints a markdown table.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FIFO_AT_COOKIE,
  GRAB_X,
  growForever,
  RESTORE_COOKIE,
  sshdStopped,
  stopGrowing,
  stopOwnSshdIn,
  UNGRAB_X,
} from '../test/support/hostile-probes.ts';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../test/support/server-process.ts';
import { waitFor } from '../test/support/wait.ts';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('--rounds', 60);
const STOPS = arg('--stops', 3);
const BIN = join(import.meta.dirname, '..', 'cli', 'bin.ts');

interface Answer {
  status: number;
  ms: number;
}

interface Tenancy {
  server: ServerProcess;
  key: string;
  hostile: string;
  neighbour: string;
  hostileUser: string;
}

async function call(
  t: Tenancy,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer & { text: string }> {
  const t0 = performance.now();
  const res = await fetch(`${t.server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${t.key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  return { status: res.status, ms: performance.now() - t0, text: buf.subarray(0, 2000).toString() };
}

const exec = (t: Tenancy, sb: string, command: string, timeout = 60) =>
  call(t, 'POST', `/v1/sandboxes/${sb}/exec`, { command, timeout });

async function start(dir: string): Promise<Tenancy> {
  const server = await startServerProcess(join(dir, 'data'));
  const adminKey = (await readFile(join(dir, 'data', 'admin.key'), 'utf8')).trim();
  const out = execFileSync(
    process.execPath,
    [BIN, 'accounts', 'create', 'bench-co', '--credit-cents', '100000'],
    {
      env: { ...process.env, SANDBAY_URL: server.adminUrl, SANDBAY_ADMIN_KEY: adminKey },
      encoding: 'utf8',
    },
  );
  const t: Tenancy = {
    server,
    key: /api key:\s+(\S+)/.exec(out)?.[1] ?? '',
    hostile: '',
    neighbour: '',
    hostileUser: '',
  };
  await call(t, 'POST', '/v1/reservations', { hours: 24, mini_count: 1, vm_layout: 'split' });
  const create = async () => {
    let id = '';
    await waitFor(
      async () => {
        const r = await call(t, 'POST', '/v1/sandboxes', {});
        if (r.status === 201) id = (JSON.parse(r.text) as { sandbox_id: string }).sandbox_id;
        return r.status === 201;
      },
      'a warm sandbox',
      180_000,
    );
    return id;
  };
  t.hostile = await create();
  t.neighbour = await create();
  t.hostileUser = (JSON.parse((await exec(t, t.hostile, 'id -un')).text) as { stdout: string }).stdout.trim();
  return t;
}

function hostileProcesses(t: Tenancy): string[] {
  try {
    return execFileSync('ps', ['-o', 'stat=,args=', '-u', t.hostileUser], { encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

/** The neighbour's screenshot then exec, `ROUNDS` times, one at a time. */
async function neighbourRounds(
  t: Tenancy,
): Promise<{ screenshot: number[]; exec: number[]; failed: number }> {
  const out = { screenshot: [] as number[], exec: [] as number[], failed: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    const shot = await call(t, 'GET', `/v1/sandboxes/${t.neighbour}/screenshot`);
    const run = await exec(t, t.neighbour, 'echo hi');
    if (shot.status !== 200 || run.status !== 200) out.failed++;
    out.screenshot.push(shot.ms);
    out.exec.push(run.ms);
  }
  return out;
}

/** While `measure` runs, the hostile tenant calls `hostileCall` in a loop: what it got, and how long each took. */
async function whileHostile<T>(hostileCall: () => Promise<Answer>, measure: () => Promise<T>) {
  const answers: Answer[] = [];
  let running = true;
  const loop = (async () => {
    while (running) answers.push(await hostileCall().catch(() => ({ status: 0, ms: NaN })));
  })();
  const result = await measure();
  running = false;
  await loop;
  return { result, answers };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const f1 = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-bench-hostile-'));
  const rows: string[] = [];
  let t = await start(dir);
  try {
    await neighbourRounds(t); // warm: connections, code paths
    const quiet = await neighbourRounds(t);
    const row = (state: string, r: typeof quiet, answers: Answer[]) => {
      const statuses = [...new Set(answers.map((a) => a.status))].join('/');
      const hostileMs = answers.map((a) => a.ms).filter(Number.isFinite);
      rows.push(
        `| ${state} | ${f1(pct(r.screenshot, 50))} / ${f1(pct(r.screenshot, 99))} ms | ${(pct(r.screenshot, 50) / pct(quiet.screenshot, 50)).toFixed(2)}× / ${(pct(r.screenshot, 99) / pct(quiet.screenshot, 99)).toFixed(2)}× | ${f1(pct(r.exec, 50))} / ${f1(pct(r.exec, 99))} ms | ${(pct(r.exec, 50) / pct(quiet.exec, 50)).toFixed(2)}× / ${(pct(r.exec, 99) / pct(quiet.exec, 99)).toFixed(2)}× | ${r.failed} | ${answers.length} calls, ${statuses || '–'}, max ${f1(Math.max(...hostileMs, 0))} ms |`,
      );
    };
    row('quiet (no hostile tenant)', quiet, []);

    await exec(t, t.hostile, FIFO_AT_COOKIE);
    const fifo = await whileHostile(
      () => call(t, 'GET', `/v1/sandboxes/${t.hostile}/screenshot`),
      () => neighbourRounds(t),
    );
    row('FIFO at the X cookie; hostile screenshots', fifo.result, fifo.answers);
    await exec(t, t.hostile, RESTORE_COOKIE);

    await exec(t, t.hostile, growForever('grow', 64));
    const grow = await whileHostile(
      () => call(t, 'GET', `/v1/sandboxes/${t.hostile}/files?path=grow`),
      () => neighbourRounds(t),
    );
    row('a file growing forever; hostile downloads of it', grow.result, grow.answers);
    await exec(t, t.hostile, stopGrowing('grow'));

    await exec(t, t.hostile, GRAB_X);
    const grab = await whileHostile(
      () => call(t, 'GET', `/v1/sandboxes/${t.hostile}/screenshot`),
      () => neighbourRounds(t),
    );
    row('X server grabbed; hostile screenshots', grab.result, grab.answers);
    await exec(t, t.hostile, UNGRAB_X);

    await exec(t, t.hostile, stopOwnSshdIn(3));
    await waitFor(() => sshdStopped(hostileProcesses(t)), 'its sshd sessions stopped', 30_000);
    const sshd = await whileHostile(
      () => exec(t, t.hostile, 'echo never', 5),
      () => neighbourRounds(t),
    );
    row('sshd sessions stopped; hostile execs', sshd.result, sshd.answers);

    // Stops: SIGTERM with every state at once and the neighbour under load, each on a fresh server.
    const stops: { ms: number; code: number | null }[] = [];
    for (let i = 0; i < STOPS; i++) {
      if (i > 0) t = await start(dir);
      await exec(t, t.hostile, `${GRAB_X}; ${FIFO_AT_COOKIE}; ${growForever('grow2')}; ${stopOwnSshdIn(3)}`);
      await waitFor(() => sshdStopped(hostileProcesses(t)), 'its sshd sessions stopped', 30_000);
      const held = [
        exec(t, t.hostile, 'echo never', 3600),
        call(t, 'GET', `/v1/sandboxes/${t.hostile}/screenshot`),
      ].map((p) => p.catch(() => undefined));
      let loading = true;
      const load = (async () => {
        while (loading)
          await call(t, 'GET', `/v1/sandboxes/${t.neighbour}/screenshot`).catch(() => undefined);
      })();
      await new Promise((r) => setTimeout(r, 1000));
      const exited = new Promise<number | null>((resolve) => t.server.child.once('exit', resolve));
      const t0 = performance.now();
      t.server.child.kill('SIGTERM');
      const code = await exited;
      stops.push({ ms: performance.now() - t0, code });
      loading = false;
      await Promise.all([...held, load]);
      await stopServerProcess(t.server);
    }
    const load = execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' })
      .split(' ')
      .slice(0, 3)
      .join(' ');
    console.log(
      [
        `Neighbour's calls, ${ROUNDS} rounds per phase (p50 / p99, and the ratio to the quiet phase); load average at the end ${load}`,
        '',
        '| hostile state | neighbour screenshot | ratio p50 / p99 | neighbour exec | ratio p50 / p99 | neighbour failures | hostile calls meanwhile |',
        '|---|---|---|---|---|---|---|',
        ...rows,
        '',
        `| SIGTERM → exit, every hostile state at once, calls held, neighbour under load | ${stops.map((s) => `${(s.ms / 1000).toFixed(2)} s (exit ${s.code})`).join(', ')} |`,
        '|---|---|',
      ].join('\n'),
    );
  } finally {
    if (t.server.child.exitCode === null) await stopServerProcess(t.server);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
