// @sandbay/sdk against a live sandbay on the linux driver: every method of the client and of a
// sandbox, checked by its effect (the pointer moved, the text typed, the bytes read back), plus the
// retry, timeout, idempotency and dispose policies seen from outside through a real proxy.
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveSandbay, waitForWarmVm, type LiveSandbay } from '../../../test/support/live-sandbay.ts';
import { expectValidAtif } from '../../../test/support/atif.ts';
import { waitFor } from '../../../test/support/wait.ts';
import { seedTask } from '../../../test/task-fixtures.ts';
import {
  Client,
  SandbayConnectionError,
  SandbayError,
  SandbayTimeoutError,
  readTar,
  type Sandbox,
  type WindowTree,
} from '../src/index.ts';
import { startFlakyProxy, type FlakyProxy } from './flaky-proxy.ts';

let live: LiveSandbay;
let client: Client;
let sb: Sandbox;
let local: string;
let proxy: FlakyProxy;
const requests: string[] = [];

/** The runtime's fetch, with every request's `METHOD path` noted (to count keepalive heartbeats). */
const countingFetch: typeof fetch = (input, init) => {
  requests.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
  return fetch(input, init);
};

beforeAll(async () => {
  live = await startLiveSandbay('sdkts', { reserve: false });
  client = new Client({ apiKey: live.accountKey, baseUrl: live.url, fetch: countingFetch });
  local = await mkdtemp(path.join(tmpdir(), 'sandbay-sdkts-local-'));
  proxy = await startFlakyProxy(live.url);
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await live?.close();
  if (local) await rm(local, { recursive: true, force: true });
}, 60_000);

type WindowNode = WindowTree[number];

