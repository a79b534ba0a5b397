// Attack: a tenant who cannot get out of its VM tries to wedge the control plane instead, through
// what the control plane does with its VM: a FIFO where the driver once read the X cookie (a thread
// of the server's pool held forever), a symlink loop, a file that grows forever, its own sshd
// session stopped (a server that accepts and never answers), its X server grabbed (an X server that
// stops answering), an exec stream left open while its sshd session stops. Every probe runs as the tenant would, through the API's `exec` of its own
// sandbox, against `sandbay server` in its own process on real desktops, with a second tenant's
// sandbox beside it. Each time: the hostile sandbox's call answers within its deadline (a result, or
// a JSON error), the neighbour's calls answer while the hostile call is still held, and at the end
// SIGTERM ends the server within 10 s with whatever is in flight, saying what it abandoned.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.ts';
import {
  FIFO_AT_COOKIE,
  GRAB_X,
  growForever,
  RESTORE_COOKIE,
  sshdStopped,
  stopGrowing,
  stopOwnSshdIn,
  UNGRAB_X,
} from '../support/hostile-probes.ts';
import { waitFor } from '../support/wait.ts';

const BIN = join(import.meta.dirname, '..', '..', 'cli', 'bin.ts');
/** What the API promises for a screenshot (an X request's bound) and an exec's open, with room for a loaded machine. */
const SCREEN_DEADLINE_MS = 30_000;
/** Three keepalives 15 s apart unanswered (hosts/linux/ssh-client.ts), with room for a loaded machine. */
const SSH_KEEPALIVE_BOUND_MS = 90_000;
let dir: string;
let server: ServerProcess;
let key: string;
let hostile: string;
let neighbour: string;
/** The hostile VM's Unix user, to watch its processes from the machine. */
let hostileUser: string;
let output = '';

interface Answer {
  status: number;
  ms: number;
  json?: Record<string, unknown>;
  bytes: number;
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - t0;
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    ms,
    bytes: buf.length,
    ...(type.includes('json') && { json: JSON.parse(buf.toString()) as Record<string, unknown> }),
  };
}

const exec = (sb: string, command: string, timeout = 30) =>
  call('POST', `/v1/sandboxes/${sb}/exec`, { command, timeout });
const screenshot = (sb: string) => call('GET', `/v1/sandboxes/${sb}/screenshot`);

/** The neighbour's screenshot and exec, both of which must answer, and when they did. */
async function neighbourWorks(): Promise<number> {
  const [shot, run] = await Promise.all([screenshot(neighbour), exec(neighbour, 'echo ok')]);
  expect(shot.status).toBe(200);
  expect(run.json).toMatchObject({ stdout: 'ok\n', return_code: 0 });
  return performance.now();
}

/** An error answer: JSON `{error, message}`, never a hang and never an HTML page. */
function expectJsonError(a: Answer, statuses: number[]) {
  expect(statuses).toContain(a.status);
  expect(a.json).toMatchObject({ error: expect.any(String), message: expect.any(String) });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-hostile-'));
  server = await startServerProcess(join(dir, 'data'));
  server.child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  server.child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const adminKey = (await readFile(join(dir, 'data', 'admin.key'), 'utf8')).trim();
  const out = execFileSync(
    process.execPath,
    [BIN, 'accounts', 'create', 'hostile-co', '--credit-cents', '100000'],
    {
      env: { ...process.env, SANDBAY_URL: server.adminUrl, SANDBAY_ADMIN_KEY: adminKey },
      encoding: 'utf8',
    },
  );
  key = /api key:\s+(\S+)/.exec(out)?.[1] ?? '';
  const reserved = await call('POST', '/v1/reservations', { hours: 24, mini_count: 1, vm_layout: 'split' });
  expect(reserved.status).toBe(201);
  const create = async () => {
    let sandbox = '';
    await waitFor(
      async () => {
        const r = await call('POST', '/v1/sandboxes', {});
        sandbox = (r.json?.sandbox_id as string | undefined) ?? '';
        return r.status === 201;
      },
      'a warm sandbox',
      120_000,
    );
    return sandbox;
  };
  hostile = await create();
  neighbour = await create();
  hostileUser = ((await exec(hostile, 'id -un')).json?.stdout as string).trim();
}, 240_000);

