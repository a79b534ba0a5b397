// The whole service on the tart driver, against two emulated Macs and no local Mac: the real operator
// and the customer API on a real listener; the Macs registered with `kubectl apply -f` of what
// `npm run emulated-macs -- up 2` printed. A customer reserves one Mac, takes a warm sandbox, drives
// it (exec, input, screenshot, windows), opens the VNC and SSH WebSockets (relayed through the Mac's
// SSH connection), streams an exec, reaches a server in the guest through a forwarded port and sets
// its clipboard, snapshots it, reserves the other Mac, restores the snapshot there (the delta
// crosses Macs through the blob store), and deletes both sandboxes. An egress policy that Softnet
// cannot hold per sandbox is refused by name (docs/mac.md, Egress).
import sharp from 'sharp';
import { Client as SshClient } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebSocketStream, WebSocket } from 'ws';
import type { Mini, Sandbox } from '../crds/index.ts';
import { waitFor } from './api-harness.ts';
import { RfbClient } from './api-rfb-client.ts';
import { onMacOk } from './support/emulated-mac/operator-shell.ts';
import { json, startTartStack, type TartStack } from './tart-stack.ts';

let stack: TartStack;
let base: string;

const api = (method: string, url: string, body?: unknown) => stack.api(method, url, body);

async function exec(sb: string, command: string): Promise<{ stdout: string; return_code: number }> {
  return json(await api('POST', `/v1/sandboxes/${sb}/exec`, { command }));
}

