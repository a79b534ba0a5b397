// `tart run NAME --no-graphics --vnc-experimental` on an emulated Mac: the VM is a real Linux desktop
// built from the linux driver's pieces (Xvfb, a session bus and the XFCE session, a password-protected x11vnc)
// plus the guest's own sshd for the user `admin` in the VM's network namespace at 192.168.64.x.
// As with Tart, the VNC server listens on the Mac's 127.0.0.1 (Virtualization.framework's server runs
// in the `tart` process, not in the guest), the process stays in the foreground for the VM's life,
// prints one `VNC server is running at vnc://:<password>@127.0.0.1:<port>` line, exits 0 on SIGINT
// (what `tart stop` sends) and takes the VM down with it however it dies (every VM process is
// started with a parent-death signal).
import { randomInt } from 'node:crypto';
import { chownSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import {
  startSession,
  startVnc,
  startXvfb,
  writeXauthority,
  type ScreenSpec,
} from '../../../hosts/linux/display.ts';
import { greets, waitReady } from '../../../hosts/linux/probe.ts';
import { ProcessTracker, run, type TrackedProcess } from '../../../hosts/linux/runner.ts';
import { sshdConfig } from '../../../hosts/linux/sshd.ts';
import { ensureVmUser, killUserProcesses, removeShm } from '../../../hosts/linux/vm-user.ts';
import { FAULTS, takeFault } from './faults.ts';
import { createVmNetwork, deleteVmNetwork } from './network.ts';
import {
  emulationDir,
  guestHome,
  openVm,
  runState,
  TartError,
  tartHome,
  vmDir,
  writeRunState,
} from './tart-store.ts';
import { PASSPHRASE_WORDS } from './words.ts';

/** Apple's licence: two macOS VMs at once per Mac (Virtualization.framework refuses a third). */
const LICENCE_LIMIT = 2;

/** What `npm run emulated-macs -- up` recorded about this Mac (`$SANDBAY_EMULATED_MAC/mac.json`). */
interface MacFacts {
  netns: string;
  link: number;
}

function macFacts(): MacFacts {
  const dir = process.env.SANDBAY_EMULATED_MAC;
  if (!dir) throw new TartError('not an emulated Mac: SANDBAY_EMULATED_MAC is unset');
  return JSON.parse(readFileSync(join(dir, 'mac.json'), 'utf8')) as MacFacts;
}

export async function runVm(args: string[]): Promise<number> {
  const name = args.find((a) => !a.startsWith('-'));
  if (name === undefined) {
    process.stderr.write("Error: Missing expected argument '<name>'\n");
    return 64;
  }
  const config = openVm(name);
  if (runState(name)) throw new TartError(`VM "${name}" is already running!`, 2);
  const slot = claimSlot(name);
  const mac = macFacts();
  const tracker = new ProcessTracker();
  const ip = `192.168.64.${2 + slot}`;
  const emu = emulationDir(name);
  const home = guestHome(name);
  const logs = join(emu, 'logs');
  const runtimeDir = `/run/sandbay-emulated-macs/rt/${mac.netns}-vm${slot}`;
  let vmNetns: string | undefined;
  let slotUid: number | undefined;
  let mounted = false;
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await tracker.killAll();
    // What the session started on its own (the accessibility bus, apps) has no parent-death signal.
    if (slotUid !== undefined) {
      await killUserProcesses(slotUid);
      // x11vnc's shared-memory segments outlive it unless removed (4096 on the whole machine).
      await removeShm(slotUid).catch(() => {});
    }
    // Unmounted here so that the disk holds every write once `tart stop` returns (a SIGKILLed run
    // leaves it to the kernel, as a crashed VM leaves its disk).
    if (mounted) {
      await run('sync', ['-f', home]).catch(() => {});
      await run('umount', [home]).catch((e: Error) => process.stderr.write(`${e.message}\n`));
    }
    if (vmNetns) await deleteVmNetwork(vmNetns);
    rmSync(runtimeDir, { recursive: true, force: true });
    rmSync(join(emu, 'run.json'), { force: true });
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  try {
    mkdirSync(logs, { recursive: true });
    rmSync(runtimeDir, { recursive: true, force: true });
    mkdirSync(dirname(runtimeDir), { recursive: true, mode: 0o755 });
    mkdirSync(runtimeDir, { mode: 0o700 });
    // The guest user is `admin` inside the VM (sshd's view); on this machine a user per Mac slot,
    // so the desktop's processes have a passwd entry (dbus insists) and VMs cannot touch each other.
    // Its passwd home is fixed (usermod refuses while a process of the user lives); sshd's view of
    // `admin` and the desktop's HOME are this VM's home.
    const { uid, gid } = await ensureVmUser(
      `sbemac${mac.link}s${slot}`,
      `/run/sandbay-emulated-macs/rt/${mac.netns}-vm${slot}`,
    );
    slotUid = uid;
    // A `tart run` of this slot that was SIGKILLed left its session's own processes (they have no
    // parent-death signal), holding its disk mounted: gone before this VM mounts its own. (A real
    // VM is one process; this is the emulation cleaning up after itself.)
    await killUserProcesses(uid);
    await removeShm(uid);
    chownSync(runtimeDir, uid, gid);
    // The guest's disk: its file system is the guest user's home (this process's own mount namespace,
    // see the `tart` wrapper). noinit_itable: no background writes that a disk delta would pick up.
    await run('mount', ['-o', 'loop,noinit_itable', join(vmDir(name), 'disk.img'), home]);
    mounted = true;
    await run('chown', ['-R', `${uid}:${gid}`, home]);
    await run('chmod', ['700', home]);
    const xauthority = join(runtimeDir, 'Xauthority');
    const cookie = writeXauthority(xauthority, uid, gid);
    const screen: ScreenSpec = {
      vmUser: { user: 'admin', uid, gid, home },
      cgroup: undefined,
      runtimeDir,
      xauthority,
      width: config.display.width,
      height: config.display.height,
      logDir: logs,
      pdeathsig: true,
    };
    const x = await startXvfb(tracker, screen);
    watch(x.proc, shutdown);
    const vnc = { ip: '127.0.0.1', port: await freePort(), password: passphrase() };
    vmNetns = await createVmNetwork(mac.netns, slot, ip);
    const [session, vncProc, sshd] = await Promise.all([
      startSession(tracker, screen, x, cookie),
      startVnc(tracker, screen, x.display, vnc),
      startGuestSshd(tracker, {
        name,
        vmNetns,
        ip,
        uid,
        gid,
        home,
        runtimeDir,
        xauthority,
        display: x.display,
      }),
    ]);
    for (const p of [session.bus, session.session, vncProc, sshd]) watch(p, shutdown);
    // A test's knob (faults.ts): the VM runs, but the line never comes.
    if (!takeFault(FAULTS.withholdVncLine)) {
      console.log(`VNC server is running at vnc://:${vnc.password}@127.0.0.1:${vnc.port}`);
    }
    // The guest's DHCP lease: `tart ip` finds the address once the guest is up.
    writeRunState(name, { pid: process.pid, slot, ip });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    await shutdown(1);
  }
  await new Promise(() => {});
  return 0;
}

/** A dying VM process takes the VM down, as a crashed guest ends `tart run`. */
function watch(p: TrackedProcess, shutdown: (code: number) => Promise<void>): void {
  void p.exited.then(() => shutdown(1));
}

/**
 * Records this process as the VM's `tart run` in the first free slot, or refuses as Tart does past
 * the licence limit. A lock dir keeps two concurrent runs from taking the same slot.
 */
function claimSlot(name: string): number {
  const lock = join(tartHome(), '.run-lock');
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (i > 200) throw new TartError('timed out waiting for the run lock');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
  try {
    const others = listRunning().filter((o) => o.name !== name);
    if (others.length >= LICENCE_LIMIT) {
      const names = others.map((o) => o.name).join(', ');
      throw new TartError(`The number of VMs exceeds the system limit (other running VMs: ${names})`);
    }
    const used = new Set(others.map((o) => o.slot));
    const slot = [0, 1].find((s) => !used.has(s))!;
    writeRunState(name, { pid: process.pid, slot });
    return slot;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function listRunning(): { name: string; slot: number }[] {
  const out: { name: string; slot: number }[] = [];
  let names: string[];
  try {
    names = readdirSync(join(tartHome(), 'vms'));
  } catch {
    return out;
  }
  for (const n of names) {
    const s = runState(n);
    if (s) out.push({ name: n, slot: s.slot });
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Four words joined by `-`, as Tart's PassphraseGenerator makes the VNC password. */
function passphrase(): string {
  return Array.from({ length: 4 }, () => PASSPHRASE_WORDS[randomInt(PASSPHRASE_WORDS.length)]).join('-');
}

interface GuestSshd {
  name: string;
  vmNetns: string;
  ip: string;
  uid: number;
  gid: number;
  home: string;
  runtimeDir: string;
  xauthority: string;
  display: string;
}

/**
 * The guest's sshd (macOS Remote Login) in the VM's namespace on port 22, for the user `admin` only.
 * `admin` exists only inside the VM: sshd runs in a mount namespace where /etc/passwd is the Mac's
 * plus an `admin` line with this VM's uid and home (this machine's user for the Mac's slot).
 */
async function startGuestSshd(tracker: ProcessTracker, g: GuestSshd): Promise<TrackedProcess> {
  const emu = emulationDir(g.name);
  // An overlay on /etc whose upper layer holds this VM's passwd: a bind mount of the file alone
  // would be detached by the kernel the moment any useradd on the machine renames /etc/passwd.
  const etc = join(emu, 'etc');
  rmSync(etc, { recursive: true, force: true });
  mkdirSync(join(etc, 'upper'), { recursive: true });
  mkdirSync(join(etc, 'work'), { recursive: true });
  const hostPasswd = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('admin:') && line.split(':')[2] !== String(g.uid))
    .map((line) => `${line}\n`)
    .join('');
  writeFileSync(
    join(etc, 'upper', 'passwd'),
    `${hostPasswd}admin:*:${g.uid}:${g.gid}:admin:${g.home}:/bin/bash\n`,
  );
  const config = join(emu, 'sshd_config');
  writeFileSync(
    config,
    sshdConfig({
      ip: g.ip,
      port: 22,
      user: 'admin',
      hostKeyFile: join(emu, 'ssh_host_ed25519_key'),
      authorizedKeysFile: '.ssh/authorized_keys',
      env: {
        DISPLAY: g.display,
        XAUTHORITY: g.xauthority,
        XDG_RUNTIME_DIR: g.runtimeDir,
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${g.runtimeDir}/bus`,
        PATH: '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin',
      },
    }),
    { mode: 0o600 },
  );
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const script =
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc && ' +
    'exec /usr/sbin/sshd -D -e -f "$2"';
  const proc = await tracker.start(
    'setpriv',
    ['--pdeathsig', 'KILL', '--', 'ip', 'netns', 'exec', g.vmNetns, 'sh', '-c', script, 'sh', etc, config],
    { label: 'guest sshd', logFile: join(emu, 'logs', 'sshd.log') },
  );
  // Real Tart sets no deadline on a guest's boot: the driver's own (`tart ip --wait`, its boot
  // timeout) decides when a boot has failed. This bound only keeps a wedged emulation from hanging
  // forever; it is past the driver's default (60 s). (A 10-s bound here once failed a boot whose
  // first greeting came 20-45 s late: the Mac's stale neighbour entry for the slot's address, which
  // createVmNetwork now drops.)
  await waitReady(`guest sshd on ${g.ip}:22`, proc, () => greets(g.ip, 22, 'SSH-2.0-'), 120_000);
  return proc;
}
