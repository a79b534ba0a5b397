// The customer API's data plane, endpoint by endpoint, on real desktops: the linux driver under the
// real operator, the API on a real listener. Screenshots are decoded, files read back, keystrokes
// land in a real xterm, SSH runs through the WebSocket with ssh2, and a full RFB session opens with
// the viewer link alone.
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { Client as SshClient } from 'ssh2';
import { WebSocket, createWebSocketStream } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Sandbox } from '../crds/index.ts';
import type { WindowNode } from '../hosts/driver.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { RfbClient } from './api-rfb-client.ts';
import { seedAccount, startLinuxApiStack, waitFor, type LinuxApiStack } from './api-harness.ts';

let stack: LinuxApiStack;
let store: SqliteStore;
let app: FastifyInstance;
let base: string;
let key: string;
let sb: string;

async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body);
    if (!headers['content-type'])
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${url}`, init);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}
const json = (r: { bytes: Buffer }) => JSON.parse(r.bytes.toString('utf8'));
const on = (rest: string) => `/v1/sandboxes/${sb}${rest}`;

beforeAll(async () => {
  stack = await startLinuxApiStack('sandbay-api-linux-');
  ({ store, app, base } = stack);
  key = await seedAccount(store, 'desk', 100_000_000);
  // A fresh install: the local Mac is for sale once the operator has probed it.
  await waitFor(
    async () => json(await api('GET', '/v1/platforms')).models[0].available_minis > 0,
    'the local Mac',
    60_000,
  );
  const r = await api('POST', '/v1/reservations', { hours: 24 });
  expect(json(r).status, r.bytes.toString()).toBe('active');
  const created = await waitFor(
    async () => {
      const c = await api('POST', '/v1/sandboxes', {});
      return c.status === 201 ? json(c) : undefined;
    },
    'a warm VM to take',
    60_000,
  );
  sb = created.sandbox_id;
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

describe('screenshots', () => {
  it('full screen: a 1280×800 PNG, with or without the cursor', async () => {
    for (const q of ['', '?show_cursor=true']) {
      const r = await api('GET', on(`/screenshot${q}`));
      expect([r.status, r.type]).toEqual([200, 'image/png']);
      expect(await sharp(r.bytes).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    }
  });

  it('region: a PNG of exactly the region', async () => {
    const r = await api('GET', on('/screenshot/region?x=10&y=20&width=300&height=200'));
    expect(r.type).toBe('image/png');
    expect(await sharp(r.bytes).metadata()).toMatchObject({ width: 300, height: 200 });
  });

  it('compressed: JPEG by default, scaled; PNG on request', async () => {
    const jpeg = await api('GET', on('/screenshot/compressed?quality=50&scale=0.5'));
    expect(jpeg.type).toBe('image/jpeg');
    expect(await sharp(jpeg.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 400 });
    const png = await api('GET', on('/screenshot/compressed?format=png'));
    expect(png.type).toBe('image/png');
  });
});

describe('mouse, keyboard, act, display', () => {
  it('moves the cursor where asked and reports it', async () => {
    expect(json(await api('POST', on('/mouse/move'), { x: 321, y: 123 }))).toEqual({ ok: true });
    expect(json(await api('GET', on('/mouse/position')))).toEqual({ x: 321, y: 123 });
    // A right click on the desktop opens its menu, which grabs pointer and keyboard: left open, the
    // drag below would release over one of its items and launch an app that then takes the focus
    // from the next test's window. So: see it open, close it, see it gone. (All of this happens on
    // the wallpaper, away from the panel at the top, whose Applications button a drag would open.)
    const corner = on('/screenshot/region?x=640&y=400&width=200&height=120');
    const bare = (await api('GET', corner)).bytes;
    expect((await api('POST', on('/mouse/click'), { x: 645, y: 406, button: 'right' })).status).toBe(200);
    await waitFor(async () => !(await api('GET', corner)).bytes.equals(bare), 'the desktop menu', 10_000);
    expect((await api('POST', on('/keyboard/press'), { key: 'escape' })).status).toBe(200);
    await waitFor(
      async () => (await api('GET', corner)).bytes.equals(bare),
      'the desktop menu closed',
      10_000,
    );
    expect(
      (await api('POST', on('/mouse/drag'), { startX: 600, startY: 300, endX: 640, endY: 350 })).status,
    ).toBe(200);
    expect(json(await api('GET', on('/mouse/position')))).toEqual({ x: 640, y: 350 });
    expect(
      (await api('POST', on('/mouse/scroll'), { x: 600, y: 300, direction: 'down', amount: 2 })).status,
    ).toBe(200);
  });

  it('types into a real window', async () => {
    await api('POST', on('/exec'), {
      command: '(setsid xterm -T typer -e sh -c \'read line; echo "$line" > ~/typed.txt\' >/dev/null 2>&1 &)',
    });
    const typer = async (): Promise<WindowNode | undefined> =>
      (json(await api('GET', on('/display/windows'))) as WindowNode[]).find((w) => w.name === 'typer');
    const win = await waitFor(typer, 'the xterm window', 20_000);
    // Mapped is not focused: keys sent before the window manager hands it the focus land elsewhere,
    // and a window manager may not focus a new window right after other input. Click it, then wait.
    const center = { x: win.x + Math.round(win.width / 2), y: win.y + Math.round(win.height / 2) };
    expect((await api('POST', on('/mouse/click'), center)).status).toBe(200);
    await waitFor(async () => (await typer())?.focused === true, 'the xterm focused', 20_000);
    expect(json(await api('POST', on('/keyboard/type'), { text: 'hello sandbay' }))).toEqual({ ok: true });
    expect((await api('POST', on('/keyboard/press'), { key: 'return' })).status).toBe(200);
    const typed = await waitFor(
      async () => {
        const r = await api('GET', on('/files?path=typed.txt'));
        return r.status === 200 ? r.bytes.toString() : undefined;
      },
      'the typed line',
      20_000,
    );
    expect(typed).toBe('hello sandbay\n');
    expect((await api('POST', on('/keyboard/hotkey'), { keys: 'ctrl+a' })).status).toBe(200);
  });

  it('act: performs the action, then returns a PNG; or JSON without the screenshot', async () => {
    const png = await api('POST', on('/act'), { action: { type: 'move', x: 77, y: 88 } });
    expect(png.type).toBe('image/png');
    expect(await sharp(png.bytes).metadata()).toMatchObject({ width: 1280, height: 800 });
    expect(json(await api('GET', on('/mouse/position')))).toEqual({ x: 77, y: 88 });
    const plain = await api('POST', on('/act'), {
      action: { type: 'click', x: 1, y: 1 },
      screenshot_after: false,
    });
    expect(json(plain)).toEqual({ ok: true, action: 'click' });
  });

  it('display info and the window tree', async () => {
    expect(json(await api('GET', on('/display/info')))).toEqual({
      width: 1280,
      height: 800,
      scale: 1,
      platform: 'macos',
    });
    const windows = json(await api('GET', on('/display/windows')));
    expect(Array.isArray(windows)).toBe(true);
    expect(json(await api('GET', on('/display/windows?best_effort=1')))).toMatchObject({
      available: true,
      error: '',
      tree: expect.any(Array),
    });
  });
});

describe('shell and files', () => {
  it('exec: stdout, return code, timeout', async () => {
    expect(json(await api('POST', on('/exec'), { command: 'echo hi; echo err >&2' }))).toEqual({
      stdout: 'hi\n',
      stderr: 'err\n',
      return_code: 0,
      timed_out: false,
    });
    expect(json(await api('POST', on('/exec'), { command: 'exit 3' })).return_code).toBe(3);
    const slow = json(await api('POST', on('/exec'), { command: 'sleep 30', timeout: 1 }));
    expect(slow).toMatchObject({ timed_out: true, return_code: 124 });
  });

  it('files: bytes in, the same bytes out; missing files 404', async () => {
    const data = randomBytes(200_000);
    const put = await api('PUT', on('/files?path=dir/blob.bin'), data, {
      'content-type': 'application/octet-stream',
    });
    expect(put.status).toBe(204);
    const got = await api('GET', on('/files?path=dir/blob.bin'));
    expect([got.status, got.type]).toEqual([200, 'application/octet-stream']);
    expect(got.bytes.equals(data)).toBe(true);
    expect(json(await api('POST', on('/exec'), { command: 'wc -c < ~/dir/blob.bin' })).stdout.trim()).toBe(
      '200000',
    );
    const missing = await api('GET', on('/files?path=nope/none.txt'));
    expect([missing.status, json(missing).error]).toEqual([404, 'file_not_found']);
  });

  it('directories as tar archives, both ways', async () => {
    const tar = await api('GET', on('/files/archive?path=dir'));
    expect(tar.type).toBe('application/x-tar');
    expect(
      (await api('PUT', on('/files/archive?path=copy'), tar.bytes, { 'content-type': 'application/x-tar' }))
        .status,
    ).toBe(204);
    expect(json(await api('POST', on('/exec'), { command: 'wc -c < ~/copy/blob.bin' })).stdout.trim()).toBe(
      '200000',
    );
  });
});

describe('recordings', () => {
  it('start, stop, list, get, download an MP4, delete', async () => {
    const started = json(await api('POST', on('/recording/start'), { name: 'demo' }));
    expect(started).toMatchObject({ name: 'demo', state: 'recording' });
    await api('POST', on('/mouse/move'), { x: 400, y: 300 });
    const stopped = json(await api('POST', on('/recording/stop'), { id: started.id }));
    expect(stopped).toMatchObject({ id: started.id, state: 'stopped' });
    expect(json(await api('GET', on('/recordings'))).map((r: { id: string }) => r.id)).toContain(started.id);
    expect(json(await api('GET', on(`/recordings/${started.id}`))).state).toBe('stopped');
    const mp4 = await api('GET', on(`/recordings/${started.id}/download`));
    expect(mp4.type).toBe('video/mp4');
    expect(mp4.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect((await api('DELETE', on(`/recordings/${started.id}`))).status).toBe(204);
    expect((await api('GET', on(`/recordings/${started.id}`))).status).toBe(404);
  });
});

describe('SSH over the WebSocket', () => {
  it('logs in with ssh2 through /ssh, runs a command, and the close reaches both ends', async () => {
    const creds = json(await api('GET', on('/ssh/credentials')));
    expect(creds.ssh_url).toBe(on('/ssh'));
    const ws = new WebSocket(`${base.replace('http', 'ws')}${creds.ssh_url}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    // Wrapped at once: sshd speaks first, and its banner can arrive with the 101 — a message emitted
    // before a listener is attached is lost; the stream buffers it until ssh2 reads.
    const sock = createWebSocketStream(ws);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const client = new SshClient();
    const whoami = await new Promise<string>((resolve, reject) => {
      client.on('error', reject).on('ready', () => {
        client.exec('whoami', (err, ch) => {
          if (err) return reject(err);
          let out = '';
          ch.on('data', (b: Buffer) => (out += b.toString())).on('close', () => resolve(out.trim()));
        });
      });
      client.connect({
        sock,
        username: creds.username,
        privateKey: creds.private_key,
        readyTimeout: 10_000,
      });
    });
    expect(whoami).toBe(creds.username);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    client.end();
    expect([1000, 1005]).toContain(await closed);
    await waitFor(
      async () => /sandbay_ws_connections\{kind="ssh"\} 0/.test(await app.apiMetrics.registry.metrics()),
      'the proxy to drop the connection',
    );
  });
});