/** Reserves one Mac and takes a sandbox in it (`extra`: a snapshot to restore). */
async function sandboxOnNewMac(extra: Record<string, unknown> = {}) {
  const r = await api('POST', '/v1/reservations', { hours: 24, mini_count: 1, mac_model: 'm4' });
  const reservation = json(r);
  expect(reservation.status, r.bytes.toString()).toBe('active');
  let last = '';
  const created = await waitFor(
    async () => {
      const c = await api('POST', '/v1/sandboxes', { reservation_id: reservation.id, ...extra });
      last = `${c.status} ${c.bytes.toString()}`;
      return c.status === 201 ? json(c) : undefined;
    },
    'a sandbox',
    120_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last answer: ${last}`);
  });
  const running = await waitFor(
    async () => {
      const s = json(await api('GET', `/v1/sandboxes/${created.sandbox_id}`));
      return s.state === 'running' ? s : undefined;
    },
    'the sandbox running',
    120_000,
  );
  const sandbox = (await stack.store.get<Sandbox>({
    kind: 'Sandbox',
    namespace: 'mac',
    name: running.sandbox_id,
  }))!;
  return { id: running.sandbox_id as string, mini: sandbox.status!.mini! };
}

beforeAll(async () => {
  stack = await startTartStack('sandbay-tart-e2e-', { macs: 2 });
  ({ base } = stack);
  await waitFor(
    async () => {
      const models = json(await api('GET', '/v1/platforms')).models as { available_minis: number }[];
      return models.reduce((n, m) => n + m.available_minis, 0) >= 2;
    },
    'both emulated Macs for sale',
    60_000,
  );
}, 180_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe('sandbay on the tart driver with two emulated Macs', () => {
  let first: { id: string; mini: string };

  it('registered the Macs `emulated-macs up` printed with kubectl apply; kubectl shows them Ready', async () => {
    expect(stack.miniYaml).toMatch(/^apiVersion: sandbay.io\/v1alpha1\nkind: Mini\n/);
    const got = await stack.kubectl(['get', 'minis', '-o', 'json']);
    const minis = (JSON.parse(got.stdout) as { items: Mini[] }).items;
    expect(minis.map((m) => [m.metadata.name, m.spec.address, m.spec.driver, m.spec.credentialsRef])).toEqual(
      stack.macs.map((m) => [m.name, m.address, 'tart', 'emulated-macs']),
    );
    const ready = await stack.kubectl(['wait', '--for=condition=Ready', 'minis', '--all', '--timeout=60s']);
    expect(ready.code, ready.stderr).toBe(0);
  });

  it('reserves a Mac, takes a warm sandbox and drives it: exec, input, screenshot, windows', async () => {
    first = await sandboxOnNewMac();
    const on = (rest: string) => `/v1/sandboxes/${first.id}${rest}`;
    expect(await exec(first.id, 'id -un')).toMatchObject({ stdout: 'admin\n', return_code: 0 });
    expect(json(await api('POST', on('/exec'), { command: 'echo $DISPLAY', ax: true })).return_code).toBe(0);
    const shot = await api('GET', on('/screenshot'));
    expect(await sharp(shot.bytes).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    await exec(first.id, '(xterm -T e2e -geometry 40x10+100+100 >/dev/null 2>&1 &)');
    await waitFor(
      async () =>
        (json(await api('GET', on('/display/windows'))) as { name: string }[]).some((w) => w.name === 'e2e'),
      'the xterm among the windows',
      30_000,
    );
    expect((await api('POST', on('/mouse/click'), { x: 200, y: 150 })).status).toBe(200);
    expect((await api('POST', on('/keyboard/type'), { text: 'echo typed > t.txt\n' })).status).toBe(200);
    await waitFor(
      async () => (await exec(first.id, 'cat t.txt')).stdout === 'typed\n',
      'the typed command',
      30_000,
    );
  });

  it('refuses an egress policy Softnet cannot hold, naming why, and keeps the shared network (mode all)', async () => {
    const mini = (await stack.store.get<Mini>({ kind: 'Mini', name: first.mini }))!;
    expect(mini.status?.egress).toMatchObject({ default: 'all', modes: ['all'], domains: false });
    const on = `/v1/sandboxes/${first.id}/network`;
    expect(json(await api('GET', on))).toEqual({
      egress: { mode: 'all', allow: [] },
      modes: ['all'],
      domains: false,
    });
    const ref = { kind: 'Sandbox', namespace: 'mac', name: first.id };
    const before = (await stack.store.get<Sandbox>(ref))!;
    for (const egress of [{ mode: 'none' }, { mode: 'allow', allow: ['example.com'] }]) {
      const r = await api('PATCH', on, { egress });
      expect(r.status, r.bytes.toString()).toBe(422);
      expect(json(r)).toMatchObject({ error: 'egress_not_allowed' });
      expect(json(r).message).toMatch(/Softnet.*--net-softnet-allow.*cannot name domains/);
    }
    const reservation = json(await api('GET', `/v1/sandboxes/${first.id}`)).reservation_id as string;
    const sandboxes = async () => (await stack.store.list('Sandbox')).items.length;
    const count = await sandboxes();
    const refused = await api('POST', '/v1/sandboxes', {
      reservation_id: reservation,
      egress: { mode: 'none' },
    });
    expect(refused.status, refused.bytes.toString()).toBe(422);
    expect(json(refused)).toMatchObject({ error: 'egress_not_allowed' });
    expect(await sandboxes()).toBe(count);
    const after = (await stack.store.get<Sandbox>(ref))!;
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec.egress).toBeUndefined();
    // What it enforces is accepted, and changes nothing on the Mac.
    const same = await api('PATCH', on, { egress: { mode: 'all' } });
    expect(same.status, same.bytes.toString()).toBe(200);
    expect(json(same).egress).toEqual({ mode: 'all', allow: [] });
    expect((await exec(first.id, 'true')).return_code).toBe(0);
  });

  it('sets up and grades in the guest with the same steps and checks as on linux (Guest methods only)', async () => {
    const on = (rest: string) => `/v1/sandboxes/${first.id}${rest}`;
    const setup = json(
      await api('POST', on('/setup'), {
        steps: [
          {
            type: 'command',
            command: 'mkdir -p ~/Documents && printf "mac notes\\n" > ~/Documents/mac-notes.txt',
          },
          {
            type: 'launch',
            command: ['xterm', '-T', 'tart-eval', '-e', 'sh'],
            wait_for: { name: 'tart-eval' },
          },
          { type: 'open', path: 'Documents/mac-notes.txt' },
          {
            type: 'command',
            command: 'cat ~/Documents/mac-notes.txt',
            expect: { stdout_equals: 'mac notes' },
          },
          { type: 'sleep', seconds: 0.1 },
        ],
      }),
    );
    expect(setup, JSON.stringify(setup)).toMatchObject({ status: 'completed', failed_step: null });
    expect(setup.steps[2].window).toContain('mac-notes.txt');
    const grade = json(
      await api('POST', on('/grade'), {
        grader: {
          combine: 'all',
          checks: [
            { type: 'window', match: { name: 'tart-eval' } },
            { type: 'file', path: 'Documents/mac-notes.txt', contains: 'mac notes' },
            { type: 'command', command: 'echo True', expect: { stdout_contains: 'true', ignore_case: true } },
          ],
        },
      }),
    );
    expect(grade).toMatchObject({ reward: 1 });
    const failed = json(await api('POST', on('/setup'), { steps: [{ type: 'command', command: 'exit 5' }] }));
    expect(failed.message).toBe('step 0 (command) failed: exited with 5, expected 0');
  });

  it('opens the VNC WebSocket with the viewer link alone: a full RFB session through the Mac', async () => {
    const link = json(await api('POST', `/v1/sandboxes/${first.id}/viewer-token`));
    const ws = new WebSocket(`${base.replace('http', 'ws')}${link.vnc_url}`);
    const rfb = RfbClient.overWebSocket(ws);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    expect(await rfb.handshake()).toMatchObject({ security: 1, width: 1280, height: 800 });
    rfb.requestUpdate(false);
    expect((await rfb.readUpdate()).pixelBytes).toBeGreaterThan(0);
    rfb.pointer(321, 123);
    await waitFor(
      async () => (await exec(first.id, 'xdotool getmouselocation')).stdout.startsWith('x:321 y:123 '),
      'the pointer event to reach the guest',
      20_000,
    );
    const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    rfb.close();
    await closed;
  });

  it('logs in over the SSH WebSocket with the VM’s own key', async () => {
    const creds = json(await api('GET', `/v1/sandboxes/${first.id}/ssh/credentials`));
    const ws = new WebSocket(`${base.replace('http', 'ws')}${creds.ssh_url}`, {
      headers: { authorization: `Bearer ${stack.key}` },
    });
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
      client.connect({ sock, username: creds.username, privateKey: creds.private_key, readyTimeout: 10_000 });
    });
    client.end();
    expect(whoami).toBe('admin');
  });

  it(
    'forks a sandbox on its Mac (tart clone of the running VM, flushed first)',
    { timeout: 300_000 },
    async () => {
      await exec(first.id, 'mkdir -p work && echo before-fork > work/fork.txt');
      let last = '';
      const forked = await waitFor(
        async () => {
          const r = await api('POST', `/v1/sandboxes/${first.id}/fork`, { count: 1 });
          last = `${r.status} ${r.bytes.toString()}`;
          // The Mac's second VM may still be cloning after the warm create: 503 no_warm_vm meanwhile.
          return r.status === 201 ? json(r) : r.status === 503 ? undefined : Promise.reject(new Error(last));
        },
        'a fork',
        120_000,
      );
      const [fork] = forked.sandboxes as {
        sandbox_id: string;
        host: string;
        fork_of: string;
        boot: string;
      }[];
      expect(fork).toMatchObject({ host: first.mini, fork_of: first.id, boot: 'cold' });
      expect(await exec(fork!.sandbox_id, 'cat work/fork.txt')).toMatchObject({ stdout: 'before-fork\n' });
      // The source runs on, with its own disk.
      await exec(fork!.sandbox_id, 'echo fork-only > work/fork.txt');
      expect(await exec(first.id, 'cat work/fork.txt')).toMatchObject({ stdout: 'before-fork\n' });
      expect((await api('DELETE', `/v1/sandboxes/${fork!.sandbox_id}`)).status).toBe(204);
    },
  );

  it(
    'pauses a Mac sandbox with `tart suspend` and resumes it where it was: its processes, then its screen',
    { timeout: 240_000 },
    async () => {
      const bg = await exec(first.id, 'nohup sleep 600 > /dev/null 2>&1 & echo $!');
      const pid = bg.stdout.trim();
      expect(pid).toMatch(/^\d+$/);
      const paused = await api('POST', `/v1/sandboxes/${first.id}/pause`);
      expect([paused.status, json(paused).state]).toEqual([200, 'paused']);
      // Tart saved the VM: its `tart run` is gone and `tart get` says so.
      const vm = (await stack.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'mac', name: first.id }))!
        .status!.vm!;
      const mac = stack.macs.find((m) => m.name === first.mini)!;
      expect(await onMacOk(mac, `tart get ${vm} --format json`)).toContain('"State" : "suspended"');
      const refused = await api('POST', `/v1/sandboxes/${first.id}/exec`, { command: 'true' });
      expect([refused.status, json(refused).error]).toEqual([409, 'sandbox_paused']);

      const resumed = await api('POST', `/v1/sandboxes/${first.id}/resume`);
      expect([resumed.status, json(resumed).state]).toEqual([200, 'running']);
      expect((await exec(first.id, `kill -0 ${pid} && echo alive`)).stdout).toBe('alive\n');
      // The screen through the new run's VNC server.
      const shot = await api('GET', `/v1/sandboxes/${first.id}/screenshot`);
      expect([shot.status, shot.bytes.subarray(1, 4).toString()]).toEqual([200, 'PNG']);
    },
  );

  it('streams an exec, forwards a port and carries the clipboard, each through the Mac', async () => {
    // The exec stream: the channel protocol's frames, the exit code in the status frame.
    const ws = new WebSocket(
      `${base.replace('http', 'ws')}/v1/sandboxes/${first.id}/exec/stream?command=${encodeURIComponent('echo via mac; exit 7')}`,
      ['v5.channel.k8s.io'],
      { headers: { authorization: `Bearer ${stack.key}` } },
    );
    let out = '';
    let status: { details?: { causes: { reason: string; message: string }[] } } | undefined;
    ws.on('message', (m: Buffer) => {
      if (m[0] === 1) out += m.subarray(1).toString();
      if (m[0] === 3) status = JSON.parse(m.subarray(1).toString()) as typeof status;
    });
    await new Promise((resolve) => ws.once('close', resolve));
    expect(out).toBe('via mac\n');
    expect(status?.details?.causes).toContainEqual({ reason: 'ExitCode', message: '7' });
    // A server on the guest's own loopback, reached through the guest's sshd through the Mac.
    await exec(first.id, "mkdir -p site && printf 'served from the guest' > site/index.txt");
    await exec(
      first.id,
      'cd site && nohup /usr/bin/python3 -m http.server 8000 --bind 127.0.0.1 >/dev/null 2>&1 &',
    );
    const page = await waitFor(
      async () => {
        const r = await api('GET', `/v1/sandboxes/${first.id}/ports/8000/index.txt`);
        return r.status === 200 ? r.bytes.toString() : undefined;
      },
      'the guest server',
      30_000,
    );
    expect(page).toBe('served from the guest');
    // The guest is a Linux desktop: its X clipboard, through xclip as the guest user.
    expect(
      (await api('PUT', `/v1/sandboxes/${first.id}/clipboard`, { type: 'text', text: 'on a Mac' })).status,
    ).toBe(204);
    expect(json(await api('GET', `/v1/sandboxes/${first.id}/clipboard`))).toEqual({
      type: 'text',
      text: 'on a Mac',
    });
  });

  it('snapshots on one Mac and restores on the other; deletes both', { timeout: 300_000 }, async () => {
    await exec(first.id, 'mkdir -p work && echo carried > work/note.txt');
    const snap = json(await api('POST', `/v1/sandboxes/${first.id}/snapshots`, { name: 'e2e' }));
    const ready = await waitFor(
      async () => {
        const s = json(await api('GET', `/v1/snapshots/${snap.version}`));
        return s.status === 'ready' || s.status === 'failed' ? s : undefined;
      },
      'the snapshot captured',
      120_000,
    );
    expect(ready).toMatchObject({ status: 'ready', base_image: 'base-macos-26' });
    const restored = await sandboxOnNewMac({ snapshot: snap.version });
    expect(restored.mini).not.toBe(first.mini);
    expect(await exec(restored.id, 'cat work/note.txt')).toMatchObject({
      stdout: 'carried\n',
      return_code: 0,
    });
    for (const sb of [first.id, restored.id]) {
      expect((await api('DELETE', `/v1/sandboxes/${sb}`)).status).toBeLessThan(300);
    }
    await waitFor(
      async () => (await stack.store.list<Sandbox>('Sandbox', { namespace: 'mac' })).items.length === 0,
      'both sandboxes gone',
      120_000,
    );
  });
});
