// The public use.computer Python SDK, unchanged, against sandbay: its exact requests (built as its
// httpx and urllib send them, test/support/use-computer-wire.ts, written by us from its source)
// replayed against the API on real desktops (linux driver, real operator, real listener), asserting
// what the client reads of each answer. Its retry rule is checked on refusals a sim fleet makes on
// demand (a Mac that stops answering). docs/api.md, "The use.computer client", has each decision.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { create as tarCreate } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../crds/index.ts';
import {
  seedAccount,
  startApiStack,
  startLinuxApiStack,
  tempDir,
  waitFor,
  type ApiStack,
  type LinuxApiStack,
} from './api-harness.ts';
import {
  HttpStatusError,
  PlatformNotSupportedError,
  UseComputerWire,
  clientRetries,
  httpSend,
  injectSend,
  type MacOSSandboxFields,
  type WireAnswer,
} from './support/use-computer-wire.ts';

/** USE_COMPUTER_BASE_URL as the client was given it: it prefixes vnc_url and ssh_url with it. */
const BASE_URL = 'http://sandbay.test';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The error the client raised (raise_for_status), for asserting a refusal. */
async function refusal(
  call: Promise<unknown>,
): Promise<{ answer: WireAnswer; body: Record<string, string> }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof HttpStatusError)) throw new Error(`expected an HTTP error, got ${String(err)}`);
  return { answer: err.answer, body: JSON.parse(err.answer.body.toString('utf8')) as Record<string, string> };
}

/**
 * `Computer().create()` as a script runs it right after reserving: while the warm pool boots, the
 * answer is a 503 the client's transport retries; the test retries the same way until one is warm.
 */
async function createWhenWarm(uc: UseComputerWire, host?: string): Promise<MacOSSandboxFields> {
  return waitFor(
    async () => {
      try {
        return await uc.create(host === undefined ? {} : { host });
      } catch (err) {
        if (err instanceof HttpStatusError && clientRetries(err.answer)) return undefined;
        throw err;
      }
    },
    'a warm VM for the client',
    60_000,
  );
}

