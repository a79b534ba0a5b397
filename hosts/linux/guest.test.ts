// The guest half on a real desktop: a VM of the linux driver (its own user, Xvfb + XFCE, session
// bus, sshd), every behaviour checked by its effect: files read back over exec, text saved by a GTK
// editor, window focus and geometry from X11, pixels from screenshots, MP4s from ffprobe.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import sharp from 'sharp';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WindowNode } from '../driver.ts';
import type { LinuxGuest } from './guest.ts';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { KILL_OWN_CONNECTION } from '../../test/support/hostile-probes.ts';
import { waitFor } from '../../test/support/wait.ts';

const run = promisify(execFile);

/** A minimal GTK 3 editor: a text view (AT-SPI visible) that ctrl+s saves to a file. */
const EDITOR = `import sys
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
title, path, lines = sys.argv[1], sys.argv[2], int(sys.argv[3])
win = Gtk.Window(title=title)
win.set_default_size(400, 300)
view = Gtk.TextView()
view.get_buffer().set_text("\\n".join("line %d of the document" % i for i in range(lines)))
scroller = Gtk.ScrolledWindow()
scroller.add(view)
win.add(scroller)
def on_key(_w, ev):
    if ev.state & Gdk.ModifierType.CONTROL_MASK and Gdk.keyval_name(ev.keyval) == "s":
        buf = view.get_buffer()
        with open(path, "w", encoding="utf-8") as f:
            f.write(buf.get_text(buf.get_start_iter(), buf.get_end_iter(), True))
        return True
    return False
win.connect("key-press-event", on_key)
win.connect("destroy", Gtk.main_quit)
win.show_all()
Gtk.main()
`;

let dataDir: string;
let driver: LinuxDriver;
let guest: LinuxGuest;
let vmIp: string;
let host: LinuxHost;

/** test/support/wait.ts with the subject first, as these desktop checks read best. */
function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  return waitFor(probe, what, timeoutMs);
}

/** Whether a text node in the window's accessibility tree has the keyboard focus. */
function hasFocusedText(w: WindowNode): boolean {
  const walk = (n: WindowNode): boolean =>
    (n.role === 'text' && n.focused === true) || (n.children ?? []).some(walk);
  return walk(w);
}

async function windowNamed(title: string): Promise<WindowNode | undefined> {
  return (await guest.windows()).find((w) => w.name === title);
}

async function openEditor(title: string, file: string, lines = 0): Promise<WindowNode> {
  const res = await guest.exec(`/usr/bin/python3 editor.py '${title}' '${file}' ${lines} >/dev/null 2>&1 &`);
  expect(res.return_code).toBe(0);
  return until(`window ${title}`, () => windowNamed(title));
}

async function closeWindow(win: WindowNode): Promise<void> {
  await guest.exec(`kill ${win.pid}`);
  await until(`${win.name} closed`, async () => (await windowNamed(win.name)) === undefined);
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function rawPixels(png: Buffer): Promise<Buffer> {
  return sharp(png).raw().toBuffer();
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sbgt-driver-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 });
  host = driver.host({ name: 'guest-test', address: '127.0.0.1', model: 'm4' });
  await host.createVm({ name: 'g', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  vmIp = (await host.startVm('g')).ip as string;
  guest = host.guest('g') as LinuxGuest;
  await guest.putFile('editor.py', Buffer.from(EDITOR));
});

