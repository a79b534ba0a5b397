// The tart driver's guest on an emulated Mac: exec through the Mac as jump host, and screen and
// input over the persistent RFB session to the VM's VNC server tunnelled through the Mac's SSH.
import { execFileSync } from 'node:child_process';
import { chmodSync, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Client as Ssh2Client } from 'ssh2';
import { connectGuest } from '../../api/ws/connect.ts';
import { loginOver } from '../../api/ws/vnc-proxy.ts';
import { ByteReader } from '../../api/ws/byte-reader.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.ts';
import { downAll, upMacs } from '../../test/support/emulated-mac/macs.ts';
import type { Driver, Guest } from '../driver.ts';
import { readCredentials, writeCredentials } from './credentials.ts';
import type { TartGuest } from './guest.ts';
import { Mac } from './mac.ts';
import { RfbClient } from './rfb-client.ts';
import { createTartDriver } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-guest-'));
chmodSync(root, 0o755);
let driver: Driver;
let guest: Guest;
let fleetKey: string;
let macAddress: string;

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 1);
  const mac = fleet.macs[0]!;
  fleetKey = fleet.privateKey;
  macAddress = mac.address;
  writeCredentials(join(root, 'data'), 'g', { username: 'root', privateKey: fleet.privateKey });
  driver = createTartDriver({ dataDir: join(root, 'data') });
  const host = driver.host({ name: 'g', address: mac.address, model: 'm4', credentialsRef: 'g' });
  await host.createVm({ name: 'vm', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  await host.startVm('vm');
  guest = host.guest('vm');
});

