// A VM's screen: Xvfb (its own cookie, no TCP, -noreset), a session bus and an XFCE session running
// as the VM user, and x11vnc bound to the VM's own address only. Readiness is observed, never slept
// on: Xvfb reports its display number on -displayfd once it accepts clients, the session is up when
// xfwm4 owns the WM_S0 selection and the panel and the desktop (wallpaper) windows are mapped, x11vnc
// when its port accepts connections.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DriverError } from '../driver.ts';
import type { VmCgroup } from './cgroups.ts';
import { inNamespaces, type VmNamespaces } from './ns-enter.ts';
import { xSocketPath } from './shared-socket-dirs.ts';
import { LIST_VM_MOUNTS } from './vm-mount-ns.ts';
import { createFileFor } from './root-files.ts';
import { accepts, waitReady } from './probe.ts';
import { type ProcessTracker, type TrackedProcess } from './runner.ts';
import { XProbe } from './x-probe.ts';

export interface DesktopUser {
  user: string;
  uid: number;
  gid: number;
  home: string;
}

export interface ScreenSpec {
  vmUser: DesktopUser;
  cgroup: VmCgroup | undefined;
  runtimeDir: string;
  xauthority: string;
  width: number;
  height: number;
  /** Where each process's stderr goes (`<program>.log`). */
  logDir: string;
  /** Without a cgroup: each process gets SIGKILL when its starter dies (emulated Macs' `tart run`). */
  pdeathsig?: boolean;
  /**
   * The VM's namespaces: the session and x11vnc run in all; Xvfb in the network and IPC ones, so
   * that its abstract socket, which the VM's clients use, exists only in the VM's network namespace,
   * and the SysV segments its clients hand it (MIT-SHM) are looked up in the VM's IPC namespace. The
   * driver's own captures hand it memory by file descriptor (x11-shm.ts), which needs no namespace.
   */
  namespaces?: VmNamespaces;
  /**
   * Xvfb's own /tmp: a root-owned dir (mode 1777, with `.X11-unix` in it made likewise) that no VM
   * process can reach. Xvfb gets a mount namespace of its own in which this dir is /tmp, so its
   * socket file is in there for the driver, and so are the keymaps it compiles (`server-<N>.xkm`,
   * created exclusively: every VM's display is :0, and two VMs booting at once would fight over one
   * file in a shared /tmp). Without it the socket file is in the machine's /tmp/.X11-unix, where any
   * root X server started later on the machine takes it over: with -displayfd Xvfb writes no lock
   * file, and a server that finds the display's abstract socket free in its own network namespace
   * unlinks the file and binds its own, so the driver's captures and input would reach that server.
   */
  tmpDir?: string;
}

/** A running X server: its display name for clients in its namespaces, and its socket file for the driver. */
export interface XServer {
  display: string;
  socket: string;
}

/** A fresh MIT-MAGIC-COOKIE-1 for a display. The driver keeps it (vm-record.ts) and never reads it back. */
export function newCookie(): Buffer {
  return randomBytes(16);
}

/** The Xauthority file format with one wildcard entry (any address, any display number) for `cookie`. */
export function xauthorityEntry(cookie: Buffer): Buffer {
  const field = (v: Buffer) => {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    return Buffer.concat([len, v]);
  };
  const family = Buffer.from([0xff, 0xff]);
  return Buffer.concat([
    family,
    field(Buffer.alloc(0)),
    field(Buffer.alloc(0)),
    field(Buffer.from('MIT-MAGIC-COOKIE-1')),
    field(cookie),
  ]);
}

/**
 * Writes a fresh cookie file for `uid` (`xauth add` without a spawn) and returns the cookie. What
 * was at the name goes (unlink follows no link); the file is then created, never opened
 * (root-files.ts), as it sits in a dir the VM's user writes to.
 */
export function writeXauthority(file: string, uid: number, gid: number, cookie = newCookie()): Buffer {
  rmSync(file, { force: true });
  createFileFor(file, xauthorityEntry(cookie), { uid, gid });
  return cookie;
}

/** Where Xvfb reads its cookie inside its own mount namespace, whose /tmp is the root-only `tmpDir`. */
const XVFB_AUTH_NAME = 'sandbay-Xauthority';