describe('the use.computer client on real desktops', () => {
  let stack: LinuxApiStack;
  let uc: UseComputerWire;
  let mac: MacOSSandboxFields;
  let id: string;
  // Sandboxes not being deleted: a sandbox an earlier test deleted goes away whenever its
  // reconciler gets to it, and must not look like a change made (or undone) by the request.
  const sandboxCount = async () =>
    (await stack.store.list<Sandbox>('Sandbox')).items.filter((s) => !s.metadata.deletionTimestamp).length;

  beforeAll(async () => {
    stack = await startLinuxApiStack('sandbay-use-computer-');
    const key = await seedAccount(stack.store, 'lab', 100_000_000);
    const fetchJson = async (method: string, url: string, body?: unknown) =>
      (
        await fetch(`${stack.base}${url}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        })
      ).json() as Promise<Record<string, unknown>>;
    await waitFor(
      async () =>
        ((await fetchJson('GET', '/v1/platforms')).models as { available_minis: number }[])[0]!
          .available_minis > 0,
      'the local Mac',
      60_000,
    );
    expect((await fetchJson('POST', '/v1/reservations', { hours: 24 })).status).toBe('active');
    uc = new UseComputerWire(httpSend(stack.base), key, BASE_URL);
    mac = await createWhenWarm(uc);
    id = mac.sandbox_id;
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  describe('create', () => {
    it('answers what MacOSSandbox reads: sandbox_id, vnc_url and ssh_url relative to the base URL, vm_ip, host', async () => {
      expect(id).toMatch(/^sb-[0-9a-f]{32}$/);
      expect(mac.vnc_url.startsWith(`${BASE_URL}/v1/sandboxes/${id}/vnc?token=`)).toBe(true);
      expect(mac.ssh_url).toBe(`${BASE_URL}/v1/sandboxes/${id}/ssh`);
      expect(mac.vm_ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(mac.host).toBe('local');
      // Computer().get(id) builds a MacOSSandbox when the type it reads is macos.
      expect(await uc.getType(id)).toBe('macos');
    });

    it('pins to a Mac of the reservation by Mini name or IP; another host is a 422 naming body/host', async () => {
      const pinned = await createWhenWarm(uc, '127.0.0.1');
      expect(pinned.host).toBe('local');
      const before = await sandboxCount();
      const outside = await refusal(uc.create({ host: 'mm009' }));
      expect(outside.answer.status).toBe(422);
      expect(outside.body).toMatchObject({ error: 'host_not_reserved' });
      expect(outside.body.message).toContain('body/host: "mm009"');
      expect(outside.body.message).toContain('local (127.0.0.1)');
      // The pinned Mac runs its two sandboxes: its own refusal.
      const full = await refusal(uc.create({ host: 'local' }));
      expect([full.answer.status, full.body.error]).toEqual([409, 'sandbox_limit_reached']);
      expect(await sandboxCount()).toBe(before);
      expect((await uc.close(pinned.sandbox_id)).status).toBe(204);
    });

    it('refuses another type with the 501 the client raises as PlatformNotSupportedError, writing nothing', async () => {
      const before = await sandboxCount();
      // An iOS create carries the simulator fields: still "not supported", not "unknown field".
      const ios = await uc
        .create(
          { type: 'ios' },
          {
            device_type: 'com.apple.CoreSimulator.SimDeviceType.iPhone-17-Pro',
            runtime: 'com.apple.CoreSimulator.SimRuntime.iOS-26-0',
          },
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(ios).toBeInstanceOf(PlatformNotSupportedError);
      expect(ios).toMatchObject({ sandboxType: 'ios', action: 'POST /v1/sandboxes' });
      expect((ios as PlatformNotSupportedError).hint).toContain('"type": "macos"');
      const other = await uc.request('POST', '/v1/sandboxes', { json: { type: 'windows' } });
      expect(other.status).toBe(501);
      expect(JSON.parse(other.body.toString('utf8'))).toMatchObject({
        error: 'not supported on windows sandbox',
        code: 'sandbox_type_not_supported',
        sandbox_type: 'windows',
        action: 'POST /v1/sandboxes',
      });
      expect(clientRetries(other)).toBe(false);
      expect(await sandboxCount()).toBe(before);
    });
  });

  describe('drive', () => {
    it('screenshot: full screen with show_cursor=false and true, region, compressed', async () => {
      for (const cursor of [false, true]) {
        const png = await uc.takeFullScreen(id, cursor);
        expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      }
      const region = await uc.takeRegion(id, 10, 20, 300, 200);
      expect(region.readUInt32BE(16)).toBe(300); // IHDR width
      expect(region.readUInt32BE(20)).toBe(200);
      const jpeg = await uc.takeCompressed(id, 'jpeg', 80, 0.5);
      expect(jpeg.headers['content-type']).toBe('image/jpeg');
    });

    it('mouse: click, move, drag, scroll answer an action result; position is top-level {x, y}', async () => {
      expect(await uc.mouse(id, 'move', { x: 321, y: 123 })).toBe('ok');
      expect(await uc.getPosition(id)).toEqual({ x: 321, y: 123 });
      expect(
        await uc.mouse(id, 'drag', { startX: 600, startY: 300, endX: 640, endY: 350, button: 'left' }),
      ).toBe('ok');
      expect(await uc.getPosition(id)).toEqual({ x: 640, y: 350 });
      expect(await uc.mouse(id, 'scroll', { x: 600, y: 300, direction: 'down', amount: 3 })).toBe('ok');
      expect(await uc.mouse(id, 'click', { x: 5, y: 700, button: 'left', double: false })).toBe('ok');
    });

    it('exec_ssh and exec_ax (POST …/exec_ax): stdout and return_code', async () => {
      expect(await uc.execSsh(id, 'echo hi')).toEqual({ return_code: 0, stdout: 'hi\n' });
      expect((await uc.execSsh(id, 'exit 3')).return_code).toBe(3);
      expect(await uc.execAx(id, 'echo ax')).toEqual({ return_code: 0, stdout: 'ax\n' });
      // exec_ax's body also takes exec's timeout (seconds).
      const slow = await uc.request('POST', `/v1/sandboxes/${id}/exec_ax`, {
        json: { command: 'sleep 30', timeout: 1 },
      });
      expect(JSON.parse(slow.body.toString('utf8'))).toMatchObject({ return_code: 124, timed_out: true });
    });

    it('keyboard: type, press and hotkey land in a real window found with get_windows (a list)', async () => {
      await uc.execSsh(
        id,
        `(setsid xterm -T uctyper -e sh -c 'read line; echo "$line" > ~/uc.txt' >/dev/null 2>&1 &)`,
      );
      type Win = { name: string; x: number; y: number; width: number; height: number; focused?: boolean };
      const typer = async () => ((await uc.getWindows(id)) as Win[]).find((w) => w.name === 'uctyper');
      const win = await waitFor(typer, 'the xterm window', 20_000);
      const center = { x: win.x + Math.round(win.width / 2), y: win.y + Math.round(win.height / 2) };
      expect(await uc.mouse(id, 'click', { ...center, button: 'left', double: false })).toBe('ok');
      await waitFor(async () => (await typer())?.focused === true, 'the xterm focused', 20_000);
      expect(await uc.keyboard(id, 'type', { text: 'hello use.computer' })).toBe('ok');
      expect(await uc.keyboard(id, 'hotkey', { keys: 'shift+z' })).toBe('ok');
      expect(await uc.keyboard(id, 'press', { key: 'return' })).toBe('ok');
      const typed = await waitFor(
        () => uc.downloadFile(id, 'uc.txt').catch(() => undefined),
        'the typed line',
        20_000,
      );
      expect(typed.toString()).toBe('hello use.computerZ\n');
      expect(await uc.keyboard(id, 'press', { key: 'a', modifiers: ['ctrl'] })).toBe('ok');
    });

    it('act: image bytes under an image/* content type, JSON without the screenshot', async () => {
      const shot = await uc.act(id, { type: 'move', x: 77, y: 88 });
      expect(shot.screenshot?.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(await uc.getPosition(id)).toEqual({ x: 77, y: 88 });
      expect(await uc.act(id, { type: 'move', x: 78, y: 88 }, false)).toEqual({
        data: { ok: true, action: 'move' },
      });
    });

    it('files: upload_bytes then download_file; a missing file is a 404 the client does not retry', async () => {
      const data = Buffer.from('hello from use.computer\n');
      await uc.uploadBytes(id, data, 'Desktop/hello.txt');
      expect((await uc.downloadFile(id, 'Desktop/hello.txt')).equals(data)).toBe(true);
      const missing = await refusal(uc.downloadFile(id, 'nope/none.txt'));
      expect([missing.answer.status, missing.body.error]).toEqual([404, 'file_not_found']);
      expect(clientRetries(missing.answer)).toBe(false);
    });

    it('upload_dir and download_dir: a tar.gz through /tmp and exec, files listed with find', async () => {
      const local = await tempDir('sandbay-uc-dir-');
      try {
        await mkdir(path.join(local.dir, 'sub'));
        await writeFile(path.join(local.dir, 'a.txt'), 'alpha\n');
        await writeFile(path.join(local.dir, 'sub', 'b.txt'), 'beta\n');
        // What its rglob + tarfile.add writes: every item by its relative name (a directory recursively).
        const chunks: Buffer[] = [];
        for await (const c of tarCreate({ gzip: true, cwd: local.dir }, ['a.txt', 'sub', 'sub/b.txt']))
          chunks.push(c as Buffer);
        const unpacked = await uc.uploadDir(id, Buffer.concat(chunks), 'uc-dest');
        expect(unpacked.return_code).toBe(0);
        const tmp = `/tmp/_use_computer_upload_${id.slice(-8)}.tar.gz`;
        expect((await uc.execSsh(id, `test -e ${tmp}; echo $?`)).stdout).toBe('1\n');
        const files = await uc.downloadDir(id, 'uc-dest');
        expect(Object.fromEntries([...files].map(([k, v]) => [k, v.toString()]))).toEqual({
          'a.txt': 'alpha\n',
          'sub/b.txt': 'beta\n',
        });
      } finally {
        await local.cleanup();
      }
    });

    it('recordings: start, stop, list, get, download, delete, read by id, status, name, filename, file_size', async () => {
      const started = await uc.recordingStart(id, 'demo');
      expect(started).toMatchObject({ status: 'recording', name: 'demo', file_size: 0 });
      expect(started.filename).toBe(`${started.id}.mp4`);
      await uc.mouse(id, 'move', { x: 400, y: 300 });
      const stopped = await uc.recordingStop(id, started.id);
      expect(stopped).toMatchObject({ id: started.id, status: 'stopped', name: 'demo' });
      expect(stopped.file_size).toBeGreaterThan(0);
      expect((await uc.recordingList(id)).map((r) => r.id)).toContain(started.id);
      expect(await uc.recordingGet(id, started.id)).toEqual(stopped);
      const mp4 = await uc.recordingDownload(id, started.id);
      expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
      expect(mp4.length).toBe(stopped.file_size);
      await uc.recordingDelete(id, started.id);
      expect((await refusal(uc.recordingGet(id, started.id))).answer.status).toBe(404);
      // Without a name the client sends `{}`.
      const unnamed = await uc.recordingStart(id);
      expect(unnamed.status).toBe('recording');
      await uc.recordingStop(id, unnamed.id);
    });

    it('display: info, get_windows as a list, accessibility.get_tree as {available, tree, error}', async () => {
      expect(await uc.displayInfo(id)).toMatchObject({
        width: 1280,
        height: 800,
        scale: 1,
        platform: 'macos',
      });
      const windows = await uc.getWindows(id);
      expect(Array.isArray(windows)).toBe(true);
      const tree = await uc.getTree(id);
      expect(tree).toMatchObject({ available: true, error: '' });
      expect(Array.isArray(tree.tree)).toBe(true);
    });

    it('keepalive: the thread’s bodiless POST (no content type) records activity', async () => {
      const at = async () =>
        (await stack.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'lab', name: id }))?.status?.lastActive;
      const before = await at();
      const answer = await uc.keepalive(id);
      expect(answer.status).toBe(200);
      const { last_active } = JSON.parse(answer.body.toString('utf8')) as { last_active: string };
      expect(last_active).not.toBe(before);
      expect(await waitFor(async () => (await at()) === last_active, 'the heartbeat stored')).toBe(true);
    });

    it('close: DELETE answers 204; the gone sandbox then answers 404, which the client does not retry', async () => {
      expect((await uc.close(id)).status).toBe(204);
      const gone = await refusal(uc.takeFullScreen(id));
      expect([gone.answer.status, gone.body.error]).toEqual([404, 'sandbox_not_found']);
      expect(clientRetries(gone.answer)).toBe(false);
    });
  });
});

describe('the use.computer client’s retry rule on a Mac that stops answering (sim fleet)', () => {
  let s: ApiStack;
  let uc: UseComputerWire;

  beforeAll(async () => {
    s = await startApiStack([{ name: 'mini-1' }]);
    const key = await seedAccount(s.f.store, 'lab', 100_000_000);
    await s.reserve(key);
    uc = new UseComputerWire(injectSend(s.app), key, BASE_URL);
  });

  afterAll(async () => {
    await s?.cleanup();
  });

  it(
    'answers transient failures with bodies it retries, the gone sandbox with one it does not',
    { timeout: 90_000 },
    async () => {
      const a = await uc.create();
      const b = await uc.create();
      s.f.sim.failHost(s.f.addressOf('mini-1'));
      // The Mac stopped answering: a call on a running sandbox is a 502 worth retrying …
      const unreachable = await uc.request('GET', `/v1/sandboxes/${b.sandbox_id}/screenshot`, {
        params: { show_cursor: false },
      });
      expect(unreachable.status).toBe(502);
      expect(clientRetries(unreachable)).toBe(true);
      // … and best_effort's tree is an answer, not a failure it would retry.
      expect(await uc.getTree(b.sandbox_id)).toMatchObject({
        available: false,
        tree: null,
        error: expect.stringContaining('guest_unreachable'),
      });
      const tree = await uc.request('GET', `/v1/sandboxes/${b.sandbox_id}/display/windows`, {
        params: { best_effort: '1' },
      });
      expect(tree.status).toBe(200);
      // A deleted sandbox's VM cannot be re-cloned while the Mac is away: a create is a 503 to retry.
      expect((await uc.close(a.sandbox_id)).status).toBe(204);
      await s.f.released('lab', a.sandbox_id);
      const noVm = await uc.request('POST', '/v1/sandboxes', { json: { type: 'macos' } });
      expect([noVm.status, JSON.parse(noVm.body.toString('utf8')).error]).toEqual([503, 'no_warm_vm']);
      expect(clientRetries(noVm)).toBe(true);
      // What a later retry gets once the Mac is back. The pool's VM reconciles failed while it was
      // away, each retry twice as late as the one before (capped at 30 s: DEFAULT_BACKOFF); how many
      // failed depends on how long the calls above took, so the wait covers the cap.
      s.f.sim.recoverHost(s.f.addressOf('mini-1'));
      await s.f.poolsReady(undefined, { timeoutMs: 45_000 });
      expect((await uc.create()).host).toBe('mini-1');
      // The gone sandbox is a 404: never retried.
      const gone = await uc.request('POST', `/v1/sandboxes/${a.sandbox_id}/exec`, {
        json: { command: 'true' },
      });
      expect(gone.status).toBe(404);
      expect(clientRetries(gone)).toBe(false);
    },
  );
});

describe('the use.computer client’s host pin on a reservation of two Macs (sim fleet)', () => {
  let s: ApiStack;
  let uc: UseComputerWire;

  beforeAll(async () => {
    s = await startApiStack([{ name: 'mini-1' }, { name: 'mini-2' }]);
    const key = await seedAccount(s.f.store, 'lab', 100_000_000);
    await s.reserve(key, { mini_count: 2 });
    uc = new UseComputerWire(injectSend(s.app), key, BASE_URL);
  });

  afterAll(async () => {
    await s?.cleanup();
  });

  it('the reconciler binds on the pinned Mac, by Mini name or IP, against its own preference', async () => {
    // Unpinned, the tie between two idle Macs breaks to mini-1 (docs/capacity.md).
    const free = await uc.create();
    expect(free.host).toBe('mini-1');
    await uc.close(free.sandbox_id);
    await s.f.released('lab', free.sandbox_id);
    await s.f.poolsReady();
    const byName = await uc.create({ host: 'mini-2' });
    expect(byName.host).toBe('mini-2');
    const byIp = await uc.create({ host: s.f.addressOf('mini-2') });
    expect(byIp.host).toBe('mini-2');
    const stored = await s.f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'lab', name: byIp.sandbox_id });
    expect(stored?.spec.host).toBe(s.f.addressOf('mini-2'));
    expect(stored?.status?.mini).toBe('mini-2');
    // mini-2 runs its two: a third pinned there is refused though mini-1 is idle.
    const full = await uc.request('POST', '/v1/sandboxes', { json: { type: 'macos', host: 'mini-2' } });
    expect([full.status, JSON.parse(full.body.toString('utf8')).error]).toEqual([
      409,
      'sandbox_limit_reached',
    ]);
    expect((await uc.create()).host).toBe('mini-1');
    // A pool sandbox takes no pin: the pool's Macs are not the caller's to name.
    const pool = await uc.request('POST', '/v1/sandboxes', { json: { host: 'mini-1', pool: true } });
    expect([pool.status, JSON.parse(pool.body.toString('utf8')).message]).toEqual([
      400,
      'body/host pins a Mac of a reservation; pool sandboxes take none.',
    ]);
  });
});