describe('account: reservations and platforms', () => {
  it('reserve, get, list, edit, myReservation (with the reservation key), platforms, health', async () => {
    expect((await client.health()).status).toBe('ok');
    const reservation = await client.reserve({ hours: 24 });
    expect(reservation).toMatchObject({ status: 'active', hours: 24, mac_model: 'm4', vm_layout: 'split' });
    expect((await client.getReservation(reservation.id)).id).toBe(reservation.id);
    expect((await client.listReservations()).map((r) => r.id)).toEqual([reservation.id]);
    expect((await client.editReservation(reservation.id, { hours: 48 })).hours).toBe(48);
    const byKey = new Client({ apiKey: reservation.key, baseUrl: live.url });
    expect((await byKey.myReservation()).id).toBe(reservation.id);
    const platforms = await client.platforms({ reservationId: reservation.id });
    expect(platforms.reservation?.id).toBe(reservation.id);
    // Typed errors carry the API's code: the only Mac is taken now.
    const refused = await client.reserve({ hours: 24 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SandbayError);
    expect(refused).toMatchObject({ status: 409, code: 'minis_unavailable' });
    await waitForWarmVm(live.url, live.accountKey);
  }, 180_000);
});

describe('a sandbox', () => {
  it('create: ephemeral by default, with an Idempotency-Key; get and list see it', async () => {
    sb = await client.create({ host: 'local' });
    expect(sb.ephemeral).toBe(true);
    const info = await sb.info();
    expect(info).toMatchObject({
      sandbox_id: sb.id,
      state: 'running',
      ephemeral: true,
      type: 'macos',
      host: 'local',
    });
    expect((await client.get(sb.id)).id).toBe(sb.id);
    expect((await client.list()).map((s) => s.sandbox_id)).toContain(sb.id);
    const missing = await client.get(`sb-${'0'.repeat(32)}`).catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'sandbox_not_found' });
  }, 120_000);

  it('startKeepalive sends heartbeats on a timer until stopKeepalive', async () => {
    const beats = () => requests.filter((r) => r === `POST /v1/sandboxes/${sb.id}/keepalive`).length;
    expect((await sb.keepalive()).sandbox_id).toBe(sb.id);
    const before = beats();
    sb.startKeepalive({ intervalMs: 50 });
    await waitFor(() => beats() >= before + 3, 'three heartbeats');
    sb.stopKeepalive();
    const stopped = beats();
    // The rest of the suite keeps the sandbox alive with the default interval.
    sb.startKeepalive();
    await sb.display.getInfo(); // one round trip: an interval tick still due would have been sent by now
    expect(beats()).toBeLessThanOrEqual(stopped + 1);
  });

  it('screenshot: full screen, region, compressed', async () => {
    expect(await sharp(await sb.screenshot.takeFullScreen()).metadata()).toMatchObject({
      format: 'png',
      width: 1280,
      height: 800,
    });
    await sb.screenshot.takeFullScreen({ showCursor: true });
    expect(await sharp(await sb.screenshot.takeRegion(10, 20, 300, 200)).metadata()).toMatchObject({
      width: 300,
      height: 200,
    });
    expect(
      await sharp(await sb.screenshot.takeCompressed({ quality: 50, scale: 0.5 })).metadata(),
    ).toMatchObject({ format: 'jpeg', width: 640, height: 400 });
    expect((await sharp(await sb.screenshot.takeCompressed({ format: 'png' })).metadata()).format).toBe(
      'png',
    );
  });

  it('mouse: move, click, double click, drag, scroll, position', async () => {
    // After a click the window manager may hold the pointer a moment (click-to-focus grabs it
    // synchronously): the X server moves it once released, so the position is awaited.
    const pointerAt = (x: number, y: number) =>
      waitFor(async () => {
        const p = await sb.mouse.getPosition();
        return p.x === x && p.y === y;
      }, `the pointer at ${x},${y}`);
    expect(await sb.mouse.move(321, 123)).toEqual({ ok: true });
    await pointerAt(321, 123);
    // On the wallpaper, away from the panel at the top (its Applications menu would take the focus).
    await sb.mouse.click(600, 500);
    await pointerAt(600, 500);
    await sb.mouse.doubleClick(610, 510);
    await pointerAt(610, 510);
    await sb.mouse.drag(600, 300, 640, 350);
    await pointerAt(640, 350);
    expect(await sb.mouse.scroll(600, 300, { direction: 'down', amount: 2 })).toEqual({ ok: true });
    await pointerAt(600, 300);
  });

  it('keyboard: type, press and hotkey land in a real window; display and accessibility see it', async () => {
    await sb.exec(
      `(setsid xterm -T typer -e sh -c 'read line; echo "$line" > ~/typed.txt' >/dev/null 2>&1 &)`,
    );
    const typer = async (): Promise<WindowNode | undefined> =>
      (await sb.display.getWindows()).find((w) => w.name === 'typer');
    const win = await waitFor(typer, 'the xterm window', 20_000);
    const tree = await sb.accessibility.getTree();
    expect(tree.available).toBe(true);
    expect(tree.tree?.some((w) => w.name === 'typer')).toBe(true);
    await sb.mouse.click(win.x + Math.round(win.width / 2), win.y + Math.round(win.height / 2));
    await waitFor(async () => (await typer())?.focused === true, 'the xterm focused', 20_000);
    expect(await sb.keyboard.type('hello', { delay: 5 })).toEqual({ ok: true });
    expect(await sb.keyboard.hotkey(['shift', 'a'])).toEqual({ ok: true });
    expect(await sb.keyboard.press('return')).toEqual({ ok: true });
    const typed = await waitFor(
      () =>
        sb.downloadBytes('typed.txt').then(
          (b) => new TextDecoder().decode(b),
          () => undefined,
        ),
      'the typed line',
      20_000,
    );
    expect(typed).toBe('helloA\n');
    expect(await sb.keyboard.press('a', { modifiers: ['ctrl'] })).toEqual({ ok: true });
    expect(await sb.display.getInfo()).toEqual({ width: 1280, height: 800, scale: 1, platform: 'macos' });
  });

  it('act: the action, then a PNG; or JSON without the screenshot', async () => {
    const png = await sb.act({ type: 'move', x: 77, y: 88 });
    expect((await sharp(png).metadata()).width).toBe(1280);
    expect(await sb.mouse.getPosition()).toEqual({ x: 77, y: 88 });
    expect(await sb.act({ type: 'click', x: 600, y: 500 }, { screenshotAfter: false })).toEqual({
      ok: true,
      action: 'click',
    });
    const bad = await sb.act({ type: 'move', x: -1, y: 0 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('exec, execAx and execSsh: output, return code, timeout', async () => {
    expect(await sb.exec('echo hi; echo err >&2')).toEqual({
      stdout: 'hi\n',
      stderr: 'err\n',
      return_code: 0,
      timed_out: false,
    });
    expect((await sb.exec('exit 3')).return_code).toBe(3);
    expect(await sb.exec('sleep 30', { timeout: 1 })).toMatchObject({ timed_out: true, return_code: 124 });
    expect((await sb.execAx('echo ax')).stdout).toBe('ax\n');
    const creds = await sb.sshCredentials();
    expect(creds.ssh_url).toBe(`/v1/sandboxes/${sb.id}/ssh`);
    const ssh = await sb.execSsh('whoami; echo e >&2; exit 4');
    expect(ssh).toEqual({ stdout: `${creds.username}\n`, stderr: 'e\n', return_code: 4, timed_out: false });
  });

  it('files: upload, uploadBytes, downloadFile, downloadBytes', async () => {
    const data = crypto.getRandomValues(new Uint8Array(50_000));
    await writeFile(path.join(local, 'blob.bin'), data);
    await sb.upload(path.join(local, 'blob.bin'), 'up/blob.bin');
    expect(Buffer.from(await sb.downloadBytes('up/blob.bin')).equals(Buffer.from(data))).toBe(true);
    await sb.uploadBytes('text ✓', 'up/text.txt');
    await sb.downloadFile('up/text.txt', path.join(local, 'got', 'text.txt'));
    expect(await readFile(path.join(local, 'got', 'text.txt'), 'utf8')).toBe('text ✓');
    const missing = await sb.downloadBytes('nope/none').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'file_not_found' });
  });

  it('directories: uploadDir and downloadDir as tar streams (long names too); raw tar both ways', async () => {
    const long = `${'deep/'.repeat(25)}name-${'x'.repeat(120)}.txt`;
    const src = path.join(local, 'tree');
    await mkdir(path.join(src, path.dirname(long)), { recursive: true });
    await mkdir(path.join(src, 'empty'));
    await writeFile(path.join(src, 'a.txt'), 'alpha');
    await writeFile(path.join(src, long), 'long');
    await sb.uploadDir(src, 'tree');
    expect((await sb.exec('cat ~/tree/a.txt; test -d ~/tree/empty && echo dir')).stdout).toBe('alphadir\n');
    const written = await sb.downloadDir('tree', path.join(local, 'back'));
    expect(written.sort()).toEqual(['a.txt', long].sort());
    expect(await readFile(path.join(local, 'back', long), 'utf8')).toBe('long');
    const names: string[] = [];
    await readTar(await sb.downloadTar('tree'), async (e) => void names.push(e.name));
    expect(names).toContain('a.txt');
    await sb.uploadTar(await sb.downloadTar('tree'), 'tree2');
    expect((await sb.exec('cat ~/tree2/a.txt')).stdout).toBe('alpha');
  });

  it('recording: start, stop, listAll, get, download, delete', async () => {
    const started = await sb.recording.start({ name: 'demo' });
    expect(started).toMatchObject({ name: 'demo', state: 'recording' });
    await sb.mouse.move(400, 300);
    expect(await sb.recording.stop(started.id)).toMatchObject({ id: started.id, state: 'stopped' });
    expect((await sb.recording.listAll()).map((r) => r.id)).toContain(started.id);
    expect((await sb.recording.get(started.id)).state).toBe('stopped');
    await sb.recording.download(started.id, path.join(local, 'demo.mp4'));
    const mp4 = await readFile(path.join(local, 'demo.mp4'));
    expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    await sb.recording.delete(started.id);
    expect(await sb.recording.get(started.id).catch((e: unknown) => e)).toMatchObject({
      code: 'recording_not_found',
    });
  });

  it('viewerLink: the live-view page and an absolute VNC WebSocket URL with a token', async () => {
    const link = await sb.viewerLink();
    expect(link.url).toBe(`${live.url}/view/${sb.id}?token=${encodeURIComponent(link.token)}`);
    expect(link.websocket_url).toBe(`${live.url.replace('http', 'ws')}${link.vnc_url}`);
    expect(Date.parse(link.expires_at)).toBeGreaterThan(Date.now());
  });

  it('revokeViewerLinks: links minted before are refused (401), the next one opens', async () => {
    const before = await sb.viewerLink();
    expect(await upgradeStatus(before.websocket_url)).toBe(101);
    await sb.revokeViewerLinks();
    expect(await upgradeStatus(before.websocket_url)).toBe(401);
    expect(await upgradeStatus((await sb.viewerLink()).websocket_url)).toBe(101);
  });
});

/** The answer to a WebSocket upgrade at `url`: 101 when it opened (then closed again), else the status. */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', (err) => reject(err));
  });
}