/** The environment of a process of the VM's desktop session. */
export function sessionEnv(s: ScreenSpec, display: string): NodeJS.ProcessEnv {
  return {
    HOME: s.vmUser.home,
    USER: s.vmUser.user,
    LOGNAME: s.vmUser.user,
    SHELL: '/bin/bash',
    PATH: `${s.vmUser.home}/.local/bin:/usr/local/bin:/usr/bin:/bin`,
    LANG: 'C.UTF-8',
    DISPLAY: display,
    XAUTHORITY: s.xauthority,
    XDG_RUNTIME_DIR: s.runtimeDir,
    DBUS_SESSION_BUS_ADDRESS: `unix:path=${s.runtimeDir}/bus`,
    ...DESKTOP_ENV,
  };
}

/**
 * What tells programs which desktop they run in (xdg-open hands files to exo-open under XFCE), and
 * that an assistive technology listens: Chromium exposes its AT-SPI tree only then.
 */
export const DESKTOP_ENV = {
  ACCESSIBILITY_ENABLED: '1',
  XDG_CURRENT_DESKTOP: 'XFCE',
  XDG_SESSION_DESKTOP: 'xfce',
  XDG_SESSION_TYPE: 'x11',
} as const;

function wrapped(s: ScreenSpec, command: string, args: string[], asUser: boolean) {
  return inNamespaces(placed(s, command, args, asUser), s.namespaces);
}

// The X server's own mount namespace, a private copy of the machine's: the copies of VMs' disks and
// homes go (lazily; a VM deleted later would otherwise keep its disk's memory alive in here), then
// its temp dir ($1) becomes /tmp. The dir arrives as an argument, never in the script.
const X_SERVER_MOUNTS = [
  'set -e',
  `${LIST_VM_MOUNTS} | while read -r point; do umount -l "$point" 2>/dev/null || true; done`,
  'mount --bind "$1" /tmp',
  'shift',
  'exec "$@"',
].join('\n');

/** Xvfb as `s` places it: in the VM's network and IPC namespaces, and in a mount namespace of its own. */
function xServerCommand(s: ScreenSpec, args: string[]) {
  const cmd = placed(s, 'Xvfb', args, true);
  const inOwnMounts = s.tmpDir
    ? {
        command: 'unshare',
        args: ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', X_SERVER_MOUNTS, 'sb-x11', s.tmpDir,
          cmd.command, ...cmd.args], // prettier-ignore
      }
    : cmd;
  const ns = s.namespaces && { net: s.namespaces.net, ...(s.namespaces.ipc && { ipc: s.namespaces.ipc }) };
  return inNamespaces(inOwnMounts, ns);
}

function placed(s: ScreenSpec, command: string, args: string[], asUser: boolean) {
  const as = asUser ? { uid: s.vmUser.uid, gid: s.vmUser.gid } : undefined;
  if (s.cgroup) return s.cgroup.wrap(command, args, as);
  if (!as) return { command, args };
  return {
    command: 'setpriv',
    args: [
      `--reuid=${as.uid}`,
      `--regid=${as.gid}`,
      '--clear-groups',
      ...(s.pdeathsig ? ['--pdeathsig', 'KILL'] : []),
      '--',
      command,
      ...args,
    ],
  };
}

/** Starts Xvfb as the VM user; resolves with its display (e.g. `:3`) once it accepts clients. */
export async function startXvfb(
  tracker: ProcessTracker,
  s: ScreenSpec,
  timeoutMs = 5000,
  /** The display's cookie: needed with `s.tmpDir`, where Xvfb gets a copy of its own. */
  cookie?: Buffer,
): Promise<{ proc: TrackedProcess } & XServer> {
  // With a temp dir of its own, Xvfb reads a copy of the cookie there, where the VM cannot reach
  // (the VM's copy is in its runtime dir, which its processes may change at will).
  let auth = s.xauthority;
  if (s.tmpDir !== undefined) {
    if (!cookie)
      throw new DriverError('invalid_argument', 'Xvfb with a temp dir of its own needs the cookie');
    createFileFor(join(s.tmpDir, XVFB_AUTH_NAME), xauthorityEntry(cookie), s.vmUser);
    auth = `/tmp/${XVFB_AUTH_NAME}`;
  }
  const args = [
    '-displayfd', '3',
    '-screen', '0', `${s.width}x${s.height}x24`,
    '-auth', auth,
    '-noreset',
    '-nolisten', 'tcp',
  ]; // prettier-ignore
  const cmd = xServerCommand(s, args);
  const env = { PATH: process.env.PATH, HOME: s.vmUser.home, XDG_RUNTIME_DIR: s.runtimeDir };
  const proc = await tracker.start(cmd.command, cmd.args, {
    label: 'Xvfb',
    env,
    extraFds: 1,
    logFile: join(s.logDir, 'Xvfb.log'),
  });
  try {
    const num = await readDisplayNumber(proc, timeoutMs);
    const socketDir = s.tmpDir === undefined ? undefined : join(s.tmpDir, '.X11-unix');
    return { proc, display: `:${num}`, socket: xSocketPath(num, socketDir) };
  } catch (e) {
    proc.kill();
    throw e;
  }
}

