// Booting and powering off a VM's desktop. Boot: Xvfb first (everything else needs the display),
// then the session (bus + XFCE), x11vnc and sshd side by side; it resolves once all of them
// answer. Power off: every process of the VM dies at once (cgroup kill, then anything left with the
// VM's uid), then what SIGKILL leaves behind is swept up (shared memory, X lock files, runtime dir).
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { VmCgroup } from './cgroups.ts';
import {
  DESKTOP_ENV,
  startSession,
  startVnc,
  startXvfb,
  writeXauthority,
  type ScreenSpec,
} from './display.ts';
import { childPids } from './proc.ts';
import type { ProcessTracker, TrackedProcess } from './runner.ts';
import { sshdConfig, startSshd } from './sshd.ts';
import type { VmPaths, VmRecord } from './vm-record.ts';
import { killUserProcesses, removeMqueues, removeShm, removeUserTempFiles } from './vm-user.ts';
import { ensureSharedSocketDir, SHARED_SOCKET_DIRS } from './shared-socket-dirs.ts';
import { freshRootDir, holdVmMountNs, mkdirRootDir, type MountNsHolder } from './vm-mount-ns.ts';
import { mountRuntimeDir, runtimeDirMiB, unmountRuntimeDir } from './runtime-dir.ts';
import { removeTenantTree } from './tenant-tree.ts';
import { createVmNetwork, removeVmNetwork, type VmLink } from './vm-network.ts';

/**
 * Where a VM's processes are kept apart from the machine and from other VMs: its own network
 * namespace and link (vm-network.ts, made at boot, removed at power-off) and its own mount namespace
 * (vm-mount-ns.ts, made at boot, gone with the VM's last process).
 */
export interface VmIsolation {
  link: VmLink;
  user: string;
  globalDir: string;
}

/** `init`: the holder of the VM's mount, IPC and PID namespaces (vm-mount-ns.ts), PID 1 of the VM. */
export type DesktopProcess = 'init' | 'xvfb' | 'bus' | 'session' | 'vnc' | 'sshd';

/**
 * The program (as /proc/PID/comm shows it) behind each desktop process, and the name of its log.
 * `inPidNs`: the PID tracked is tini's (ns-enter.ts), whose child in the VM's PID namespace is the
 * program. The holder of the namespaces is `unshare` (vm-mount-ns.ts).
 */
export const DESKTOP_PROGRAMS: Record<DesktopProcess, { program: string; log: string; inPidNs: boolean }> = {
  init: { program: 'unshare', log: 'mount-namespace', inPidNs: false },
  xvfb: { program: 'Xvfb', log: 'Xvfb', inPidNs: false },
  bus: { program: 'dbus-daemon', log: 'dbus-daemon', inPidNs: true },
  session: { program: 'xfce4-session', log: 'xfce4-session', inPidNs: true },
  vnc: { program: 'x11vnc', log: 'x11vnc', inPidNs: true },
  sshd: { program: 'sshd', log: 'sshd', inPidNs: true },
};

/** The PID of `k`'s program itself: tini's child for a process in the VM's PID namespace. */
export function programPid(k: DesktopProcess, pid: number): number {
  return DESKTOP_PROGRAMS[k].inPidNs ? (childPids(pid)[0] ?? pid) : pid;
}

export interface BootedDesktop {
  display: string;
  /** The X server's socket file (display.ts). */
  socket: string;
  /** The display's cookie: the driver keeps it and never reads the VM's copy back. */
  cookie: Buffer;
  procs: Partial<Record<DesktopProcess, TrackedProcess>>;
}

export interface ScreenSize {
  width: number;
  height: number;
}