describe('VNC over the WebSocket', () => {
  it('opens a full RFB session with the viewer link alone and moves the VM’s cursor', async () => {
    const link = json(await api('POST', on('/viewer-token')));
    const before = (await store.get<Sandbox>({ kind: 'Sandbox', namespace: 'desk', name: sb }))!.status
      ?.lastActive;
    const ws = new WebSocket(`${base.replace('http', 'ws')}${link.vnc_url}`);
    // Listening before the upgrade completes: the server speaks first (its RFB version).
    const rfb = RfbClient.overWebSocket(ws);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const init = await rfb.handshake();
    expect(init).toMatchObject({ security: 1, width: 1280, height: 800, bitsPerPixel: 32 });
    rfb.requestUpdate(false);
    const update = await rfb.readUpdate();
    expect(update.rects).toBeGreaterThan(0);
    expect(update.pixelBytes).toBeGreaterThan(0);
    rfb.pointer(200, 150);
    await waitFor(async () => {
      const p = json(await api('GET', on('/mouse/position')));
      return p.x === 200 && p.y === 150;
    }, 'the pointer event to move the cursor');
    // An open viewer counts as activity.
    await waitFor(
      async () =>
        (await store.get<Sandbox>({ kind: 'Sandbox', namespace: 'desk', name: sb }))!.status?.lastActive !==
        before,
      'activity from the open connection',
    );
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    rfb.close();
    await closed;
    await waitFor(
      async () => /sandbay_ws_connections\{kind="vnc"\} 0/.test(await app.apiMetrics.registry.metrics()),
      'the proxy to drop the connection',
    );
  });
});