function readDisplayNumber(proc: TrackedProcess, timeoutMs: number): Promise<number> {
  const fd = proc.child?.stdio[3] as Readable | undefined;
  if (!fd) return Promise.reject(new DriverError('command_failed', 'Xvfb: no -displayfd pipe', 'Xvfb'));
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new DriverError('timeout', `Xvfb not ready within ${timeoutMs} ms`, 'Xvfb')),
      timeoutMs,
    );
    fd.on('data', (b: Buffer) => {
      text += b.toString();
      const m = /^(\d+)\n/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void proc.exited.then(() => {
      clearTimeout(timer);
      reject(proc.diedError());
    });
  });
}

/**
 * Starts the session bus and the XFCE session (xfce4-session, which starts xfwm4, xfsettingsd, the
 * panel, xfdesktop and Thunar's daemon) as the VM user; resolves once the desktop is on screen: a
 * screenshot of a VM that just became ready shows the panel and the wallpaper. The bus lives at
 * $XDG_RUNTIME_DIR/bus, where GTK apps (and SSH sessions) look for it by default.
 */
export async function startSession(
  tracker: ProcessTracker,
  s: ScreenSpec,
  x: XServer,
  cookie: Buffer,
  // Ready is seen within 50 ms of the panel and wallpaper showing (2–4 s on a quiet machine); the
  // deadline only ends a boot that will not come up. At 15 s, boots on a Mac busy with other boots
  // (the test suite's own load on 2 cores) were failed that would have been ready a little later.
  timeoutMs = 60_000,
): Promise<{ bus: TrackedProcess; session: TrackedProcess }> {
  const env = sessionEnv(s, x.display);
  const busArgs = [
    '--session',
    `--address=unix:path=${s.runtimeDir}/bus`,
    '--nofork',
    '--nopidfile',
    '--nosyslog',
  ];
  const busCmd = wrapped(s, 'dbus-daemon', busArgs, true);
  const bus = await tracker.start(busCmd.command, busCmd.args, {
    label: 'dbus-daemon',
    env,
    cwd: s.vmUser.home,
    logFile: join(s.logDir, 'dbus-daemon.log'),
  });
  // The session starts once its bus listens: an xfce4-session that finds no bus (a loaded machine
  // starts dbus-daemon late) puts up a modal "Unable to contact settings server" and starts nothing,
  // no window manager, no panel, until someone clicks Close, and says nothing in its log.
  const busPath = `${s.runtimeDir}/bus`;
  try {
    await waitReady('session bus', bus, () => accepts({ path: busPath }), timeoutMs);
  } catch (e) {
    bus.kill();
    throw e;
  }
  const sessionCmd = wrapped(s, 'xfce4-session', [], true);
  const session = await tracker.start(sessionCmd.command, sessionCmd.args, {
    label: 'xfce4-session',
    env,
    cwd: s.vmUser.home,
    logFile: join(s.logDir, 'xfce4-session.log'),
  });
  const probe = await XProbe.connect(x.socket, cookie);
  let wmSelection = 0;
  // What the last look saw: said when the deadline passes, or a session that never shows is mute.
  let seen = 'not looked at yet';
  const sessionShown = async () => {
    try {
      wmSelection ||= await probe.internAtom('WM_S0');
      if ((await probe.selectionOwner(wmSelection)) === 0) {
        seen = 'no window manager (WM_S0 has no owner)';
        return false;
      }
      const windows = await desktopWindows(probe);
      const missing = DESKTOP_CLASSES.filter((c) => !windows.some((w) => w.cls === c && w.viewable));
      seen = `not shown: ${missing.join(', ')}; the window manager's clients: ${
        windows.map((w) => `${w.cls}${w.viewable === false ? ' (unmapped)' : ''}`).join(', ') || 'none'
      }`;
      return missing.length === 0;
    } catch (e) {
      // An X server too busy to answer within a request's bound (a loaded Mac) is asked again.
      if (e instanceof DriverError && e.code === 'timeout') {
        seen = `the X server did not answer (${e.message})`;
        return false;
      }
      throw e;
    }
  };
  try {
    await waitReady('the XFCE session', session, sessionShown, timeoutMs, 50);
  } catch (e) {
    bus.kill();
    session.kill();
    if (e instanceof DriverError && e.code === 'timeout' && e.command === session.label) {
      const said = session.recentLines(3) || 'nothing';
      throw new DriverError(
        'timeout',
        `${e.message}: ${seen}; xfce4-session's last lines: ${said}`,
        e.command,
      );
    }
    throw e;
  } finally {
    probe.close();
  }
  return { bus, session };
}