/** Starts the VM's desktop, VNC and SSH; on any failure kills what did start and rethrows. */
export async function bootDesktop(
  tracker: ProcessTracker,
  r: VmRecord,
  p: VmPaths,
  cgroup: VmCgroup | undefined,
  size: ScreenSize,
  /** Filled with the ms from the start of the boot at which each part answered (benches). */
  marks: Partial<Record<DesktopProcess, number>> = {},
  /** Without: the VM's processes share the machine's namespaces (the clone bench's naive baseline). */
  isolation?: VmIsolation,
): Promise<BootedDesktop> {
  const t0 = performance.now();
  const mark = <T>(k: DesktopProcess, v: T): T => {
    marks[k] = performance.now() - t0;
    return v;
  };
  // Made at driver start; checked again in case something swept /tmp since (one lstat).
  for (const dir of SHARED_SOCKET_DIRS) ensureSharedSocketDir(dir);
  await mountRuntimeDir(p.runtimeDir, r.uid, r.gid, runtimeDirMiB(r.memoryGiB));
  mkdirSync(p.data, { recursive: true, mode: 0o700 });
  mkdirSync(p.logs, { recursive: true, mode: 0o700 });
  const cookie = writeXauthority(p.xauthority, r.uid, r.gid);
  const down = {
    cgroup,
    uid: r.uid,
    procs: [] as TrackedProcess[],
    runtimeDir: p.runtimeDir,
    ...(isolation ? { isolation, xTmpDir: p.xTmpDir } : {}),
  };
  let holder: MountNsHolder | undefined;
  if (isolation) {
    try {
      // No way out yet: the host applies the VM's egress policy once it runs (egress.ts).
      await createVmNetwork(isolation.link);
      // The VM's resolver is the DNS answerer on its link's host end (egress-dns.ts).
      writeFileSync(p.resolvConf, `nameserver ${isolation.link.hostIp}\noptions edns0\n`, { mode: 0o644 });
      // /dev/shm is bounded by half the VM's memory, as a tmpfs /dev/shm is on most distributions.
      holder = await holdVmMountNs(tracker, cgroup, {
        disk: p.disk,
        home: r.home,
        runtimeDir: p.runtimeDir,
        resolvConf: p.resolvConf,
        shmMiB: (r.memoryGiB * 1024) / 2,
        logFile: join(p.logs, 'mount-namespace.log'),
      });
      // Emptied at every boot: a socket file a killed X server left is gone before the next one starts.
      await freshRootDir(p.xTmpDir, 0o1777);
      mkdirRootDir(join(p.xTmpDir, '.X11-unix'), 0o1777);
    } catch (e) {
      await powerOff({ ...down, procs: holder ? [holder.proc] : [] });
      throw e;
    }
  }
  const namespaces = isolation &&
    holder && { net: isolation.link.netnsPath, mount: holder.path, ipc: holder.ipc, pid: holder.pid };
  const screen: ScreenSpec = {
    vmUser: { user: r.user, uid: r.uid, gid: r.gid, home: r.home },
    cgroup,
    runtimeDir: p.runtimeDir,
    xauthority: p.xauthority,
    logDir: p.logs,
    ...size,
    ...(namespaces ? { namespaces, tmpDir: p.xTmpDir } : {}),
  };
  const procs: BootedDesktop['procs'] = holder ? { init: holder.proc } : {};
  try {
    const x = mark('xvfb', await startXvfb(tracker, screen, undefined, cookie));
    procs.xvfb = x.proc;
    const sshdAt = sshdFiles(p, r.user, isolation);
    writeFileSync(sshdAt.config, sshdConfig({
      ip: r.ip,
      port: r.sshPort,
      user: r.user,
      hostKeyFile: sshdAt.hostKey,
      authorizedKeysFile: p.authorizedKeys,
      env: {
        DISPLAY: x.display,
        XAUTHORITY: p.xauthority,
        XDG_RUNTIME_DIR: p.runtimeDir,
        DBUS_SESSION_BUS_ADDRESS: `unix:path=${p.runtimeDir}/bus`,
        PATH: `${r.home}/.local/bin:/usr/local/bin:/usr/bin:/bin`,
        ...DESKTOP_ENV,
      },
    }), { mode: 0o600 }); // prettier-ignore
    const [session, vnc, sshd] = await Promise.allSettled([
      startSession(tracker, screen, x, cookie).then((v) => mark('session', v)),
      startVnc(tracker, screen, x.display, { ip: r.ip, port: r.vncPort, password: r.vncPassword }).then((v) =>
        mark('vnc', v),
      ),
      startSshd(tracker, cgroup, sshdAt.config, r.ip, r.sshPort, join(p.logs, 'sshd.log'), namespaces).then(
        (v) => mark('sshd', v),
      ),
    ]);
    if (session.status === 'fulfilled') Object.assign(procs, session.value);
    if (vnc.status === 'fulfilled') procs.vnc = vnc.value;
    if (sshd.status === 'fulfilled') procs.sshd = sshd.value;
    for (const s of [session, vnc, sshd]) if (s.status === 'rejected') throw s.reason;
    return { display: x.display, socket: x.socket, cookie, procs };
  } catch (e) {
    await powerOff({ ...down, procs: Object.values(procs) });
    throw e;
  }
}

/**
 * Where the VM's sshd reads its config and host key. Inside the VM's mount namespace the machine's
 * /tmp is hidden (a data dir in tests lives there), and sshd reads both again for every connection:
 * with isolation they are copied to a root-only dir under the global dir (/run), remade at each boot.
 */
function sshdFiles(p: VmPaths, user: string, isolation: VmIsolation | undefined) {
  if (!isolation) return { config: p.sshdConfig, hostKey: p.hostKey };
  const dir = sshdRunDir(isolation.globalDir, user);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const hostKey = join(dir, 'ssh_host_ed25519_key');
  copyFileSync(p.hostKey, hostKey);
  return { config: join(dir, 'sshd_config'), hostKey };
}

export const sshdRunDir = (globalDir: string, user: string) => join(globalDir, 'sshd', user);

export interface PowerOffTarget {
  cgroup: VmCgroup | undefined;
  uid: number;
  procs: TrackedProcess[];
  runtimeDir?: string;
  /** The X server's /tmp, removed with what a killed X server leaves in it (its socket file). */
  xTmpDir?: string;
  /** Removed once the processes are gone (a namespace lives on while a process is in it). */
  isolation?: VmIsolation;
}

/**
 * Kills every process of the VM and waits until they are gone; sweeps what they leave behind.
 * `meanwhile` is more work that needs the processes gone (unmounting the disk), run alongside the
 * slowest part of the sweep (ipcrm freeing x11vnc's ~40 segments).
 */
export async function powerOff(t: PowerOffTarget, meanwhile?: () => Promise<void>): Promise<void> {
  const pids = new Set(t.procs.map((p) => p.pid));
  for (const pid of t.cgroup?.pids() ?? []) pids.add(pid);
  await t.cgroup?.killAll();
  await killUserProcesses(t.uid);
  for (const p of t.procs) p.kill();
  await Promise.all(t.procs.map((p) => p.exited));
  // Also what a SIGKILLed Xvfb leaves (its lock and socket in /tmp): another user's Xvfb could not reuse the number.
  removeUserTempFiles(t.uid);
  if (t.runtimeDir) await unmountRuntimeDir(t.runtimeDir);
  if (t.xTmpDir) await removeTenantTree(t.xTmpDir);
  const iso = t.isolation;
  if (iso) rmSync(sshdRunDir(iso.globalDir, iso.user), { recursive: true, force: true });
  const namespaces = iso && removeVmNetwork(iso.link);
  await Promise.all([
    removeShm(t.uid, [...pids]),
    removeMqueues(t.uid),
    (async () => {
      await namespaces;
      await meanwhile?.();
    })(),
  ]);
}
