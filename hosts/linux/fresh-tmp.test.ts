// Two VMs on a machine whose /tmp has never seen an X server (no /tmp/.X11-unix): the driver makes
// the socket dir (root, 1777) before the first Xvfb, and one VM's power-off leaves the dir and the
// other VM's socket and display alone. The driver runs in a child process with a private mount
// namespace whose /tmp is an empty tmpfs (`unshare -m`), so the machine's real /tmp, where other
// VMs' sockets live, is not touched; the namespace and its mounts end with the child.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const INDEX = new URL('./index.ts', import.meta.url).pathname;
const X_PROBE = new URL('./x-probe.ts', import.meta.url).pathname;
const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

const SCRIPT = `
  import { existsSync, lstatSync, mkdtempSync, readFileSync } from 'node:fs';
  import { createLinuxDriver } from ${JSON.stringify(INDEX)};
  import { XProbe } from ${JSON.stringify(X_PROBE)};
  const dirState = () => {
    if (!existsSync('/tmp/.X11-unix')) return null;
    const st = lstatSync('/tmp/.X11-unix');
    return { uid: st.uid, mode: st.mode & 0o7777 };
  };
  const socket = (d) => '/tmp/.X11-unix/X' + d.slice(1);
  const out = { before: dirState() };
  const driver = createLinuxDriver({ dataDir: mkdtempSync('/tmp/sbfresh-'), discardOnClose: true });
  const host = driver.host({ name: 'fresh', address: '127.0.0.1', model: 'm4' });
  try {
    for (const name of ['a', 'b']) {
      await host.createVm({ name, image: 'base-macos-26', cpu: 1, memoryGiB: 2 });
      await host.startVm(name);
    }
    const [a, b] = ['a', 'b'].map((n) => host.describe(n));
    out.started = dirState();
    out.bothSockets = existsSync(socket(a.record.display)) && existsSync(socket(b.record.display));
    await host.stopVm('a');
    out.afterPowerOff = dirState();
    out.aSocket = existsSync(socket(a.record.display));
    out.bSocket = existsSync(socket(b.record.display));
    const x = await XProbe.connect(b.record.display, readFileSync(b.paths.xauthority).subarray(-16));
    x.close();
    out.bAnswers = true;
  } finally {
    await driver.close();
  }
  console.log(JSON.stringify(out));
`;

function inFreshTmp(): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'private',
        '--',
        'sh',
        '-c',
        // A clone under /tmp (scripts/soak-tests.sh) stays visible: moved onto the new /tmp.
        [
          'set -e',
          'case "$2" in /tmp/*) mount --bind "$2" /srv ;; esac',
          'mount -t tmpfs -o mode=1777 sandbay-fresh-tmp /tmp',
          'case "$2" in /tmp/*) mkdir -p "$2" && mount --move /srv "$2" ;; esac',
          'exec "$0" --input-type=module -e "$1"',
        ].join('\n'),
        process.execPath,
        SCRIPT,
        REPO,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as Record<string, unknown>);
      else reject(new Error(`driver in a fresh /tmp exited ${code}: ${err}${out}`));
    });
  });
}

describe('a machine without /tmp/.X11-unix', () => {
  it("gets it from the driver (root, 1777), and one VM's power-off leaves it and the other VM's socket", async () => {
    const r = await inFreshTmp();
    expect(r.before).toBeNull();
    expect(r.started).toEqual({ uid: 0, mode: 0o1777 });
    expect(r.bothSockets).toBe(true);
    expect(r.afterPowerOff).toEqual({ uid: 0, mode: 0o1777 });
    expect(r.aSocket).toBe(false);
    expect(r.bSocket).toBe(true);
    expect(r.bAnswers).toBe(true);
  });
});