/** `ps` lines (state, command) of the hostile VM's user, seen from the machine. */
function hostileProcesses(): string[] {
  try {
    return execFileSync('ps', ['-o', 'stat=,args=', '-u', hostileUser], { encoding: 'utf8' })
      .trim()
      .split('\n');
  } catch {
    return []; // ps exits 1 when the user has no process
  }
}

afterAll(async () => {
  if (server) await stopServerProcess(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('never reads the X cookie back from the VM: a FIFO at its name holds nothing', async () => {
  // The first call that needs the display comes after the FIFO: the driver connects with the cookie it made.
  // (The tenant keeps a copy of its cookie, to put it back for its own X clients afterwards.)
  const planted = await exec(hostile, FIFO_AT_COOKIE);
  expect(planted.json).toMatchObject({ stdout: 'fifo\n', return_code: 0 });
  const shot = screenshot(hostile);
  await neighbourWorks();
  expect((await shot).status).toBe(200);
  // A link at the name, to a file only root reads: nothing reads through it either.
  await exec(hostile, 'ln -sfn /etc/shadow "$XAUTHORITY"');
  expect((await screenshot(hostile)).status).toBe(200);
  await exec(hostile, RESTORE_COOKIE);
});

it('answers a download of a FIFO, a device and a symlink loop at once, without opening them', async () => {
  await exec(hostile, 'mkfifo ~/pipe; ln -s loop ~/loop');
  for (const path of ['pipe', '/dev/zero', 'loop']) {
    const a = await call('GET', `/v1/sandboxes/${hostile}/files?path=${encodeURIComponent(path)}`);
    expectJsonError(a, [400, 404]);
    expect(a.ms).toBeLessThan(SCREEN_DEADLINE_MS);
  }
  // An archive of a dir holding them: the FIFO and the loop are archived as what they are.
  const archive = await call('GET', `/v1/sandboxes/${hostile}/files/archive?path=.`);
  expect(archive.status).toBe(200);
  await neighbourWorks();
});

it('sends a file that grows forever as it was when opened, and ends', async () => {
  const grow = await exec(hostile, growForever('grow'));
  expect(grow.json).toMatchObject({ stdout: 'growing\n' });
  const a = await call('GET', `/v1/sandboxes/${hostile}/files?path=grow`);
  expect(a.status).toBe(200);
  expect(a.bytes).toBeGreaterThanOrEqual(4 * 1024 * 1024);
  await exec(hostile, stopGrowing('grow'));
  await neighbourWorks();
});

it('ends a call on a VM whose sshd session stopped answering with 504, and recovers on a fresh connection', async () => {
  // The tenant stops the sshd processes that serve its connection (its own uid): the control
  // plane's pooled connection then accepts nothing more and answers nothing.
  const stop = await exec(hostile, stopOwnSshdIn(5));
  expect(stop.json).toMatchObject({ stdout: 'armed\n' });
  await waitFor(() => sshdStopped(hostileProcesses()), 'its sshd sessions stopped', 30_000);
  const held = exec(hostile, 'echo never', 5);
  let heldDone = false;
  void held.then(() => (heldDone = true));
  const neighbourAt = await neighbourWorks();
  expect(heldDone).toBe(false);
  const a = await held;
  expectJsonError(a, [504, 502]);
  expect(performance.now()).toBeGreaterThan(neighbourAt);
  // The stopped session is the tenant's own; the next call opens a new one and works.
  const again = await exec(hostile, 'echo back');
  expect(again.json).toMatchObject({ stdout: 'back\n' });
});

it('ends an idle exec stream on a VM whose sshd session stopped within a minute (the SSH keepalive), while the neighbour works', async () => {
  // An exec stream may idle for hours, so no deadline bounds it: the pooled connection's keepalive
  // does (15 s, three missed). No other call on the hostile VM meanwhile: its deadline would drop
  // the connection first and hide what the keepalive does.
  const ws = new WebSocket(
    `${server.url.replace('http', 'ws')}/v1/sandboxes/${hostile}/exec/stream?command=${encodeURIComponent(
      'echo open; nohup sh -c \'sleep 3; pkill -STOP -u "$(id -u)" -x sshd\' >/dev/null 2>&1 & sleep 3600',
    )}`,
    ['v5.channel.k8s.io'],
    { headers: { authorization: `Bearer ${key}` } },
  );
  let out = '';
  let status = '';
  ws.on('message', (m: Buffer) => {
    if (m[0] === 1) out += m.subarray(1).toString();
    if (m[0] === 3) status = m.subarray(1).toString();
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await waitFor(async () => out === 'open\n', 'the stream open', 30_000);
  const sshd = () => hostileProcesses().filter((l) => / sshd: /.test(l));
  await waitFor(
    () => sshd().length > 0 && sshd().every((l) => l.startsWith('T')),
    'its sshd sessions stopped',
    30_000,
  );
  const stoppedAt = performance.now();
  await neighbourWorks();
  expect(await closed).toBe(1011);
  expect(performance.now() - stoppedAt).toBeLessThan(SSH_KEEPALIVE_BOUND_MS);
  expect(JSON.parse(status)).toMatchObject({ status: 'Failure', reason: 'InternalError' });
  const again = await exec(hostile, 'echo back');
  expect(again.json).toMatchObject({ stdout: 'back\n' });
}, 180_000);

it('ends a screenshot of a VM whose X server stops answering (a grab) within its deadline', async () => {
  const grab = await exec(hostile, GRAB_X);
  expect(grab.json).toMatchObject({ stdout: 'grabbed\n' });
  const held = screenshot(hostile);
  let heldDone = false;
  void held.then(() => (heldDone = true));
  await neighbourWorks();
  expect(heldDone).toBe(false);
  const a = await held;
  expectJsonError(a, [504, 502]);
  expect(a.ms).toBeLessThan(SCREEN_DEADLINE_MS);
  // The grab ends with its client; the display answers again.
  await exec(hostile, UNGRAB_X);
  await waitFor(async () => (await screenshot(hostile)).status === 200, 'the display to answer again');
});

it('stops within 10 s on SIGTERM with every hostile state at once, calls held by them and a neighbour under load', async () => {
  // All of it at once in the hostile VM: its X server grabbed, a FIFO at its cookie's name, a file
  // growing without end, and (last, since it ends the VM's answers) its sshd sessions stopped.
  const armed = await exec(
    hostile,
    `${GRAB_X}; ${FIFO_AT_COOKIE}; ${growForever('grow2')}; ${stopOwnSshdIn(5)}`,
  );
  expect(armed.json).toMatchObject({ stdout: 'grabbed\nfifo\ngrowing\narmed\n' });
  await waitFor(() => sshdStopped(hostileProcesses()), 'its sshd sessions stopped', 30_000);
  // Held in flight: an exec (its channel never opens), a screenshot (the grab), a download.
  const held = [
    exec(hostile, 'echo never', 3600),
    screenshot(hostile),
    call('GET', `/v1/sandboxes/${hostile}/files?path=grow2`),
  ].map((p) => p.catch(() => undefined));
  let looping = true;
  const load = (async () => {
    while (looping) await screenshot(neighbour).catch(() => undefined);
  })();
  await neighbourWorks();
  const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve));
  const t0 = performance.now();
  server.child.kill('SIGTERM');
  const code = await exited;
  const took = performance.now() - t0;
  looping = false;
  await Promise.all([...held, load]);
  expect(took, output.split('\n').slice(-20).join('\n')).toBeLessThan(10_000);
  // The held calls were cut off: the stop says so, and exits 1.
  expect(code).toBe(1);
  expect(output).toMatch(/stopped \(SIGTERM\);.*abandoned: .*POST \/v1\/sandboxes\/sb-[0-9a-f]+\/exec/);
});
