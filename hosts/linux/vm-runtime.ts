// What the lifecycle half of the linux driver hands the guest half for one running VM: everything
// the guest needs to reach the VM's desktop, SSH and files, with no knowledge of how it was built.
import type { VmNamespaces } from './ns-enter.ts';
import { xSocketOf, type VmPaths, type VmRecord } from './vm-record.ts';

/** A running linux VM as seen by the guest half (`new LinuxGuest(vm)`). */
export interface LinuxVmRuntime {
  name: string;
  /** The VM's own Unix user, its ids and its (overlay-merged) home. */
  user: string;
  uid: number;
  gid: number;
  home: string;
  /** The VM's own address in its network namespace, e.g. 198.19.7.2 (vm-network.ts). */
  ip: string;
  /** X display as the VM's own clients name it, e.g. ':0'. */
  display: string;
  /** The X server's socket file, where the driver connects (display.ts). */
  xSocket: string;
  /** Path of the VM's copy of the display's cookie (its runtime dir: the VM's to change, never read here). */
  xauthority: string;
  /** The display's cookie, as the driver made it (the VM's copy is not read back). */
  xCookie: Buffer;
  vnc: { host: string; port: number; password: string };
  /**
   * PEM/OpenSSH private key that logs in as `username`, and the VM's sshd host public key (an OpenSSH
   * line; empty for a VM whose record has none, which then refuses every SSH connection).
   */
  ssh: { host: string; port: number; username: string; privateKey: string; hostKey: string };
  /** XDG_RUNTIME_DIR of the VM user. */
  runtimeDir: string;
  /** A root-owned per-VM dir (e.g. recordings) outside the VM's home. */
  dataDir: string;
  width: number;
  height: number;
  /** The VM's cgroup (for placing guest-started processes under its limits), when cgroups are in use. */
  cgroupPath?: string;
  /**
   * With the VM's namespaces: what helpers that work inside the VM join (`nsenter`, ns-enter.ts), and
   * where the VM's /tmp is on the machine.
   */
  namespaces?: VmNamespaces & { tmpDir: string };
  /** Records activity (for lastActivity). */
  touch(): void;
  lastActivity(): Date | undefined;
}

/** The runtime of a running VM from its record; `activity` is where touches are kept. */
export function vmRuntime(
  r: VmRecord,
  paths: VmPaths,
  cgroupPath: string | undefined,
  size: { width: number; height: number },
  activity: Pick<LinuxVmRuntime, 'touch' | 'lastActivity'>,
  namespaces?: LinuxVmRuntime['namespaces'],
): LinuxVmRuntime {
  return {
    name: r.name,
    user: r.user,
    uid: r.uid,
    gid: r.gid,
    home: r.home,
    ip: r.ip,
    display: r.display ?? '',
    xSocket: xSocketOf(r) ?? '',
    xauthority: paths.xauthority,
    xCookie: Buffer.from(r.xCookie ?? '', 'hex'),
    vnc: { host: r.ip, port: r.vncPort, password: r.vncPassword },
    ssh: {
      host: r.ip,
      port: r.sshPort,
      username: r.user,
      privateKey: r.sshPrivateKey,
      hostKey: r.sshHostPublicKey ?? '',
    },
    runtimeDir: paths.runtimeDir,
    dataDir: paths.data,
    width: size.width,
    height: size.height,
    ...(cgroupPath ? { cgroupPath } : {}),
    ...(namespaces ? { namespaces } : {}),
    ...activity,
  };
}