describe('policies', () => {
  it('retries a GET after a connection reset and a 503; never a POST without a key', async () => {
    const viaProxy = new Client({ apiKey: live.accountKey, baseUrl: proxy.url });
    const sp = await viaProxy.get(sb.id);
    proxy.forwarded.length = 0;
    proxy.failNext(1, 'reset');
    expect((await sp.display.getInfo()).width).toBe(1280);
    proxy.failNext(2, '503');
    expect((await sp.mouse.getPosition()).x).toBeTypeOf('number');
    expect(proxy.forwarded).toEqual([
      `GET /v1/sandboxes/${sb.id}/display/info`,
      `GET /v1/sandboxes/${sb.id}/mouse/position`,
    ]);
    proxy.failNext(1, 'reset');
    const click = await sp.mouse.click(600, 500).catch((e: unknown) => e);
    expect(click).toBeInstanceOf(SandbayConnectionError);
    proxy.failNext(1, '503');
    expect(await sp.mouse.move(6, 6).catch((e: unknown) => e)).toMatchObject({ status: 503 });
    expect(proxy.forwarded).toHaveLength(2); // neither POST reached the server
  });

  it('a call past its timeout is a SandbayTimeoutError', async () => {
    // A listener that accepts and never answers: the call can only end by its timeout.
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const mute = new Client({
        apiKey: live.accountKey,
        baseUrl: `http://127.0.0.1:${port}`,
        timeoutMs: 200,
      });
      const err = await mute.get(sb.id).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SandbayTimeoutError);
      expect(err).toMatchObject({ code: 'timeout', timeoutMs: 200 });
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('the built package runs on Node 20 (the machine’s /usr/bin/node) with fetch alone', async () => {
    const pkg = path.join(import.meta.dirname, '..');
    // Asynchronously: the server under test runs in this process.
    const run = promisify(execFile);
    await run(path.join(pkg, '..', '..', 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
      cwd: pkg,
    });
    const script = `import { Client } from ${JSON.stringify(path.join(pkg, 'dist', 'index.js'))};
const sb = await new Client().get(process.argv[1]);
const png = await sb.screenshot.takeFullScreen();
console.log(process.version.split('.')[0], png.length > 1000, (await sb.exec('echo n20')).stdout.trim());`;
    const { stdout: out } = await run('/usr/bin/node', ['--input-type=module', '-e', script, sb.id], {
      env: { ...process.env, SANDBAY_API_KEY: live.accountKey, SANDBAY_URL: live.url },
    });
    expect(out.trim()).toMatch(/^v\d+ true n20$/);
  }, 120_000);
});

describe('snapshots, restore, dispose', () => {
  it('snapshot, snapshots, getSnapshot, restore into an ephemeral sandbox that `await using` deletes', async () => {
    await sb.uploadBytes('kept', 'state.txt');
    const snap = await sb.snapshot('v1');
    expect(snap).toMatchObject({ name: 'v1', sandbox_id: sb.id, status: 'ready' });
    expect((await sb.snapshots()).map((s) => s.version)).toEqual([snap.version]);
    expect((await client.snapshots()).map((s) => s.version)).toContain(snap.version);
    expect((await client.snapshots({ sandboxId: sb.id })).map((s) => s.version)).toEqual([snap.version]);
    expect((await client.getSnapshot(snap.version)).status).toBe('ready');
    // A restore takes a free VM: the pool may still be cloning one after an earlier test's delete.
    await waitForWarmVm(live.url, live.accountKey);
    let restoredId: string;
    {
      await using restored = await client.restore(snap.version);
      restoredId = restored.id;
      expect(new TextDecoder().decode(await restored.downloadBytes('state.txt'))).toBe('kept');
    }
    expect(await client.get(restoredId).catch((e: unknown) => e)).toMatchObject({ status: 404 });
    await client.deleteSnapshot(snap.version);
    expect(await client.getSnapshot(snap.version).catch((e: unknown) => e)).toMatchObject({
      code: 'snapshot_not_found',
    });
  }, 600_000);

  it('a create retried with the same key returns the same sandbox; a non-ephemeral one survives dispose', async () => {
    await waitForWarmVm(live.url, live.accountKey);
    const a = await client.create({ ephemeral: false, idempotencyKey: 'sdk-test-create' });
    const b = await client.create({ ephemeral: false, idempotencyKey: 'sdk-test-create' });
    expect(b.id).toBe(a.id);
    await a[Symbol.asyncDispose]();
    expect((await a.info()).state).toBe('running');
    await a.delete();
    expect(await a.info().catch((e: unknown) => e)).toMatchObject({ status: 404 });
  }, 300_000);
});

describe('fork and pause', () => {
  it('fork: a running copy of the disk, all or none; pause and resume: 409 sandbox_paused meanwhile', async () => {
    await sb.uploadBytes('before the fork', 'fork.txt');
    await waitForWarmVm(live.url, live.accountKey);
    const { source_id, sandboxes, forks } = await sb.fork(1);
    expect(source_id).toBe(sb.id);
    expect(sandboxes[0]).toMatchObject({ fork_of: sb.id, boot: 'cold', ephemeral: true });
    const [fork] = forks;
    expect((await fork!.info()).state).toBe('running');
    expect(new TextDecoder().decode(await fork!.downloadBytes('fork.txt'))).toBe('before the fork');
    expect((await fork!.exec('echo from the fork')).stdout).toBe('from the fork\n');
    // The local Mac runs two sandboxes: a second fork does not fit, and none is made.
    expect(await sb.fork(1).catch((e: unknown) => e)).toMatchObject({
      status: 409,
      code: 'sandbox_limit_reached',
    });
    await fork!.delete();

    const paused = await sb.pause();
    expect(paused).toMatchObject({ state: 'paused' });
    expect(paused.paused_at).not.toBeNull();
    expect(await sb.exec('true').catch((e: unknown) => e)).toMatchObject({
      status: 409,
      code: 'sandbox_paused',
    });
    expect(await sb.pause().catch((e: unknown) => e)).toMatchObject({ code: 'sandbox_paused' });
    expect((await sb.resume()).state).toBe('running');
    expect((await sb.exec('echo awake')).stdout).toBe('awake\n');
    expect(await sb.resume().catch((e: unknown) => e)).toMatchObject({ code: 'sandbox_not_paused' });
  }, 300_000);
});

describe('network', () => {
  it('network and setEgress: the policy in force, a wider one than the Mac allows refused, bad input refused', async () => {
    // The local Mac keeps its VMs offline (no --vm-outbound-nat): it enforces `none` alone.
    expect(await sb.network()).toMatchObject({ egress: { mode: 'none' }, modes: ['none'] });
    expect((await sb.setEgress({ mode: 'none' })).egress).toEqual({ mode: 'none', allow: [] });
    expect(await sb.setEgress({ mode: 'all' }).catch((e: unknown) => e)).toMatchObject({
      status: 422,
      code: 'egress_not_allowed',
    });
    // A rule that does not parse, and a range no sandbox reaches, are bad input.
    for (const rule of ['not a rule!', '10.0.0.0/8']) {
      expect(await sb.setEgress({ mode: 'allow', allow: [rule] }).catch((e: unknown) => e)).toMatchObject({
        status: 400,
        code: 'invalid_egress',
      });
    }
    expect((await sb.network()).egress).toEqual({ mode: 'none', allow: [] });
  }, 120_000);
});

describe('trajectories', () => {
  it('tasks: list, get, trajectory, download, recording, stepScreenshot, replay and its status', async () => {
    await seedTask(live.store, live.blobs, live.account, 'hello', {
      instruction: 'write a file',
      setupScript: 'echo set > ~/setup.txt',
      grader: 'test -f ~/setup.txt',
      steps: [{ function: 'move', args: { x: 10, y: 10 } }],
      recording: Buffer.from('\0\0\0\x18ftypisom'),
    });
    expect((await client.tasks.list()).map((t) => t.id)).toEqual(['hello']);
    expect((await client.tasks.get('hello')).steps).toHaveLength(1);
    // ATIF: the instruction as a user step, then the one recorded action.
    const trajectory = await client.tasks.trajectory('hello');
    expectValidAtif(trajectory);
    expect(trajectory.steps.map((s) => s.source)).toEqual(['user', 'agent']);
    const zip = await client.tasks.download('hello');
    expect(new TextDecoder().decode(zip.subarray(0, 2))).toBe('PK');
    const files = unzipSync(zip);
    expectValidAtif(JSON.parse(new TextDecoder().decode(files['trajectory.json'])), Object.keys(files));
    expect(new TextDecoder().decode((await client.tasks.recording('hello')).subarray(4, 8))).toBe('ftyp');
    expect((await sharp(await client.tasks.stepScreenshot('hello', 0)).metadata()).format).toBe('png');
    await waitForWarmVm(live.url, live.accountKey);
    const replay = await client.tasks.replay('hello');
    expect(replay).toMatchObject({ task_id: 'hello', steps_total: 1 });
    const done = await client.tasks.waitForReplay(replay.id, { timeoutMs: 300_000, pollMs: 200 });
    expect(done).toMatchObject({ status: 'completed', reward: 1, steps_done: 1 });
  }, 400_000);

  it('setup and grading: uploaded blobs, steps, graders, a task’s setup and grader', async () => {
    const blob = await client.uploadBlob('ts blob\n', { filename: 'ts.txt' });
    expect(blob).toMatchObject({ bytes: 8, filename: 'ts.txt' });
    expect((await client.blobs()).map((b) => b.blob_id)).toContain(blob.blob_id);
    expect((await client.getBlob(blob.blob_id)).sha256).toBe(blob.sha256);
    const done = await sb.setup(
      [
        { type: 'download', blob: blob.blob_id, path: 'tsblob.txt' },
        { type: 'launch', command: ['xterm', '-T', 'tseval', '-e', 'sh'], wait_for: { name: 'tseval' } },
        { type: 'command', command: 'cat ~/tsblob.txt', expect: { stdout_equals: 'ts blob' } },
      ],
      { timeoutS: 120 },
    );
    expect(done).toMatchObject({ status: 'completed', failed_step: null });
    expect(done.steps.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
    const failed = await sb.setup([{ type: 'download', url: 'http://127.0.0.1:1/x', path: 'x' }]);
    expect(failed).toMatchObject({ status: 'failed', failed_step: 0 });
    expect(failed.message).toMatch(/refused to fetch http:\/\/127\.0\.0\.1:1\/x: .*not a public address/);
    const bad = await sb.setup([{ type: 'warp' } as never]).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_setup_step' });
    const graded = await sb.grade({
      combine: 'any',
      checks: [
        { type: 'file', path: 'nope.txt' },
        { type: 'window', match: { name: 'tseval' }, score: 0.75 },
      ],
    });
    expect(graded.reward).toBe(0.75);
    expect(graded.checks.map((c) => c.passed)).toEqual([false, true]);
    expect((await sb.grade('test -f ~/tsblob.txt')).reward).toBe(1);
    // The seeded task: setup script `echo set > ~/setup.txt`, grader `test -f ~/setup.txt`.
    expect((await sb.setupTask('hello')).status).toBe('completed');
    expect((await sb.gradeTask('hello')).reward).toBe(1);
    await client.deleteBlob(blob.blob_id);
    expect(await client.getBlob(blob.blob_id).catch((e: unknown) => e)).toMatchObject({
      status: 404,
      code: 'blob_not_found',
    });
  }, 180_000);

  it('dispose of the ephemeral sandbox deletes it', async () => {
    await sb[Symbol.asyncDispose]();
    expect(await client.get(sb.id).catch((e: unknown) => e)).toMatchObject({ code: 'sandbox_not_found' });
  });
});