afterAll(async () => {
  await driver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('exec', () => {
  it('returns stdout, stderr and the exit code of the command', async () => {
    const res = await guest.exec('echo out; echo "err $((40 + 2))" >&2; exit 7');
    expect(res).toEqual({ stdout: 'out\n', stderr: 'err 42\n', return_code: 7, timed_out: false });
  });

  it('kills the command and everything it started when the timeout passes', async () => {
    const started = Date.now();
    const res = await guest.exec('sleep 3001 & sleep 3002; echo never', { timeoutMs: 400 });
    expect(res.timed_out).toBe(true);
    expect(res.return_code).toBe(124);
    expect(res.stdout).toBe('');
    // Far less than the sleeps' 3001 s: the timeout ended them (the bound leaves a loaded machine room).
    expect(Date.now() - started).toBeLessThan(30_000);
    await until('sleeps gone', async () => (await guest.exec("pgrep -f 'sleep 300[12]'")).return_code === 1);
  });

  it('kills a foreground command that does not exit at the timeout, with what it wrote so far', async () => {
    // Long enough that the shell has written `partial` before the timeout, on a loaded machine too.
    const res = await guest.exec('echo partial; trap "" HUP; sleep 3011; echo never', { timeoutMs: 2000 });
    expect(res).toMatchObject({ stdout: 'partial\n', return_code: 124, timed_out: true });
    await until('sleep gone', async () => (await guest.exec("pgrep -f 'sleep 301[1]'")).return_code === 1);
  });

  describe('starts apps: returns when its shell exits, what it put in the background keeps running', () => {
    const alive = async (pattern: string) => (await guest.exec(`pgrep -f '${pattern}'`)).return_code === 0;

    it('a GUI app (xterm &) appears on the screen and outlives the call', async () => {
      const res = await guest.exec('echo before; xterm & echo "pid $!"', { timeoutMs: 30_000 });
      const pid = Number(/^pid (\d+)$/m.exec(res.stdout)?.[1]);
      expect(res).toEqual({ stdout: `before\npid ${pid}\n`, stderr: '', return_code: 0, timed_out: false });
      // bash in the xterm retitles it: its window is found by pid.
      const win = await until('the xterm window', async () =>
        (await guest.windows()).find((w) => w.pid === pid),
      );
      expect((await guest.exec(`kill -0 ${win.pid} && echo alive`)).stdout).toBe('alive\n');
      await closeWindow(win);
    });

    it('a daemon that double-forks, nohup and a HUP-ignoring command keep running', async () => {
      const res = await guest.exec(
        [
          '( ( exec sleep 3021 ) & )',
          'nohup sleep 3022 &',
          'sh -c \'trap "" HUP; exec sleep 3023\' &',
          'setsid -f sleep 3024',
          'echo started; exit 5',
        ].join('\n'),
        { timeoutMs: 30_000 },
      );
      expect(res).toMatchObject({ stdout: 'started\n', return_code: 5, timed_out: false });
      // (A bracket in each pattern: the shell running pgrep has the pattern on its own command line.)
      // Waited for: a forked child may not have exec'd its sleep yet when the shell exits (the exec
      // agent's bash has no command text on its command line to match meanwhile).
      for (const n of [1, 2, 3, 4]) await until(`sleep 302${n} running`, () => alive(`sleep 302[${n}]`));
      await guest.exec("pkill -f 'sleep 302[1-4]'");
      await until('sleeps gone', async () => !(await alive('sleep 302[1-4]')));
    });

    it("keeps the command's output only, and a background writer keeps its pipe after the call", async () => {
      await guest.exec('rm -f go wrote');
      // The writer waits for a file the test makes after the call returned, then writes to the
      // stdout it inherited: not part of the result, and no SIGPIPE (it goes on to write `wrote`).
      const res = await guest.exec(
        'printf "line 1\\nno newline"; echo oops >&2; ' +
          '( while [ ! -e go ]; do sleep 0.05; done; echo late; echo late >&2; echo ok > wrote ) &',
        { timeoutMs: 30_000 },
      );
      expect(res).toEqual({
        stdout: 'line 1\nno newline',
        stderr: 'oops\n',
        return_code: 0,
        timed_out: false,
      });
      await guest.exec('touch go');
      await until('the writer wrote', async () => (await guest.exec('cat wrote')).stdout === 'ok\n');
    });
  });

  it('reconnects after the pooled SSH connection dies', async () => {
    // Killing the sshd process of this very connection cuts the connection.
    await guest.exec('rm -f runs.log');
    const cut = guest.exec(`echo run >> runs.log; ${KILL_OWN_CONNECTION}; sleep 5`);
    await expect(cut).rejects.toMatchObject({ code: 'unreachable' });
    expect((await guest.exec('echo back')).stdout).toBe('back\n');
    // A command that started is never run a second time by a retry.
    expect((await guest.exec('cat runs.log')).stdout).toBe('run\n');
  });

  it('rejects an empty command and a NUL byte', async () => {
    await expect(guest.exec('  ')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(guest.exec('echo a\0b')).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('files', () => {
  it('round-trips a 1 MiB random file byte for byte', async () => {
    const data = randomBytes(1024 * 1024);
    await guest.putFile('up/deep/random.bin', data);
    const viaExec = await guest.exec('sha256sum ~/up/deep/random.bin');
    const expected = createHash('sha256').update(data).digest('hex');
    expect(viaExec.stdout.split(' ')[0]).toBe(expected);
    expect(await sha256(await guest.getFile('~/up/deep/random.bin'))).toBe(expected);
    // Replacing a file keeps its permissions.
    await guest.exec('chmod 750 ~/up/deep/random.bin');
    await guest.putFile('up/deep/random.bin', data.subarray(0, 10));
    expect((await guest.exec('stat -c %a:%s ~/up/deep/random.bin')).stdout.trim()).toBe('750:10');
  });

  it('round-trips a directory as a tar archive', async () => {
    const local = await mkdtemp(join(tmpdir(), 'sbgt-dir-'));
    try {
      const src = join(local, 'src');
      await mkdir(join(src, 'nested', 'deeper'), { recursive: true });
      const files: Record<string, Buffer> = {
        'a.txt': Buffer.from('alpha\n'),
        'nested/b.bin': randomBytes(200_000),
        'nested/deeper/c with space.txt': Buffer.from('gamma ✓\n'),
      };
      for (const [name, data] of Object.entries(files)) await writeFile(join(src, name), data);
      await guest.putDir('project', Readable.from(tar.c({ cwd: src }, ['.'])));
      expect((await guest.exec("cat 'project/nested/deeper/c with space.txt'")).stdout).toBe('gamma ✓\n');

      const back = join(local, 'back');
      await mkdir(back);
      await pipeline(await guest.getDir('project'), tar.x({ cwd: back }));
      for (const [name, data] of Object.entries(files))
        expect((await readFile(join(back, name))).equals(data)).toBe(true);
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  });

  it('a put whose stream fails part-way rejects, leaves no file, and the connection keeps working', async () => {
    // What the API does to an upload past its limit: the body fails mid-stream.
    const failing = (): Readable => {
      let sent = 0;
      return new Readable({
        read() {
          if (sent++ < 8) this.push(randomBytes(64 * 1024));
          else this.destroy(new Error('the upload went past its limit'));
        },
      });
    };
    const within = <T>(what: string, p: Promise<T>): Promise<T> =>
      Promise.race([
        p,
        new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} hung`)), 10_000).unref()),
      ]);
    await expect(within('putFile', guest.putFile('broken.bin', failing()))).rejects.toMatchObject({
      name: 'DriverError',
    });
    await expect(within('putDir', guest.putDir('broken-dir', failing()))).rejects.toMatchObject({
      name: 'DriverError',
    });
    const left = await within('exec', guest.exec('ls -A ~ | grep -c "^broken.bin" || true'));
    expect(left.stdout.trim()).toBe('0');
  });

  it('rejects paths with NUL bytes and reports missing files as not found', async () => {
    await expect(guest.putFile('bad\0name', Buffer.from('x'))).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(guest.getFile('no/such/file')).rejects.toMatchObject({ code: 'not_found' });
    await expect(guest.getDir('no/such/dir')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('desktop', () => {
  it('types Unicode into a GTK editor, cmd+s saves it, and the window list shows it with its tree', async () => {
    const win = await openEditor('Typing Test', 'typed.txt');
    expect(win).toMatchObject({ width: 400, height: 300, app: 'Editor.py' });
    expect(win.x).toBeGreaterThanOrEqual(0);
    expect(win.y).toBeGreaterThanOrEqual(0);
    // The X11 window comes first; the app registers its accessibility tree a moment later.
    const withTree = await until('Typing Test with its accessibility tree', async () => {
      const w = await windowNamed('Typing Test');
      return JSON.stringify(w?.children ?? []).includes('"role":"text"') && w;
    });
    expect(JSON.stringify(withTree.children)).toContain('"role":"text"');
    await guest.click(win.x + 100, win.y + 100);
    // Keys go to the focused window: typed before the window manager has focused it, they are lost.
    // The window manager marks it active (_NET_ACTIVE_WINDOW) before a GTK app, asked to take the
    // focus (WM_TAKE_FOCUS), has it: wait until the text view itself says it has the focus.
    await until('Typing Test focused', async () => {
      const w = await windowNamed('Typing Test');
      return w?.focused === true && hasFocusedText(w);
    });
    // More distinct characters outside the keyboard map than it has spare keycodes (~19): bindings
    // are recycled, each part typed at full speed (no delay). In parts of fewer new characters than
    // there are spares, each saved and read back before the next: within one call a rebinding waits
    // a fixed pause for the app to read the keys typed before it, which a loaded machine can outrun
    // (docs/test-reliability.md, Typing Unicode); here the app has read them all.
    const parts = [
      'Hello, wörld ✓ ünïcödé αβγδεζηθικλ',
      'μνξοπρστυφχψω 日本語',
      'のテキスト',
      '\nsecond line',
    ];
    let typed = '';
    let saved = '';
    for (const part of parts) {
      await guest.type(part);
      typed += part;
      await guest.hotkey('cmd+s');
      saved = await until(`typed.txt saved with ${JSON.stringify(part)}`, async () => {
        const res = await guest.exec('cat typed.txt');
        return res.return_code === 0 && res.stdout.length >= typed.length && res.stdout;
      });
      expect(saved).toBe(typed);
    }
    expect(saved).toBe('Hello, wörld ✓ ünïcödé αβγδεζηθικλμνξοπρστυφχψω 日本語のテキスト\nsecond line');
    await closeWindow(win);
  });

  it('focuses the window a click hits', async () => {
    const a = await openEditor('Focus A', 'a.txt');
    const opened = await openEditor('Focus B', 'b.txt');
    // xfwm4 may place the second window right over the first; put it beside it, so each has a part
    // the other does not cover.
    await guest.exec(`wmctrl -i -r ${opened.id} -e 0,${a.x + a.width + 40},${a.y},-1,-1`);
    const b = await until('Focus B beside Focus A', async () => {
      const w = await windowNamed('Focus B');
      return w && w.x >= a.x + a.width ? w : undefined;
    });
    for (const target of [a, b, a]) {
      const other = target === a ? b : a;
      // A point of the target that the other window does not cover.
      const points = [
        [target.x + 5, target.y + 5],
        [target.x + target.width - 5, target.y + target.height - 5],
        [target.x + 5, target.y + target.height - 5],
        [target.x + target.width - 5, target.y + 5],
      ];
      const inside = (w: WindowNode, x: number, y: number): boolean =>
        x >= w.x && x < w.x + w.width && y >= w.y && y < w.y + w.height;
      const [x, y] = points.find(([px, py]) => !inside(other, px as number, py as number)) as number[];
      await guest.click(x as number, y as number);
      await until(`${target.name} focused`, async () => (await windowNamed(target.name))?.focused === true);
    }
    await closeWindow(a);
    await closeWindow(b);
  });

  it('moves a window dragged by its title bar', async () => {
    const win = await openEditor('Drag Me', 'drag.txt');
    const from = { x: win.x + 150, y: Math.max(win.y - 10, 0) };
    const to = { x: from.x + 120, y: from.y + 90 };
    await guest.drag(from, to);
    // xfwm4 follows the pointer's motion events as it reads them, so the window passes through
    // positions on the way: wait for where the drag ends (within 4 px), not for the first move.
    const moved = await until('window moved by the drag (120, 90)', async () => {
      const w = await windowNamed('Drag Me');
      return w && Math.abs(w.x - win.x - 120) <= 4 && Math.abs(w.y - win.y - 90) <= 4 && w;
    });
    expect(Math.abs(moved.x - win.x - 120)).toBeLessThanOrEqual(4);
    expect(Math.abs(moved.y - win.y - 90)).toBeLessThanOrEqual(4);
    await closeWindow(moved);
  });

  it('scrolls the content under the pointer', async () => {
    const win = await openEditor('Scroll Me', 'scroll.txt', 300);
    const region = { x: win.x, y: win.y, width: win.width, height: win.height };
    const before = await rawPixels(await guest.screenshot({ region }));
    await guest.scroll(win.x + 200, win.y + 150, 'down', 5);
    await until(
      'content scrolled',
      async () => !(await rawPixels(await guest.screenshot({ region }))).equals(before),
    );
    await closeWindow(win);
  });

  it('takes PNG and JPEG screenshots of the asked region, scale and quality', async () => {
    const full = await sharp(await guest.screenshot()).metadata();
    expect(full).toMatchObject({ format: 'png', width: 1280, height: 800 });
    const region = await sharp(
      await guest.screenshot({ region: { x: 10, y: 20, width: 123, height: 45 } }),
    ).metadata();
    expect(region).toMatchObject({ format: 'png', width: 123, height: 45 });
    const jpeg = await guest.screenshot({ format: 'jpeg', quality: 60, scale: 0.5 });
    expect(await sharp(jpeg).metadata()).toMatchObject({ format: 'jpeg', width: 640, height: 400 });
    expect(await guest.displayInfo()).toEqual({ width: 1280, height: 800, scale: 1 });
    await expect(
      guest.screenshot({ region: { x: 1200, y: 0, width: 100, height: 10 } }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(guest.screenshot({ quality: 0, format: 'jpeg' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('draws the pointer only when show_cursor is set', async () => {
    await guest.move(1100, 700);
    expect(await guest.position()).toEqual({ x: 1100, y: 700 });
    const region = { x: 1080, y: 680, width: 40, height: 40 };
    const plain = await rawPixels(await guest.screenshot({ region }));
    const withCursor = await rawPixels(await guest.screenshot({ region, showCursor: true }));
    expect(withCursor.equals(plain)).toBe(false);
  });

  it('releases its shared-memory segment when it closes, and reconnects on the next call', async () => {
    const segments = (): number =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith('/dev/shm/sandbay-x11-');
        } catch {
          return false;
        }
      }).length;
    await guest.screenshot();
    expect(segments()).toBe(1);
    await guest.close();
    await until('segment released', async () => segments() === 0);
    expect((await sharp(await guest.screenshot()).metadata()).width).toBe(1280);
    expect(segments()).toBe(1);
  });

  it('hands out VNC and SSH endpoints that answer, and records activity', async () => {
    const before = Date.now();
    await guest.position();
    expect((await guest.lastActivity())?.getTime()).toBeGreaterThanOrEqual(before);
    const ssh = await guest.ssh();
    expect(ssh.host).toBe(vmIp);
    expect(ssh.privateKey).toContain('PRIVATE KEY');
    expect((await guest.exec('id -un')).stdout.trim()).toBe(ssh.username);
    const vnc = await guest.vnc();
    expect(vnc.password.length).toBeGreaterThan(0);
    const banner = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: vnc.host, port: vnc.port });
      socket.once('data', (d) => {
        socket.destroy();
        resolve(d.toString('latin1'));
      });
      socket.once('error', reject);
    });
    expect(banner).toMatch(/^RFB 003\.\d{3}\n/);
  });
});

describe('recordings', () => {
  it('a recording stopped as soon as it started is a valid MP4 with its first frame', async () => {
    for (let i = 0; i < 3; i++) {
      const rec = await guest.startRecording();
      const stopped = await guest.stopRecording(rec.id);
      expect(stopped.state).toBe('stopped');
      expect(stopped.duration_s).toBeGreaterThan(0);
      await guest.deleteRecording(rec.id);
    }
  });

  it('fails a recording whose file the tenant swapped for a link to a root file, and reads nothing through it', async () => {
    const secret = join(dataDir, `secret-${randomBytes(4).toString('hex')}`);
    await writeFile(secret, 'root only', { mode: 0o600 });
    const rec = await guest.startRecording();
    // From inside the VM, as the tenant: the recorder's output in /tmp becomes a link to root's file.
    const swap = await guest.exec(
      `f=/tmp/sandbay-recording-${rec.id}.mp4 && test -f $f && rm $f && ln -s ${secret} $f && echo swapped`,
    );
    expect(swap.stdout.trim()).toBe('swapped');
    const stopped = await guest.stopRecording(rec.id);
    expect(stopped.state).toBe('failed');
    await expect(guest.downloadRecording(rec.id)).rejects.toMatchObject({ code: 'not_found' });
    expect(await readFile(secret, 'utf8')).toBe('root only');
    // Nothing of it left in the VM's /tmp.
    expect((await guest.exec(`ls -A /tmp | grep -c ${rec.id} || true`)).stdout.trim()).toBe('0');
    await guest.deleteRecording(rec.id);
  });

  it('fails a recording whose file the tenant swapped for a directory, and still lists and deletes it', async () => {
    const rec = await guest.startRecording();
    const swap = await guest.exec(
      `f=/tmp/sandbay-recording-${rec.id}.mp4 && test -f $f && rm $f && mkdir $f && touch $f/x && echo swapped`,
    );
    expect(swap.stdout.trim()).toBe('swapped');
    expect(await guest.stopRecording(rec.id)).toMatchObject({ state: 'failed' });
    expect((await guest.listRecordings()).find((r) => r.id === rec.id)).toMatchObject({ state: 'failed' });
    await guest.deleteRecording(rec.id);
    expect((await guest.listRecordings()).some((r) => r.id === rec.id)).toBe(false);
    // The tenant's directory is the tenant's: left as it was.
    expect((await guest.exec(`ls /tmp/sandbay-recording-${rec.id}.mp4`)).stdout.trim()).toBe('x');
    await guest.exec(`rm -r /tmp/sandbay-recording-${rec.id}.mp4`);
  });

  it('records an MP4 of the recorded duration outside the VM home, lists, downloads and deletes it', async () => {
    const rec = await guest.startRecording('demo');
    expect(rec).toMatchObject({ name: 'demo', state: 'recording' });
    // The recorder runs inside the VM's cgroup (its limits, and it dies with the VM).
    const members = (await readFile(host.describe('g').cgroup.procsFiles()[0] as string, 'utf8')).split('\n');
    const comms = await Promise.all(
      members.filter(Boolean).map((pid) => readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')),
    );
    expect(comms.map((c) => c.trim())).toContain('ffmpeg');
    // As the VM's user, inside the VM's network, mount and IPC namespaces (those of its sshd).
    const vm = host.describe('g');
    const ffmpeg = members.filter(Boolean)[comms.findIndex((c) => c.trim() === 'ffmpeg')] as string;
    expect(/^Uid:\s+(\d+)/m.exec(await readFile(`/proc/${ffmpeg}/status`, 'utf8'))?.[1]).toBe(
      String(vm.record.uid),
    );
    for (const ns of ['net', 'mnt', 'ipc']) {
      expect(readlinkSync(`/proc/${ffmpeg}/ns/${ns}`)).toBe(readlinkSync(`/proc/${vm.procs.sshd!}/ns/${ns}`));
      expect(readlinkSync(`/proc/${ffmpeg}/ns/${ns}`)).not.toBe(readlinkSync(`/proc/self/ns/${ns}`));
    }
    const started = Date.now();
    // Something to record; the duration is what this test is about, so it waits on the clock.
    await guest.move(200, 200);
    await until('1.5 s recorded', async () => Date.now() - started >= 1500);
    const stopped = await guest.stopRecording(rec.id);
    expect(stopped.state).toBe('stopped');
    expect(stopped.duration_s).toBeGreaterThan(1.0);
    expect(stopped.duration_s).toBeLessThan(3.0);

    const local = join(tmpdir(), `sbgt-${rec.id}.mp4`);
    try {
      await pipeline(await guest.downloadRecording(rec.id), createWriteStream(local));
      const probe = await run('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format=format_name,duration:stream=codec_name,width,height',
        '-of',
        'json',
        local,
      ]);
      const info = JSON.parse(probe.stdout) as {
        format: { format_name: string; duration: string };
        streams: { codec_name: string; width: number; height: number }[];
      };
      expect(info.format.format_name).toContain('mp4');
      expect(info.streams[0]).toMatchObject({ codec_name: 'h264', width: 1280, height: 800 });
      expect(Number(info.format.duration)).toBeCloseTo(stopped.duration_s as number, 1);
    } finally {
      await rm(local, { force: true });
    }
    expect((await guest.exec(`find ~ -name '${rec.id}*' | wc -l`)).stdout.trim()).toBe('0');
    expect((await guest.listRecordings()).map((r) => r.id)).toContain(rec.id);
    await guest.deleteRecording(rec.id);
    expect(await guest.getRecording(rec.id)).toBeUndefined();
    await expect(guest.downloadRecording(rec.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