afterAll(async () => {
  await driver?.close();
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

/** R,G,B of each pixel (the fourth byte is padding, whatever the server puts there in Raw). */
function colours(frame: { data: Buffer }): Buffer {
  const out = Buffer.from(frame.data);
  for (let i = 3; i < out.length; i += 4) out[i] = 0;
  return out;
}

describe('tart guest on an emulated Mac', () => {
  it('runs commands as the guest user through the Mac', async () => {
    const r = await guest.exec('id -un');
    expect(r).toEqual({ stdout: 'admin\n', stderr: '', return_code: 0, timed_out: false });
    expect(await guest.exec('sleep 5', { timeoutMs: 200 })).toMatchObject({
      return_code: 124,
      timed_out: true,
    });
  });

  it('takes screenshots from the framebuffer: full PNG, region, JPEG, scaled', async () => {
    await guest.exec('(xterm -T red -bg "#ff0000" -geometry 40x10+300+300 >/dev/null 2>&1 &)');
    await waitFor(
      async () => (await guest.exec('xdotool search --name "^red$"')).return_code === 0,
      'the red window',
      20_000,
    );
    // The pixel at (400, 400), inside the red window, once it is drawn.
    const pixel = async () => {
      const png = await guest.screenshot();
      expect(await sharp(png).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
      const { data } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      const at = (400 * 1280 + 400) * 3;
      return [...data.subarray(at, at + 3)].join(',');
    };
    await waitFor(async () => (await pixel()) === '255,0,0', 'red at (400, 400) in the screenshot', 20_000);
    const jpeg = await guest.screenshot({
      region: { x: 10, y: 20, width: 100, height: 50 },
      format: 'jpeg',
      quality: 50,
      scale: 0.5,
    });
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 50, height: 25 });
  });

  it('decodes the server’s ZRLE (asked for first) to the very pixels Raw gives', async () => {
    const mac = new Mac(
      { name: 'g', address: macAddress, model: 'm4' },
      () => readCredentials(join(root, 'data'), 'g'),
      join(root, 'data', 'tart', 'known_hosts'),
    );
    const { vnc } = (guest as TartGuest).vm;
    const zrle = await RfbClient.connect(await mac.forward(vnc.host, vnc.port), vnc.password);
    const raw = await RfbClient.connect(await mac.forward(vnc.host, vnc.port), vnc.password, 'raw');
    try {
      // Equal once two captures meet a still screen (a cursor may blink between them).
      await waitFor(
        async () => colours(await zrle.capture()).equals(colours(await raw.capture())),
        'the ZRLE and Raw framebuffers equal',
        20_000,
      );
      expect([...zrle.encodingsUsed]).toEqual([16]);
      expect([...raw.encodingsUsed]).toEqual([0]);
    } finally {
      zrle.close();
      raw.close();
      mac.close();
    }
  });

  it('types and clicks over RFB: every printable ASCII character as its key, Unicode through the clipboard (restored)', async () => {
    // A terminal whose every character reaches typed.txt at once (no line editing, no literal-next),
    // appended (so that a test may empty the file under it).
    await guest.exec(
      'rm -f typed.txt; (LANG=C.UTF-8 xterm -u8 -T typer -geometry 80x10+0+0 ' +
        '-e sh -c "stty -icanon -iexten -echo; cat >> typed.txt" >/dev/null 2>&1 &)',
    );
    // Mapped, not only created: a click before the window shows lands on the desktop, and xfwm4's
    // focus-stealing prevention then keeps the focus from a window started before that click.
    await waitFor(
      async () => (await guest.exec('xdotool search --onlyvisible --name "^typer$"')).return_code === 0,
      'the typer window shown',
      20_000,
    );
    await guest.click(100, 50);
    let focused = '';
    await waitFor(
      async () => {
        const r = await guest.exec('xdotool getwindowfocus getwindowname; wmctrl -lG');
        focused = r.stdout + r.stderr;
        return r.stdout.startsWith('typer\n');
      },
      () => `the xterm focused (focus, then windows:\n${focused})`,
      20_000,
    );
    expect(await guest.position()).toEqual({ x: 100, y: 50 });
    await guest.exec("printf %s 'kept on the clipboard' | pbcopy");
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    const unicode = 'Grüße, 世界 — ✓ naïve café 🙂';
    await guest.type(`${ascii}\n${unicode}\n`);
    let typed = '';
    await waitFor(
      async () => (typed = (await guest.exec('cat typed.txt')).stdout) === `${ascii}\n${unicode}\n`,
      () => `the typed text (so far ${JSON.stringify(typed)})`,
      20_000,
    );
    expect((await guest.exec('pbpaste')).stdout).toBe('kept on the clipboard');
  });

  it("takes hotkey names as the Mac's keys: cmd+v pastes (Command-V), ctrl+a is Control-A", async () => {
    // The typer xterm of the test above still has the focus.
    await guest.exec('printf %s pasted | pbcopy && : > typed.txt');
    await guest.hotkey('cmd+v');
    await waitFor(
      async () => (await guest.exec('cat typed.txt')).stdout === 'pasted',
      'Command-V pasted',
      20_000,
    );
    await guest.press('a', ['ctrl']);
    await guest.press('A');
    await waitFor(
      async () => (await guest.exec('cat typed.txt')).stdout === 'pasted\x01A',
      'Control-A, then Shift-A',
      20_000,
    );
  });

  it('holds keys and a button on their own: keys() (computer-use hold_key); side buttons refused', async () => {
    // The typer xterm still has the focus: ctrl held makes `a` a ^A; shift held makes `b` a B (the
    // server adds and drops no modifier: a held Shift is what makes a capital).
    await guest.exec(': > typed.txt');
    await guest.keys('ctrl', true);
    await guest.hotkey('a');
    await guest.keys('ctrl', false);
    await guest.keys('shift', true);
    await guest.hotkey('b');
    await guest.keys('shift', false);
    await guest.hotkey('c');
    await waitFor(async () => (await guest.exec('cat typed.txt')).stdout === '\x01Bc', '^ABc typed', 20_000);
    // The side buttons have no bit in RFB's button mask: refused, not silently dropped.
    await expect(guest.mouseButton('back', true)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it("relays VNC and SSH through the Mac: the API's VNC login, and ssh2 with the VM's own key", async () => {
    // The VNC WebSocket's own code: connect through the guest's stream, log in with the password.
    const vnc = await guest.vnc();
    expect(vnc.host).toBe('127.0.0.1');
    const conn = await loginOver(await connectGuest(guest, 'vnc', vnc), vnc.password);
    const reader = new ByteReader();
    conn.setSink((chunk) => {
      reader.push(chunk);
      return true;
    });
    conn.socket.write(Buffer.from([1])); // ClientInit (shared): the server answers with ServerInit
    const init = await reader.read(24);
    expect([init.readUInt16BE(0), init.readUInt16BE(2)]).toEqual([1280, 800]);
    conn.socket.destroy();

    // SSH with what GET /ssh/credentials hands out: a key of the VM's own, not the Mac's.
    const ssh = await guest.ssh();
    expect(ssh).toMatchObject({
      username: 'admin',
      port: 22,
      hostKey: expect.stringMatching(/^ssh-ed25519 /),
    });
    expect(ssh.privateKey).not.toBe(fleetKey);
    expect((await guest.ssh()).privateKey).toBe(ssh.privateKey);
    const client = new Ssh2Client();
    const out = await new Promise<string>((resolve, reject) => {
      client.on('error', reject);
      client.on('ready', () =>
        client.exec('id -un', (err, ch) => {
          if (err) return reject(err);
          let text = '';
          ch.on('data', (d: Buffer) => (text += d.toString()));
          ch.on('close', () => resolve(text));
        }),
      );
      void guest.openStream!('ssh').then((sock) =>
        client.connect({
          sock,
          username: ssh.username,
          privateKey: ssh.privateKey,
          hostVerifier: (key: Buffer) => `ssh-ed25519 ${key.toString('base64')}` === ssh.hostKey,
        }),
      );
    });
    client.end();
    expect(out).toBe('admin\n');
  });

  it('lists windows from the guest (wmctrl, AT-SPI children for a GTK window); agent exec in the session', async () => {
    const gtk = [
      'import gi',
      'gi.require_version("Gtk", "3.0")',
      'from gi.repository import Gtk',
      'w = Gtk.Window(title="gtk-probe")',
      'w.add(Gtk.Button(label="Press me"))',
      'w.connect("destroy", Gtk.main_quit)',
      'w.show_all()',
      'Gtk.main()',
    ].join('\n');
    await guest.putFile('probe.py', Buffer.from(gtk));
    await guest.exec('(/usr/bin/python3 probe.py >/dev/null 2>&1 &)');
    const probe = await waitFor(
      async () => (await guest.windows()).find((w) => w.name === 'gtk-probe' && w.children?.length),
      'the GTK window with its accessibility children',
      20_000,
    );
    const labels = JSON.stringify(probe.children);
    expect(labels).toContain('Press me');
    expect(probe).toMatchObject({ role: 'window', pid: expect.any(Number) });
    // The xterms of the tests above are listed too, without children (xterm speaks no AT-SPI).
    expect((await guest.windows()).find((w) => w.name === 'red')).toMatchObject({
      width: expect.any(Number),
    });
    const r = await guest.exec('xdotool getactivewindow getwindowname', { agent: true });
    expect(r.return_code).toBe(0);
    await guest.exec("pkill -f 'probe[.]py'");
  });

  it('records the screen to an MP4 on the control plane: what appears during it is in its last frame', async () => {
    const green = async () => {
      const png = await guest.screenshot({ region: { x: 700, y: 500, width: 1, height: 1 } });
      return [...(await sharp(png).raw().toBuffer())].join(',');
    };
    await guest.exec('pkill -f "xterm -T green" ; true');
    await waitFor(async () => (await green()) !== '0,255,0', 'no green at (700, 500)', 20_000);
    const rec = await guest.startRecording('demo');
    expect(rec).toMatchObject({ name: 'demo', state: 'recording' });
    await guest.exec('(xterm -T green -bg "#00ff00" -geometry 40x15+600+420 >/dev/null 2>&1 &)');
    await waitFor(async () => (await green()) === '0,255,0', 'green at (700, 500)', 20_000);
    const stopped = await guest.stopRecording(rec.id);
    expect(stopped).toMatchObject({ id: rec.id, state: 'stopped', bytes: expect.any(Number) });
    expect(stopped.duration_s).toBeGreaterThan(0);
    expect(await guest.listRecordings()).toEqual([stopped]);
    const file = join(root, 'rec.mp4');
    await pipeline(await guest.downloadRecording(rec.id), createWriteStream(file));
    expect(statSync(file).size).toBe(stopped.bytes);
    // The first and the last frame at (700, 500): not green, then green (yuv420p: near, not exact).
    const pixel = (at: string[]) =>
      execFileSync('ffmpeg', [
        '-v',
        'error',
        ...at,
        '-i',
        file,
        '-frames:v',
        '1',
        '-vf',
        'crop=2:2:700:500',
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        '-',
      ]);
    const [r0, g0] = [...pixel([])];
    const [r1, g1, b1] = [...pixel(['-sseof', '-0.3'])];
    expect(g0! > 200 && r0! < 60).toBe(false);
    expect([r1! < 60, g1! > 200, b1! < 60], `${r1},${g1},${b1}`).toEqual([true, true, true]);
    await guest.deleteRecording(rec.id);
    expect(await guest.listRecordings()).toEqual([]);
    await expect(guest.downloadRecording(rec.id)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('draws the server’s cursor shape at the pointer on request (showCursor), and only there', async () => {
    const region = { x: 900, y: 600, width: 32, height: 32 };
    await guest.move(900, 600);
    const bare = await guest.screenshot({ region });
    const withCursor = await guest.screenshot({ region, showCursor: true });
    expect((await sharp(withCursor).raw().toBuffer()).equals(await sharp(bare).raw().toBuffer())).toBe(false);
    await guest.move(100, 700);
    const away = await guest.screenshot({ region, showCursor: true });
    expect((await sharp(away).raw().toBuffer()).equals(await sharp(bare).raw().toBuffer())).toBe(true);
  });
});
