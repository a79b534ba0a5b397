// `tart run NAME --no-graphics --vnc-experimental` on an emulated Mac: the VM is a real Linux desktop
// built from the linux driver's pieces (Xvfb, a session bus and the XFCE session, a password-protected x11vnc)
// plus the guest's own sshd for the user `admin` in the VM's network namespace at 192.168.64.x.
// As with Tart, the VNC server listens on the Mac's 127.0.0.1 (Virtualization.framework's server runs
// in the `tart` process, not in the guest), the process stays in the foreground for the VM's life,
// prints one `VNC server is running at vnc://:<password>@127.0.0.1:<port>` line, exits 0 on SIGINT
// (what `tart stop` sends) and takes the VM down with it however it dies (every VM process is
// started with a parent-death signal).
import { randomInt } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import {
  startSession,
  startVnc,
  startXvfb,
  writeXauthority,
  type ScreenSpec,
} from '../../../hosts/linux/display.ts';
import { greets, waitReady } from '../../../hosts/linux/probe.ts';
import { X11Connection } from '../../../hosts/linux/x11-connection.ts';
import { ProcessTracker, run, type TrackedProcess } from '../../../hosts/linux/runner.ts';
import { sshdConfig } from '../../../hosts/linux/sshd.ts';
import { ensureVmUser, killUserProcesses, removeShm } from '../../../hosts/linux/vm-user.ts';
import { FAULTS, takeFault } from './faults.ts';
import { GUEST_PATH, guestBin, guestXresources } from './guest-env.ts';
import { createVmNetwork, deleteVmNetwork, softnetPort } from './network.ts';
import {
  emulationDir,
  guestDisk,
  guestHome,
  openVm,
  runState,
  TartError,
  tartHome,
  vmDir,
  writeRunState,
} from './tart-store.ts';
import { startVzVnc, type VzVnc } from './vz-vnc.ts';
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
  const softnet = args.some((a) => a.startsWith('--net-softnet'));
  if (softnet) checkSoftnet();
  // This process is the first of a PID namespace of its own (the `tart` wrapper): every process of
  // the VM is in it and sees only its VM's processes, as a macOS guest, a VM of its own, sees none
  // of the Mac's or of another VM's. The run is recorded under the Mac's pid (what `tart stop`
  // signals), read while /proc is still the Mac's, and the slot claimed then too (other VMs' runs
  // are checked in the Mac's /proc); then /proc becomes this namespace's.
  const hostPid = Number(readlinkSync('/proc/self'));
  const slot = claimSlot(name, hostPid);
  await run('mount', ['-t', 'proc', '-o', 'nosuid,nodev,noexec', 'proc', '/proc']);
  // The socket dirs where the guest's programs name sockets by pid or display number (the session's
  // ICE listener /tmp/.ICE-unix/<pid>, the X server's socket) are the VM's own: another VM's same
  // pid or display must not meet them. (Not all of /tmp: the Mac's own files may live under it.)
  for (const dir of ['/tmp/.ICE-unix', '/tmp/.X11-unix']) {
    mkdirSync(dir, { recursive: true, mode: 0o1777 });
    await run('mount', ['-t', 'tmpfs', '-o', 'mode=1777,nosuid,nodev,size=1m', 'sbmac-vm-sockets', dir]);
  }
  const mac = macFacts();
  const tracker = new ProcessTracker();
  const ip = `192.168.64.${2 + slot}`;
  const emu = emulationDir(name);
  const disk = guestDisk(name);
  const home = guestHome(name);
  const logs = join(emu, 'logs');
  const runtimeDir = `/run/sandbay-emulated-macs/rt/${mac.netns}-vm${slot}`;
  let vmNetns: string | undefined;
  let slotUid: number | undefined;
  let mounted = false;
  let stopping = false;
  let vzVnc: VzVnc | undefined;
  let xconn: X11Connection | undefined;
  let power: Server | undefined;
  /**
   * The VM goes away. `clean`: the guest shut itself down (its file system unmounted after its last
   * write, as macOS does before it powers off). Otherwise a power cut, as Virtualization.framework's
   * `stop()` (what `tart stop` asks for) is: the guest's file system stops where it is, its unwritten
   * data and journal lost (ext4's shutdown ioctl, no log flush), so the disk is what a Mac's power
   * cut leaves.
   */
  const shutdown = async (code: number, clean = false) => {
    if (stopping) return;
    stopping = true;
    power?.close();
    if (mounted && !clean) await cutPower(disk).catch((e: Error) => process.stderr.write(`${e.message}\n`));
    vzVnc?.close();
    xconn?.close();
    await tracker.killAll();
    // What the session started on its own (the accessibility bus, apps) has no parent-death signal.
    if (slotUid !== undefined) {
      await killUserProcesses(slotUid);
      // x11vnc's shared-memory segments outlive it unless removed (4096 on the whole machine).
      await removeShm(slotUid).catch(() => {});
    }
    // A clean shutdown writes everything and unmounts; after a power cut the unmount writes nothing
    // (a SIGKILLed run leaves it to the kernel, as a crashed VM leaves its disk).
    if (mounted) {
      if (clean) await run('sync', ['-f', disk]).catch(() => {});
      await run('umount', [disk]).catch((e: Error) => process.stderr.write(`${e.message}\n`));
    }
    if (softnet) await softnetPort(mac.netns, slot, false).catch(() => {});
    if (vmNetns) await deleteVmNetwork(vmNetns);
    rmSync(runtimeDir, { recursive: true, force: true });
    rmSync(dirname(powerSocket(runtimeDir)), { recursive: true, force: true });
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
    mkdirSync(disk, { recursive: true });
    await run('mount', ['-o', 'loop,noinit_itable', join(vmDir(name), 'disk.img'), disk]);
    mounted = true;
    // The guest's admin owns its whole file system: the emulated guest has no root of its own, and
    // admin (passwordless sudo on Cirrus' images) is who may change its system files (guest-env.ts).
    await run('chown', ['-R', `${uid}:${gid}`, disk]);
    await run('chmod', ['700', home]);
    const xauthority = join(runtimeDir, 'Xauthority');
    const cookie = writeXauthority(xauthority, uid, gid);
    vmNetns = await createVmNetwork(mac.netns, slot, ip);
    if (softnet) await softnetPort(mac.netns, slot, true);
    // The desktop lives in the VM's network namespace, as everything the guest runs does: the
    // sockets its programs name after their pid (the ICE listener of the session) cannot meet
    // another VM's, whose pids (a PID namespace each) may be the same numbers.
    const screen: ScreenSpec = {
      vmUser: { user: 'admin', uid, gid, home },
      cgroup: undefined,
      runtimeDir,
      xauthority,
      width: config.display.width,
      height: config.display.height,
      logDir: logs,
      pdeathsig: true,
      namespaces: { net: `/run/netns/${vmNetns}` },
    };
    const x = await startXvfb(tracker, screen);
    watch(x.proc, shutdown);
    // x11vnc serves the framebuffer behind the framework's server (vz-vnc.ts), which takes the input;
    // in the VM's namespace with the desktop, it listens on the VM's address (the Mac reaches it
    // over its bridge), with the VM's random VNC password.
    const vnc = { password: passphrase() };
    const x11vnc = { ip, port: 5900, password: vnc.password };
    const [session, vncProc, sshd] = await Promise.all([
      startSession(tracker, screen, x, cookie),
      startVnc(tracker, screen, x.display, x11vnc).then(async (p) => {
        xconn = await X11Connection.open(x.display, x.socket, {
          name: 'MIT-MAGIC-COOKIE-1',
          data: cookie.toString('latin1'),
        });
        vzVnc = await startVzVnc({ host: x11vnc.ip, port: x11vnc.port }, xconn);
        return p;
      }),
      startGuestSshd(tracker, {
        name,
        vmNetns,
        ip,
        uid,
        gid,
        disk,
        home,
        runtimeDir,
        xauthority,
        display: x.display,
      }),
    ]);
    for (const p of [session.bus, session.session, vncProc, sshd]) watch(p, shutdown);
    // The guest's power button: its `shutdown -h now` (guest-env.ts) asks here, as macOS's asks the
    // hardware, and the VM powers off cleanly: `tart run` exits 0.
    power = await listenPower(powerSocket(runtimeDir), gid, () => void shutdown(0, true));
    // A test's knob (faults.ts): the VM runs, but the line never comes.
    if (!takeFault(FAULTS.withholdVncLine)) {
      console.log(`VNC server is running at vnc://:${vnc.password}@127.0.0.1:${vzVnc!.port}`);
    }
    // The guest's DHCP lease: `tart ip` finds the address once the guest is up.
    writeRunState(name, { pid: hostPid, slot, ip });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    await shutdown(1);
  }
  await new Promise(() => {});
  return 0;
}

