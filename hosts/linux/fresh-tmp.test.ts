// Two VMs on a machine whose /tmp has never seen an X server (no /tmp/.X11-unix): the driver makes
// the socket dir (root, 1777) before the first Xvfb, each VM's X server keeps its socket file in a
// dir of the VM's instead, so a root X server started later on the machine cannot take it over, and
// one VM's power-off leaves the other VM's socket and display alone. The driver runs in a child
// process with a private mount namespace whose /tmp is an empty tmpfs (`unshare -m`), so the
// machine's real /tmp, where other tests' X servers live, is not touched; the namespace and its
// mounts end with the child.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const INDEX = new URL('./index.ts', import.meta.url).pathname;
const RESET = new URL('./machine-reset.ts', import.meta.url).pathname;
const X_PROBE = new URL('./x-probe.ts', import.meta.url).pathname;
const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

const SCRIPT = `
  import { spawn } from 'node:child_process';
  import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
  import { createLinuxDriver } from ${JSON.stringify(INDEX)};
  import { resetMachine } from ${JSON.stringify(RESET)};
  import { XProbe } from ${JSON.stringify(X_PROBE)};
  const dirState = () => {
    if (!existsSync('/tmp/.X11-unix')) return null;
    const st = lstatSync('/tmp/.X11-unix');
    return { uid: st.uid, mode: st.mode & 0o7777, files: readdirSync('/tmp/.X11-unix') };
  };
  const answers = async (vm, cookie) => {
    try {
      (await XProbe.connect(vm.record.xSocket, cookie)).close();
      return 'answers';
    } catch (e) {
      return e.message;
    }
  };
  const cookieOf = (vm) => readFileSync(vm.paths.xauthority).subarray(-16);
  // An X server of root's on the machine, started after the VMs on b's display number, in a network
  // namespace of its own (where that display's abstract socket is free, as in any namespace but b's):
  // it unlinks /tmp/.X11-unix/X<n> and listens there. It has no -auth, so it lets any cookie in.
  const rootServer = (display) => new Promise((resolve, reject) => {
    const p = spawn('unshare', ['--net', '--', 'Xvfb', display, '-displayfd', '3', '-screen', '0', '320x200x24', '-nolisten', 'tcp'],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    p.stdio[3].once('data', () => resolve(p));
    p.once('exit', (code) => reject(new Error('the root X server exited with ' + code)));
  });
  const out = { before: dirState() };
  // Users of its own prefix: from in here every other driver's data dir under /tmp looks gone, and a
  // driver takes back the slots of dead drivers of its prefix whose data dir is gone (adopt.ts).
  const userPrefix = 'sbfrsh';
  const driver = createLinuxDriver({ dataDir: mkdtempSync('/tmp/sbfresh-'), discardOnClose: true, userPrefix });
  const host = driver.host({ name: 'fresh', address: '127.0.0.1', model: 'm4' });
  try {
    for (const name of ['a', 'b']) {
      await host.createVm({ name, image: 'base-macos-26', cpu: 1, memoryGiB: 2 });
      await host.startVm(name);
    }
    const [a, b] = ['a', 'b'].map((n) => host.describe(n));
    out.started = dirState();
    out.bothSockets = existsSync(a.record.xSocket) && existsSync(b.record.xSocket);
    const bSocket = statSync(b.record.xSocket).ino;
    const intruder = await rootServer(b.record.display);
    out.withRootServer = {
      dir: dirState(),
      bSocketKept: statSync(b.record.xSocket).ino === bSocket,
      bWithCookie: await answers(b, cookieOf(b)),
      bWithOtherCookie: await answers(b, Buffer.alloc(16)),
    };
    // SIGTERM: it removes its socket file on the way out.
    await new Promise((resolve) => (intruder.once('exit', resolve), intruder.kill('SIGTERM')));
    await host.stopVm('a');
    out.afterPowerOff = dirState();
    out.aSocket = existsSync(a.record.xSocket);
    out.bSocket = existsSync(b.record.xSocket);
    out.bAnswers = await answers(b, cookieOf(b));
  } finally {
    await driver.close();
    await resetMachine({ userPrefix }); // the VM users, which a driver keeps for its next VMs
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
  it("gets it from the driver (root, 1777); VMs' X sockets are their own, kept from a root X server and from each other's power-off", async () => {
    const r = await inFreshTmp();
    expect(r.before).toBeNull();
    expect(r.started).toEqual({ uid: 0, mode: 0o1777, files: [] });
    expect(r.bothSockets).toBe(true);
    expect(r.withRootServer).toEqual({
      dir: { uid: 0, mode: 0o1777, files: [expect.stringMatching(/^X\d+$/)] },
      bSocketKept: true,
      bWithCookie: 'answers',
      bWithOtherCookie: expect.stringMatching(/refused/),
    });
    expect(r.afterPowerOff).toEqual({ uid: 0, mode: 0o1777, files: [] });
    expect(r.aSocket).toBe(false);
    expect(r.bSocket).toBe(true);
    expect(r.bAnswers).toBe('answers');
  });
});
