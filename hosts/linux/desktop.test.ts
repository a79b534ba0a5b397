// The desktop a VM of the linux driver opens onto, checked by effect on a real VM: the XFCE session is
// on screen when the VM is ready, its apps open windows whose accessibility trees reach `windows()`,
// files open by type, windows move, resize, minimize and restore, and Chromium opens no socket off
// this machine. Apps are started detached with their output redirected (a GUI app must not hold an
// exec call open).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.ts';
import type { WindowNode } from '../driver.ts';
import type { LinuxGuest } from './guest.ts';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { liveUserPids } from './vm-user.ts';

let dataDir: string;
let driver: LinuxDriver;
let host: LinuxHost;
let guest: LinuxGuest;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sbdesk-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 });
  host = driver.host({ name: 'desktop-test', address: '127.0.0.1', model: 'm4' });
  await host.createVm({ name: 'd', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  await host.startVm('d');
  guest = host.guest('d') as LinuxGuest;
});

afterAll(async () => {
  await driver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Starts a GUI program detached from the exec call, its output discarded. */
async function launch(command: string): Promise<void> {
  const res = await guest.exec(`setsid -f ${command} >/dev/null 2>&1 </dev/null`);
  expect(res.return_code).toBe(0);
}

async function windowOf(app: string, withTree = false): Promise<WindowNode | undefined> {
  return (await guest.windows()).find((w) => w.app === app && (!withTree || (w.children?.length ?? 0) > 0));
}

function flatten(n: WindowNode): WindowNode[] {
  return [n, ...(n.children ?? []).flatMap(flatten)];
}

describe('the desktop session', () => {
  it('is on screen when the VM is ready: panel and wallpaper mapped, the screenshot not blank', async () => {
    const apps = (await guest.windows()).map((w) => w.app);
    expect(apps).toEqual(expect.arrayContaining(['Xfce4-panel', 'Xfdesktop']));
    const { channels } = await sharp(await guest.screenshot()).stats();
    expect(channels.every((c) => c.stdev > 10)).toBe(true);
    const wm = await guest.exec('xprop -root _NET_SUPPORTING_WM_CHECK _NET_NUMBER_OF_DESKTOPS');
    expect(wm.stdout).toContain('_NET_NUMBER_OF_DESKTOPS(CARDINAL) = 1');
  });

  it('opens a text file by type in Mousepad, whose accessibility tree reaches windows()', async () => {
    await guest.exec("printf 'hello from sandbay\\n' > ~/Documents/note.txt");
    await launch('xdg-open ~/Documents/note.txt');
    const win = await waitFor(() => windowOf('Mousepad', true), 'Mousepad with its tree', 30_000);
    expect(win.name).toContain('note.txt');
    const text = flatten(win).find((n) => n.role === 'text' || n.role === 'editbar');
    expect(text).toBeDefined();
  });

  it('opens a folder by type in Thunar and starts the terminal, both with accessibility trees', async () => {
    await launch('xdg-open ~/Documents');
    await launch('xfce4-terminal --title sandbay-terminal');
    const thunar = await waitFor(() => windowOf('Thunar', true), 'Thunar with its tree', 30_000);
    expect(thunar.name).toContain('Documents');
    const term = await waitFor(() => windowOf('Xfce4-terminal', true), 'the terminal with its tree', 30_000);
    expect(flatten(term).some((n) => n.role === 'terminal')).toBe(true);
  });

  it('moves, resizes, minimizes and restores a window', async () => {
    await launch('mousepad --name=sbmove');
    const opened = await waitFor(
      async () => (await guest.windows()).find((w) => w.app === 'Mousepad' && w.name.startsWith('Untitled')),
      'a new Mousepad window',
      30_000,
    );
    const id = opened.id as string;
    let last: unknown;
    const byId = async () => (last = (await guest.windows()).find((w) => w.id === id));
    // First to a known place away from the screen's edges: where xfwm4 puts a new window depends on
    // the windows already open, and a drag that ends within 10 px of an edge snaps to it.
    await guest.exec(`wmctrl -i -r ${id} -e 0,200,150,600,400`);
    const before = await waitFor(async () => {
      const w = await byId();
      return w?.width === 600 && w.height === 400 && w;
    }, 'the window placed');
    // Move: drag the title bar (xfwm4 draws it above the client area).
    const grab = { x: before.x + Math.floor(before.width / 2), y: before.y - 10 };
    await guest.drag(grab, { x: grab.x + 120, y: grab.y + 80 });
    await waitFor(
      async () => {
        const w = await byId();
        return w?.x === before.x + 120 && w.y === before.y + 80;
      },
      'the window moved',
      10_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: from ${JSON.stringify(before)}, now ${JSON.stringify(last)}`);
    });
    // Resize and minimize through the window manager's EWMH requests; restore by activating it.
    await guest.exec(`wmctrl -i -r ${id} -e 0,-1,-1,500,320`);
    await waitFor(async () => (await byId())?.width === 500, 'the window resized', 10_000);
    await guest.exec(`xdotool windowminimize ${id}`);
    await waitFor(async () => (await byId()) === undefined, 'the window minimized', 10_000);
    await guest.exec(`wmctrl -i -a ${id}`);
    const restored = await waitFor(byId, 'the window restored', 10_000);
    expect(restored).toMatchObject({ width: 500 });
  });
});

/** Remote addresses of the TCP/UDP sockets that the processes `pids` hold, as kernel hex strings. */
function remoteAddresses(pids: number[]): string[] {
  const out: string[] = [];
  for (const pid of pids) {
    const inodes = new Set<string>();
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m?.[1]) inodes.add(m[1]);
      }
      for (const table of ['tcp', 'tcp6', 'udp', 'udp6']) {
        for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
          const f = line.trim().split(/\s+/);
          if (f[9] && inodes.has(f[9]) && f[2]) out.push(`${table} ${f[2]}`);
        }
      }
    } catch {
      // The process exited meanwhile.
    }
  }
  return out;
}

/** Whether a /proc/net remote address (hex, host byte order for IPv4) is unconnected or loopback. */
function local(entry: string): boolean {
  const addr = entry.split(' ')[1]?.split(':')[0] ?? '';
  if (/^0+$/.test(addr)) return true; // not connected
  if (addr.length === 8) return addr.endsWith('7F'); // 127.0.0.0/8, little-endian
  return (
    addr === '00000000000000000000000001000000' || // ::1
    (addr.startsWith('0000000000000000FFFF0000') && addr.endsWith('7F')) // ::ffff:127.x
  );
}

it('scrolls a window without focus by every notch asked (the first also focuses it, as xfwm4 does)', async () => {
  // Two xev windows side by side; the left one focused, the wheel over the right one.
  for (const [name, geometry] of [
    ['wheel-a', '300x300+50+150'],
    ['wheel-b', '300x300+600+150'],
  ] as const) {
    await launch(
      `sh -c 'exec stdbuf -oL xev -geometry ${geometry} -name ${name} -event button > ~/${name}.txt 2>&1'`,
    );
  }
  const wins = await waitFor(async () => {
    const w = (await guest.windows()).filter((x) => x.name.startsWith('wheel-'));
    return w.length === 2 ? w : undefined;
  }, 'both xev windows');
  const [a, b] = ['wheel-a', 'wheel-b'].map((n) => wins.find((w) => w.name === n)!);
  await guest.click(a!.x + 20, a!.y + 20);
  await waitFor(
    async () => (await guest.windows()).find((w) => w.name === 'wheel-a')?.focused === true,
    'the left window focused',
  );
  await guest.scroll(b!.x + b!.width - 20, b!.y + b!.height - 20, 'down', 3);
  // All three reach the window (sent at once, only the first did).
  const presses = async () =>
    (await guest.exec('grep -A2 ButtonPress ~/wheel-b.txt | grep -o "button [0-9]*"')).stdout
      .trim()
      .split('\n');
  await waitFor(async () => (await presses()).length >= 3, 'three wheel presses in the right window');
  expect(await presses()).toEqual(['button 5', 'button 5', 'button 5']);
  expect((await guest.windows()).find((w) => w.name === 'wheel-b')?.focused).toBe(true);
  await guest.exec('pkill -x xev');
});

describe('Chromium', () => {
  // A page served inside the VM, on the VM's own loopback (its network namespace: the machine's
  // loopback is out of its reach). Its image never finishes loading, so the browser holds its
  // connection to the server open while the test watches: that shows the watch sees sockets.
  const port = 8765;
  const server = [
    'import http.server as h',
    'class Page(h.BaseHTTPRequestHandler):',
    '    def do_GET(self):',
    '        self.send_response(200)',
    "        self.send_header('Content-Type', 'text/html' if self.path == '/' else 'image/png')",
    '        self.end_headers()',
    "        if self.path == '/':",
    '            self.wfile.write(b\'<title>sandbay page</title><h1>hello</h1><img src="/slow.png">\')',
    '        else:',
    '            self.wfile.flush()',
    '            self.rfile.read()  # until the browser closes',
    `h.ThreadingHTTPServer(('127.0.0.1', ${port}), Page).serve_forever()`,
    '',
  ].join('\n');
  beforeAll(async () => {
    const served = await guest.exec(
      [
        `echo ${Buffer.from(server).toString('base64')} | base64 -d > ~/serve.py`,
        'setsid -f python3 ~/serve.py >/dev/null 2>&1 </dev/null',
        `for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && exit 0; sleep 0.05; done; exit 1`,
      ].join('\n'),
    );
    expect(served.return_code).toBe(0);
  });

  it('starts without a first-run dialog, with its accessibility tree, and opens no socket off this machine', async () => {
    const uid = Number((await guest.exec('id -u')).stdout.trim());
    const chromiumPids = () =>
      liveUserPids(uid).filter((pid) => {
        try {
          return readlinkSync(`/proc/${pid}/exe`).startsWith('/usr/lib/chromium/');
        } catch {
          return false;
        }
      });
    // Every socket of its processes, watched from the launch on: what a browser does on its own
    // happens in its first seconds (update checks, variations, safe browsing lists), and its
    // connection to the page may be closed again (keep-alive ends) before the window is found.
    const seen = new Set<string>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        for (const a of remoteAddresses(chromiumPids())) seen.add(a);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      await launch(`exo-open --launch WebBrowser http://127.0.0.1:${port}/`);
      const win = await waitFor(
        async () =>
          (await guest.windows()).find((w) => w.app === 'Chromium' && w.name.startsWith('sandbay page')),
        'the Chromium window showing the page',
        60_000,
      );
      // The page's own accessibility tree (its heading) reaches windows(), not only the browser's frame.
      await waitFor(
        async () =>
          (await guest.windows()).some((w) => w.id === win.id && flatten(w).some((n) => n.name === 'hello')),
        "the page's heading in the window's tree",
        30_000,
      );
      // And for 8 s after the page is up.
      await new Promise((r) => setTimeout(r, 8000));
    } finally {
      watching = false;
      await watch;
    }
    const toPage = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
    expect([...seen].some((a) => a.startsWith('tcp ') && a.endsWith(toPage))).toBe(true);
    expect([...seen].filter((a) => !local(a))).toEqual([]);
  });
});