/**
 * `--net-softnet`: Tart runs `softnet` from its PATH (Sources/tart/Network/Softnet.swift), which
 * needs root: its SUID bit set (or passwordless sudo). Tart sets the bit itself only in an
 * interactive session (asking for a sudo password); over SSH it does not, and Softnet fails. The
 * emulated Mac's account is root, but its softnet behaves as under an operator's own account.
 */
function checkSoftnet(): void {
  const dir = (process.env.PATH ?? '').split(':').find((d) => d !== '' && existsSync(join(d, 'softnet')));
  if (!dir) throw new TartError('softnet not found in PATH');
  const st = statSync(join(dir, 'softnet'));
  if (st.uid !== 0 || (st.mode & 0o4000) === 0) {
    throw new TartError(
      'root privileges are required to run and passwordless sudo was not available\n' +
        'Softnet process terminated prematurely',
    );
  }
}

/** EXT4_IOC_SHUTDOWN with EXT4_GOING_FLAGS_NOLOGFLUSH: the file system stops, nothing more is written. */
async function cutPower(home: string): Promise<void> {
  const script =
    'import fcntl, os, struct, sys\n' +
    'fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)\n' +
    'fcntl.ioctl(fd, 0x8004587d, struct.pack("I", 2))\n';
  await run('/usr/bin/python3', ['-c', script, home]);
}

