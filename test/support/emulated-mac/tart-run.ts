// `tart run NAME --no-graphics --vnc-experimental [--suspendable]` on an emulated Mac: the VM is a
// real Linux desktop built from the linux driver's pieces (Xvfb, a session bus and the XFCE session, a
// password-protected x11vnc) plus the guest's own sshd for the user `admin` in the VM's network
// namespace at 192.168.64.x. As with Tart, the VNC server listens on the Mac's 127.0.0.1
// (Virtualization.framework's server runs in the `tart` process, not in the guest), the process stays
// in the foreground for the VM's life, prints one `VNC server is running at
// vnc://:<password>@127.0.0.1:<port>` line, exits 0 on SIGINT (what `tart stop` sends) and takes the
// VM down with it however it dies. `tart suspend` (SIGUSR1) saves a suspendable VM and the run exits
// 0; the next `tart run` restores it where it was.
//
// Two processes: `tart run` (runVm) and the VM's keeper (keepVm), which holds the VM's processes, so
// that a suspended VM's memory (its processes, frozen) outlives its run as Tart's saved state does.
// The run and its keeper talk over a socket of root's; the keeper goes down when its run goes.
import { spawn } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  startSession,
  startVnc,
  startXvfb,
  writeXauthority,
  type ScreenSpec,
} from '../../../hosts/linux/display.ts';
import { greets, waitReady } from '../../../hosts/linux/probe.ts';
import { X11Connection } from '../../../hosts/linux/x11-connection.ts';
import { readProcFile } from '../../../hosts/linux/proc.ts';
import { ProcessTracker, run, type TrackedProcess } from '../../../hosts/linux/runner.ts';
import { sshdConfig } from '../../../hosts/linux/sshd.ts';
import { freshRootDir, mkdirRootDir } from '../../../hosts/linux/vm-mount-ns.ts';
import { ensureVmUser, killUserProcesses, removeShm } from '../../../hosts/linux/vm-user.ts';
import { FAULTS, takeFault } from './faults.ts';
import { GUEST_PATH, guestBin, guestXresources } from './guest-env.ts';
import { createVmNetwork, deleteVmNetwork, softnetPort } from './network.ts';
import {
  emulationDir,
  guestDisk,
  guestHome,
  isKeeper,
  openVm,
  runState,
  savedState,
  stateFile,
  TartError,
  tartHome,
  VM_SLOTS,
  vmDir,
  writeRunState,
  type SavedState,
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

/**
 * Where a VM's keeper listens for its `tart run`: a dir of root's per Mac, removed with the Mac's
 * runtime dirs when it loses power (macs.ts); a short path (sun_path).
 */
export const keeperSockets = (netns: string): string => `${RUNTIME_ROOT}/${netns}-keepers`;

/**
 * The parent of every emulated VM's runtime dir and of the keepers' dirs: VM users must pass through
 * it to their own runtime dir, so it is 0755 whichever of the two is made first on a fresh machine.
 * (A keeper's recursive mkdir at 0700 made it first once, and every guest's dbus then failed with
 * "XDG_RUNTIME_DIR … not available: Permission denied".)
 */
const RUNTIME_ROOT = '/run/sandbay-emulated-macs/rt';
function ensureRuntimeRoot(): void {
  mkdirSync(RUNTIME_ROOT, { recursive: true, mode: 0o755 });
  chmodSync(RUNTIME_ROOT, 0o755);
}
function keeperSocket(name: string): string {
  const file = `${createHash('sha256').update(vmDir(name)).digest('hex').slice(0, 24)}.sock`;
  return join(keeperSockets(macFacts().netns), file);
}

function macFacts(): MacFacts {
  const dir = process.env.SANDBAY_EMULATED_MAC;
  if (!dir) throw new TartError('not an emulated Mac: SANDBAY_EMULATED_MAC is unset');
  return JSON.parse(readFileSync(join(dir, 'mac.json'), 'utf8')) as MacFacts;
}

/** Calls `handle` with each JSON line `socket` reads. */
function onLines<T>(socket: Socket, handle: (m: T) => void): void {
  createInterface({ input: socket, crlfDelay: Infinity }).on('line', (line) => handle(JSON.parse(line) as T));
}

/** One message between `tart run` and its VM's keeper: a JSON line. */
type ToKeeper = { attach: number; resume: boolean } | { signal: 'SIGINT' | 'SIGTERM' | 'SIGUSR1' };
type ToRun = { out: string } | { err: string } | { exit: number };

/**
 * `tart run NAME …`: the foreground process Tart's is. It prints what the VM says (its VNC line),
 * stays for the VM's life, passes on `tart stop`'s SIGINT and `tart suspend`'s SIGUSR1, and exits
 * with the VM: 0 once it stopped or was suspended. The VM itself is its keeper (keepVm), started
 * here, or found again when the VM is suspended: then this run restores it, as Tart's restores the
 * saved state. The keeper goes down with this process however it dies.
 */
export async function runVm(args: string[]): Promise<number> {
  const name = args.find((a) => !a.startsWith('-'));
  if (name === undefined) {
    process.stderr.write("Error: Missing expected argument '<name>'\n");
    return 64;
  }
  const config = openVm(name);
  if (runState(name)) throw new TartError(`VM "${name}" is already running!`, 2);
  const saved = savedState(name);
  // Tart runs a suspended VM suspendable, and only a macOS VM may be (Commands/Run.swift).
  if ((saved || args.includes('--suspendable')) && config.os !== 'darwin') {
    process.stderr.write('Error: You can only suspend macOS VMs\n');
    return 64;
  }
  let keeperGone: Promise<void> = new Promise(() => {});
  if (saved) {
    if (!isKeeper(saved.keeper)) {
      // A real Mac restores the saved memory from the file; the emulation kept it in a process that
      // is gone (the Mac lost power): the VM boots cold instead, as if the state were not there.
      rmSync(stateFile(name), { force: true });
      return runVm(args);
    }
  } else {
    const logs = join(emulationDir(name), 'logs');
    mkdirSync(logs, { recursive: true });
    const log = openSync(join(logs, 'keeper.log'), 'w');
    // A PID namespace (its /proc remounted by the keeper): the VM's processes see only each other,
    // as a macOS guest sees none of the Mac's; and a mount namespace, where the guest's disk is
    // mounted and which the kernel unmounts when the last of its processes is gone.
    const keeper = spawn(
      'unshare',
      [
        '--mount',
        '--propagation',
        'slave',
        '--pid',
        '--fork',
        process.execPath,
        process.argv[1]!,
        'vm-keeper',
        ...args,
      ],
      {
        detached: true,
        stdio: ['ignore', log, log],
        env: { ...process.env, SANDBAY_TART_RUN_PID: String(process.pid) },
      },
    );
    closeSync(log);
    keeperGone = once(keeper, 'exit').then(() => undefined);
    keeper.unref();
  }
  return attach(name, { attach: process.pid, resume: saved !== undefined }, keeperGone);
}

/** Talks to the VM's keeper until it says how this run ends; 1 if it goes without a word. */
async function attach(name: string, hello: ToKeeper, keeperGone: Promise<void>): Promise<number> {
  let gone = false;
  void keeperGone.then(() => (gone = true));
  const until = Date.now() + 60_000;
  let socket: Socket | undefined;
  while (!socket) {
    socket = await new Promise<Socket | undefined>((resolve) => {
      const s = connect(keeperSocket(name));
      s.once('connect', () => resolve(s)).once('error', () => resolve(undefined));
    });
    if (socket) break;
    if (gone || Date.now() > until) {
      process.stderr.write(
        `the VM's process ended before it started: ${join(emulationDir(name), 'logs', 'keeper.log')}\n`,
      );
      return 1;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const s = socket;
  const send = (m: ToKeeper) => s.write(`${JSON.stringify(m)}\n`);
  send(hello);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGUSR1'] as const) process.on(signal, () => send({ signal }));
  let code = 1;
  onLines<ToRun>(s, (m) => {
    if ('out' in m) process.stdout.write(`${m.out}\n`);
    else if ('err' in m) process.stderr.write(`${m.err}\n`);
    else code = m.exit;
  });
  s.on('error', () => {});
  await once(s, 'close');
  return code;
}

/**
 * The VM (`tart-cli.ts vm-keeper NAME …`, started by `tart run`): its desktop, sshd, disk and
 * network, and Virtualization.framework's VNC server. It answers the `tart run` attached to it
 * (runVm) and goes down when that run goes. Suspended (`tart suspend`: SIGUSR1), it freezes every
 * process of the VM (SIGSTOP: no CPU, their memory kept), writes the VM's `state.vzvmsave` and lets
 * its run exit 0, and stays, holding the frozen VM, until a new `tart run` restores it (SIGCONT, a
 * new VNC server) or `tart stop` or `tart delete` discards it.
 */
export async function keepVm(args: string[]): Promise<void> {
  const name = args.find((a) => !a.startsWith('-'))!;
  const softnet = args.some((a) => a.startsWith('--net-softnet'));
  const suspendable = args.includes('--suspendable');
  // This process is the first of a PID namespace of its own: every process of the VM is in it and
  // sees only its VM's processes, as a macOS guest, a VM of its own, sees none of the Mac's or of
  // another VM's. Its pid as the Mac sees it is read while /proc is still the Mac's, and the slot
  // claimed then too (other VMs' runs are checked in the Mac's /proc); then /proc becomes this
  // namespace's. The run is recorded under its `tart run`'s pid (what `tart stop` signals).
  const hostPid = Number(readlinkSync('/proc/self'));
  const runPid = Number(process.env.SANDBAY_TART_RUN_PID);
  const config = openVm(name);
  const channel = await RunChannel.listen(name);
  let slot: number;
  try {
    if (softnet) checkSoftnet();
    slot = claimSlot(name, runPid);
  } catch (e) {
    channel.send({ err: (e as Error).message });
    return channel.finish(e instanceof TartError ? e.exitCode : 1);
  }
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
  const runtimeDir = `${RUNTIME_ROOT}/${mac.netns}-vm${slot}`;
  /** Xvfb's own /tmp (below). */
  const xTmpDir = `${runtimeDir}-x`;
  let vmNetns: string | undefined;
  let slotUid: number | undefined;
  let mounted = false;
  let stopping = false;
  let vzVnc: VzVnc | undefined;
  let xconn: X11Connection | undefined;
  let power: Server | undefined;
  let vncPassword = '';
  /** `booting` until the VNC line, then `running`; `suspended` while frozen and without a run. */
  let phase: 'booting' | 'running' | 'suspending' | 'suspended' = 'booting';
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
    // A frozen VM's processes would keep a SIGTERM pending: they go on, to their end, after the cut.
    if (phase === 'suspending' || phase === 'suspended') signalGuest('SIGCONT');
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
    rmSync(xTmpDir, { recursive: true, force: true });
    rmSync(dirname(powerSocket(runtimeDir)), { recursive: true, force: true });
    rmSync(join(emu, 'run.json'), { force: true });
    rmSync(stateFile(name), { force: true });
    await channel.finish(code);
  };
  /** Virtualization.framework's VNC server, new at every run (a new port), and its line. */
  const serveVnc = async () => {
    vzVnc = await startVzVnc({ host: ip, port: 5900 }, xconn!);
    // A test's knob (faults.ts): the VM runs, but the line never comes.
    if (!takeFault(FAULTS.withholdVncLine, channel.runPid)) {
      channel.send({ out: `VNC server is running at vnc://:${vncPassword}@127.0.0.1:${vzVnc.port}` });
    }
  };
  /**
   * `tart suspend`, as Tart's run answers SIGUSR1 (Commands/Run.swift): a VM not run suspendable
   * fails Virtualization.framework's save/restore check and the run exits 1, the VM gone with it;
   * otherwise the VM is paused, its state saved, and the run exits 0.
   */
  const suspend = async () => {
    if (phase !== 'running') return;
    if (!suspendable) {
      // Tart prints the framework's own words here; they are not in Tart's source (the emulation's).
      channel.send({
        out: 'Failed to suspend the VM: the virtual machine does not support saving and restoring',
      });
      return shutdown(1);
    }
    phase = 'suspending';
    channel.send({ out: 'pausing VM to take a snapshot...' });
    vzVnc?.close();
    vzVnc = undefined;
    try {
      await freezeGuest();
    } catch (e) {
      // Tart's run prints the framework's error and exits 1, the VM gone with it (Commands/Run.swift).
      channel.send({ out: `Failed to suspend the VM: ${(e as Error).message}` });
      return shutdown(1);
    }
    channel.send({ out: 'creating a snapshot...' });
    const saved: SavedState = { keeper: hostPid, slot, ip };
    writeFileSync(stateFile(name), JSON.stringify(saved));
    rmSync(join(emu, 'run.json'), { force: true });
    channel.send({ out: 'snapshot created successfully! shutting down the VM...' });
    phase = 'suspended';
    await channel.detach(0);
  };
  /**
   * A new `tart run` of the suspended VM: Tart restores the saved state and removes the file, then
   * starts the VM, which Apple's licence may refuse: the memory is lost then, and the VM stopped.
   */
  const restore = async (pid: number) => {
    if (phase !== 'suspended') {
      channel.send({ err: `VM "${name}" is not suspended` });
      return channel.detach(1);
    }
    channel.send({ out: 'restoring VM state from a snapshot...' });
    rmSync(stateFile(name), { force: true });
    channel.send({ out: 'resuming VM...' });
    const others = listRunning().filter((o) => o.name !== name);
    if (others.length >= LICENCE_LIMIT) {
      const names = others.map((o) => o.name).join(', ');
      channel.send({ err: `The number of VMs exceeds the system limit (other running VMs: ${names})` });
      return shutdown(1);
    }
    writeRunState(name, { pid, slot, ip });
    signalGuest('SIGCONT');
    phase = 'running';
    await serveVnc();
  };
  channel.on({
    signal: (signal) => void (signal === 'SIGUSR1' ? suspend() : shutdown(0)),
    restore: (pid) => void restore(pid),
    // The run went without a word (killed): the VM goes down with it, as with Tart's.
    lost: () => void (phase === 'suspended' ? undefined : shutdown(1)),
  });
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  try {
    mkdirSync(logs, { recursive: true });
    rmSync(runtimeDir, { recursive: true, force: true });
    ensureRuntimeRoot();
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
    // Xvfb's own /tmp (display.ts, `tmpDir`): every guest's display is :0 in its own network
    // namespace, and the keymap Xvfb compiles at its start, /tmp/server-0.xkm, is created
    // exclusively: in the machine's /tmp two guests booting at once raced for it, and the loser's
    // Xvfb exited ("Failed to activate virtual core keyboard", full run 24).
    // Made as the linux driver makes its VMs' (vm-boot.ts).
    await freshRootDir(xTmpDir, 0o1777);
    mkdirRootDir(join(xTmpDir, '.X11-unix'), 0o1777);
    const screen: ScreenSpec = {
      vmUser: { user: 'admin', uid, gid, home },
      cgroup: undefined,
      runtimeDir,
      tmpDir: xTmpDir,
      xauthority,
      width: config.display.width,
      height: config.display.height,
      logDir: logs,
      pdeathsig: true,
      namespaces: { net: `/run/netns/${vmNetns}` },
    };
    const x = await startXvfb(tracker, screen, undefined, cookie);
    watch(x.proc, shutdown);
    // x11vnc serves the framebuffer behind the framework's server (vz-vnc.ts), which takes the input;
    // in the VM's namespace with the desktop, it listens on the VM's address (the Mac reaches it
    // over its bridge), with the VM's random VNC password.
    vncPassword = passphrase();
    const x11vnc = { ip, port: 5900, password: vncPassword };
    const [session, vncProc, sshd] = await Promise.all([
      startSession(tracker, screen, x, cookie),
      startVnc(tracker, screen, x.display, x11vnc).then(async (p) => {
        xconn = await X11Connection.open(x.display, x.socket, {
          name: 'MIT-MAGIC-COOKIE-1',
          data: cookie.toString('latin1'),
        });
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
    phase = 'running';
    await serveVnc();
    // The guest's DHCP lease: `tart ip` finds the address once the guest is up.
    writeRunState(name, { pid: channel.runPid, slot, ip });
  } catch (e) {
    channel.send({ err: (e as Error).message });
    await shutdown(1);
  }
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
 * Records the VM's run in the first free slot, or refuses as Tart does past the licence limit (two
 * running; a suspended VM runs nothing but keeps its slot). A lock dir keeps two concurrent runs
 * from taking the same slot.
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
    const used = new Set([...others, ...listSuspended()].map((o) => o.slot));
    const slot = VM_SLOTS.find((s) => !used.has(s));
    if (slot === undefined)
      throw new TartError('the emulated Mac has no free VM slot (suspended VMs hold them)');
    writeRunState(name, { pid, slot });
    return slot;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function vmNames(): string[] {
  try {
    return readdirSync(join(tartHome(), 'vms'));
  } catch {
    return [];
  }
}

function listRunning(): { name: string; slot: number }[] {
  return vmNames().flatMap((name) => {
    const s = runState(name);
    return s ? [{ name, slot: s.slot }] : [];
  });
}

/** Suspended VMs whose keeper still holds their slot. */
function listSuspended(): { name: string; slot: number }[] {
  return vmNames().flatMap((name) => {
    const s = savedState(name);
    return s && isKeeper(s.keeper) ? [{ name, slot: s.slot }] : [];
  });
}

/** Every process of the VM but its keeper (this PID namespace's /proc). */
function guestPids(): number[] {
  return readdirSync('/proc')
    .filter((f) => /^\d+$/.test(f))
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

function signalGuest(signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of guestPids()) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/** Stopped (or gone): the state letter of /proc/PID/stat. */
function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return 'TtZX'.includes(stat.charAt(stat.lastIndexOf(')') + 2));
  } catch {
    return true;
  }
}

/**
 * SIGSTOP to every process of the VM until all are stopped: one forked meanwhile is caught next
 * pass. A process in an uninterruptible sleep (a write waiting on the loop disk of a loaded machine)
 * stops only when it wakes, so the wait is bounded by the clock, not by a count of passes; past
 * `timeoutMs` the error names the processes that did not stop, and where they slept.
 */
async function freezeGuest(timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = guestPids().filter((pid) => !isStopped(pid));
    if (running.length === 0) return;
    if (Date.now() >= deadline) {
      const which = running.map((pid) => `${pid} (${procText(pid, 'comm')}, in ${procText(pid, 'wchan')})`);
      throw new Error(`the VM did not pause within ${timeoutMs} ms: ${which.join(', ')} kept running`);
    }
    signalGuest('SIGSTOP');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function procText(pid: number, file: string): string {
  return readProcFile(`/proc/${pid}/${file}`)?.trim() ?? '?';
}

interface RunHandlers {
  signal(signal: 'SIGINT' | 'SIGTERM' | 'SIGUSR1'): void;
  restore(pid: number): void;
  lost(): void;
}

/**
 * The keeper's end of its `tart run`s (runVm's `attach`): one at a time, each a connection on the
 * VM's socket. What the VM says before its run is attached waits for it.
 */
class RunChannel {
  runPid: number;
  readonly #server: Server;
  readonly #path: string;
  #conn: Socket | undefined;
  #attached: Promise<void>;
  #onAttached: () => void = () => {};
  #pending: string[] = [];
  #handlers: RunHandlers | undefined;

  private constructor(server: Server, path: string, runPid: number) {
    this.#server = server;
    this.#path = path;
    this.runPid = runPid;
    this.#attached = new Promise((resolve) => (this.#onAttached = resolve));
    server.on('connection', (c) => this.#accept(c));
    // The run that started this keeper attaches at once, or is gone: nothing would ever stop the VM.
    setTimeout(() => {
      if (!this.#conn && this.#handlers) this.#handlers.lost();
    }, 60_000).unref();
  }

  static async listen(name: string): Promise<RunChannel> {
    const path = keeperSocket(name);
    ensureRuntimeRoot();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    rmSync(path, { force: true });
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
    return new RunChannel(server, path, Number(process.env.SANDBAY_TART_RUN_PID));
  }

  on(handlers: RunHandlers): void {
    this.#handlers = handlers;
  }

  send(m: ToRun): void {
    const line = `${JSON.stringify(m)}\n`;
    if (this.#conn) this.#conn.write(line);
    else this.#pending.push(line);
  }

  /** The run is told how it ends (its exit code) and let go; the VM may stay (suspended). */
  async detach(code: number): Promise<void> {
    const c = this.#conn;
    this.#conn = undefined;
    if (!c) return;
    const closed = once(c, 'close');
    c.end(`${JSON.stringify({ exit: code })}\n`);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);
    c.destroy();
  }

  /** The VM is gone: its run (attached within a bound, if not yet) gets the code, and so does this process. */
  async finish(code: number): Promise<never> {
    if (!this.#conn) await Promise.race([this.#attached, new Promise((r) => setTimeout(r, 10_000))]);
    await this.detach(code);
    this.#server.close();
    rmSync(this.#path, { force: true });
    process.exit(code);
  }

  #accept(c: Socket): void {
    c.on('error', () => {});
    let hello = true;
    onLines<ToKeeper>(c, (m) => {
      if (hello && 'attach' in m) {
        hello = false;
        if (this.#conn) {
          c.end(`${JSON.stringify({ err: 'the VM has a run already' })}\n${JSON.stringify({ exit: 2 })}\n`);
          return;
        }
        this.#conn = c;
        this.runPid = m.attach;
        for (const line of this.#pending.splice(0)) c.write(line);
        this.#onAttached();
        if (m.resume) this.#handlers?.restore(m.attach);
      } else if (this.#conn === c && 'signal' in m) {
        this.#handlers?.signal(m.signal);
      }
    });
    c.on('close', () => {
      if (this.#conn !== c) return;
      this.#conn = undefined;
      this.#handlers?.lost();
    });
  }
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