/** The window classes that make the desktop: the panel (menu, clock, launchers) and the wallpaper. */
const DESKTOP_CLASSES = ['Xfce4-panel', 'Xfdesktop'];

/**
 * The window manager's clients: each one's class, and for the desktop's classes whether it is
 * viewable (the only map states readiness needs: one request per window fewer on every look).
 */
async function desktopWindows(x: XProbe): Promise<{ cls: string; viewable?: boolean }[]> {
  const clients = await x.property32(x.root, await x.internAtom('_NET_CLIENT_LIST'));
  const wmClass = await x.internAtom('WM_CLASS');
  const windows: { cls: string; viewable?: boolean }[] = [];
  for (const w of clients) {
    try {
      const cls = (await x.propertyText(w, wmClass)).split('\0')[1];
      if (cls) windows.push(DESKTOP_CLASSES.includes(cls) ? { cls, viewable: await x.viewable(w) } : { cls });
    } catch {
      // The window went away while we looked.
    }
  }
  return windows;
}

export interface VncSpec {
  ip: string;
  port: number;
  password: string;
}

/**
 * Starts x11vnc as the VM user (so that its MIT-SHM segments are the user's, which the user's Xvfb
 * can attach and teardown can find) on the VM's address only; resolves once it listens. The password
 * reaches it through a file in the VM's runtime dir that x11vnc deletes after reading (`rm:`), never
 * through argv; root creates it there without following anything the VM put at its name. The VM's own user can learn its own VNC password (it could read x11vnc's memory
 * anyway); no other VM can.
 */
export async function startVnc(
  tracker: ProcessTracker,
  s: ScreenSpec,
  display: string,
  v: VncSpec,
  timeoutMs = 5000,
): Promise<TrackedProcess> {
  const passwordFile = join(s.runtimeDir, `vnc-password-${randomBytes(8).toString('hex')}`);
  createFileFor(passwordFile, `${v.password}\n`, s.vmUser);
  const args = [
    '-display', display,
    '-auth', s.xauthority,
    '-passwdfile', `rm:${passwordFile}`,
    '-listen', v.ip,
    '-rfbport', String(v.port),
    // x11vnc listens on [::] even with -noipv6 and -listen unless the IPv6 port is disabled too.
    '-rfbportv6', '-1',
    '-noipv6',
    '-forever',
    '-shared',
    '-norc',
    '-nolookup',
    '-quiet',
  ]; // prettier-ignore
  const cmd = wrapped(s, 'x11vnc', args, true);
  const env = { PATH: process.env.PATH, HOME: s.vmUser.home, XDG_RUNTIME_DIR: s.runtimeDir };
  const proc = await tracker.start(cmd.command, cmd.args, {
    label: 'x11vnc',
    env,
    cwd: s.vmUser.home,
    logFile: join(s.logDir, 'x11vnc.log'),
  });
  try {
    // Ready once it listens: with no client connected x11vnc naps 200 ms between looks at its
    // socket, so waiting for its greeting would add up to that nap to every boot; any client that
    // connects now is greeted after the same nap.
    await waitReady(
      `x11vnc on ${v.ip}:${v.port}`,
      proc,
      () => accepts({ host: v.ip, port: v.port }),
      timeoutMs,
    );
  } catch (e) {
    proc.kill();
    throw e;
  } finally {
    rmSync(passwordFile, { force: true });
  }
  return proc;
}