/** The power button's socket, in a dir of root's beside the VM's runtime dir (a short path: sun_path). */
const powerSocket = (runtimeDir: string) => `${runtimeDir}-power/sock`;

/**
 * A socket only the guest may connect to (in a root-owned dir that only the guest's group may
 * enter, so that no guest process can swap the path under the chmod): one line `halt` powers the
 * VM off.
 */
async function listenPower(path: string, gid: number, halt: () => void): Promise<Server> {
  const dir = dirname(path);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o750 });
  chownSync(dir, 0, gid);
  const server = createServer((c) => {
    c.setTimeout(5000, () => c.destroy());
    c.on('error', () => c.destroy());
    c.once('data', (b: Buffer) => {
      c.end();
      if (b.toString().trim() === 'halt') halt();
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  chownSync(path, 0, gid);
  chmodSync(path, 0o660);
  return server;
}

/** A dying VM process takes the VM down, as a crashed guest ends `tart run`. */
function watch(p: TrackedProcess, shutdown: (code: number) => Promise<void>): void {
  void p.exited.then(() => shutdown(1));
}

/**
 * Records this process as the VM's `tart run` in the first free slot, or refuses as Tart does past
 * the licence limit. A lock dir keeps two concurrent runs from taking the same slot.
 */
function claimSlot(name: string, pid: number): number {
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
    writeRunState(name, { pid, slot });
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

/** Four words joined by `-`, as Tart's PassphraseGenerator makes the VNC password. */
function passphrase(): string {
  return Array.from({ length: 4 }, () => PASSPHRASE_WORDS[randomInt(PASSPHRASE_WORDS.length)]).join('-');
}

/** inetd in a few lines: accepts on ADDRESS PORT, each connection on stdin/stdout of `COMMAND…`. */
const PER_CONNECTION = [
  'import os, signal, socket, sys',
  'signal.signal(signal.SIGCHLD, signal.SIG_IGN)',
  's = socket.socket()',
  's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)',
  's.bind((sys.argv[1], int(sys.argv[2])))',
  's.listen(64)',
  'while True:',
  '    c, _ = s.accept()',
  '    if os.fork() == 0:',
  // sshd gets the dispositions launchd gives it, not Python's (SIGPIPE ignored) nor ours.
  '        signal.signal(signal.SIGCHLD, signal.SIG_DFL); signal.signal(signal.SIGPIPE, signal.SIG_DFL)',
  '        s.close(); os.dup2(c.fileno(), 0); os.dup2(c.fileno(), 1); c.close()',
  '        os.execv(sys.argv[3], sys.argv[3:])',
  '    c.close()',
].join('\n');

interface GuestSshd {
  name: string;
  vmNetns: string;
  ip: string;
  uid: number;
  gid: number;
  disk: string;
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
    `${hostPasswd}admin:x:${g.uid}:${g.gid}:admin:${g.home}:/bin/bash\n`,
  );
  // admin's password is the guest's (its disk's etc/shadow: `admin` as the image ships it, whatever
  // the guest's chpasswd set since), as sshd reads it for a password login.
  symlinkSync(join(g.disk, 'etc', 'shadow'), join(etc, 'upper', 'shadow'));
  const config = join(emu, 'sshd_config');
  // As the image's sshd: its drop-ins first (the first value of a keyword wins), then password
  // logins on as Cirrus Labs' images have them; its host key is the disk's (every clone's the same).
  const image = [
    'Include /etc/ssh/sshd_config.d/*.conf',
    'PasswordAuthentication yes',
    'AuthenticationMethods any',
    '',
  ].join('\n');
  writeFileSync(
    config,
    image +
      sshdConfig({
        ip: g.ip,
        port: 22,
        user: 'admin',
        hostKeyFile: '/etc/ssh/ssh_host_ed25519_key',
        authorizedKeysFile: '.ssh/authorized_keys',
        env: {
          DISPLAY: g.display,
          XAUTHORITY: g.xauthority,
          XDG_RUNTIME_DIR: g.runtimeDir,
          DBUS_SESSION_BUS_ADDRESS: `unix:path=${g.runtimeDir}/bus`,
          PATH: `${guestBin()}:${GUEST_PATH}`,
          // Xt applications (xterm) read their resources from it: the Mac's shortcuts (guest-env.ts).
          XENVIRONMENT: guestXresources(),
          // Where the guest's `shutdown` presses the power button.
          SANDBAY_GUEST_POWER: powerSocket(g.runtimeDir),
        },
      }),
    { mode: 0o600 },
  );
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  // /etc/ssh is the guest disk's: the image's host key and drop-ins, and what the guest changes there.
  // One `sshd -i` per connection, as launchd starts sshd on macOS: each reads the configuration and
  // host keys as they are then (a listening sshd keeps what it read at its start).
  const script =
    'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc && ' +
    'mount --bind "$3/etc/ssh" /etc/ssh && ' +
    `exec /usr/bin/python3 -c '${PER_CONNECTION}' "$4" 22 /usr/sbin/sshd -i -e -f "$2"`;
  const proc = await tracker.start(
    'setpriv',
    [
      '--pdeathsig',
      'KILL',
      '--',
      'ip',
      'netns',
      'exec',
      g.vmNetns,
      'sh',
      '-c',
      script,
      'sh',
      etc,
      config,
      g.disk,
    ],
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
