// What the driver keeps on disk about each VM (one small JSON per VM in the host's data dir), so that
// a restarted server finds its VMs again, plus the paths every part of a VM lives at.
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readJson, replaceFile } from './claims.ts';
import { xSocketPath } from './shared-socket-dirs.ts';
import type { EgressMode } from '../../crds/egress.ts';

export interface VmRecord {
  name: string;
  image: string;
  cpu: number;
  memoryGiB: number;
  diskGiB: number;
  slot: number;
  user: string;
  uid: number;
  gid: number;
  home: string;
  ip: string;
  /** The user's copy of the image's template home (overlay lower layer). */
  lower: string;
  vncPort: number;
  vncPassword: string;
  sshPort: number;
  sshPrivateKey: string;
  sshPublicKey: string;
  /** The public half of the VM's sshd host key (`paths.hostKey`); absent in records of older drivers. */
  sshHostPublicKey?: string;
  state: 'stopped' | 'running';
  /** Running with its cgroup frozen (pauseVm): none of its processes runs until resumeVm. */
  paused?: boolean;
  /** While running: the X display, its socket file and the PID of each desktop process, for adoption after a restart. */
  display?: string;
  /** Absent in records of drivers whose VMs' X servers kept their socket in the machine's /tmp/.X11-unix. */
  xSocket?: string;
  pids?: Record<string, number>;
  /**
   * While running: the X display's cookie (hex). The driver keeps it here, in its root-only dir, and
   * never reads the VM's own copy back (that file is in a dir the VM writes to).
   */
  xCookie?: string;
  /**
   * While running: the egress policy in force (egress.ts) and its number among the VM's policies
   * (the conntrack mark of the connections it let out). Absent: none applied yet (no way out).
   */
  egress?: { mode: EgressMode; allow: string[]; mark: number };
  createdAt: string;
}

/** Where each part of a VM lives. */
export interface VmPaths {
  dir: string;
  record: string;
  /** The VM's tmpfs: its disk delta (upper) and overlay work dir. */
  disk: string;
  /** Root-only per-VM files for the guest half (recordings). */
  data: string;
  /** stderr of each desktop process (files, so that the processes outlive a crashed driver). */
  logs: string;
  sshdConfig: string;
  hostKey: string;
  /** Read by sshd as the VM user, so it lives in a traversable machine-wide dir. */
  authorizedKeys: string;
  runtimeDir: string;
  xauthority: string;
  /** The VM's X server's own /tmp, with its socket file: root's, reached only by the driver (display.ts). */
  xTmpDir: string;
  /** The VM's /etc/resolv.conf (bound there in its mount namespace): its link's DNS answerer. */
  resolvConf: string;
}

export function vmPaths(
  hostDir: string,
  globalDir: string,
  r: Pick<VmRecord, 'name' | 'slot' | 'uid'>,
): VmPaths {
  const dir = join(hostDir, 'vms', r.name);
  const runtimeDir = `/run/user/${r.uid}`;
  return {
    dir,
    record: join(dir, 'vm.json'),
    disk: join(dir, 'disk'),
    data: join(dir, 'data'),
    logs: join(dir, 'logs'),
    sshdConfig: join(dir, 'sshd_config'),
    hostKey: join(dir, 'ssh_host_ed25519_key'),
    authorizedKeys: join(globalDir, 'auth', `${r.slot}.pub`),
    runtimeDir,
    xauthority: join(runtimeDir, 'Xauthority'),
    xTmpDir: join(dir, 'x-tmp'),
    resolvConf: join(dir, 'resolv.conf'),
  };
}

/**
 * The X server's socket file of a running VM's record. A record of an older driver names only the
 * display, whose socket file was in the machine's /tmp/.X11-unix.
 */
export function xSocketOf(r: VmRecord): string | undefined {
  if (r.xSocket) return r.xSocket;
  const m = /^:(\d+)$/.exec(r.display ?? '');
  return m ? xSocketPath(Number(m[1])) : undefined;
}

/** `r` once its VM is powered off: nothing of the last run (display, socket, PIDs) is kept. */
export function stoppedRecord(r: VmRecord): VmRecord {
  const { display: _d, xSocket: _s, pids: _p, xCookie: _c, egress: _e, paused: _paused, ...rest } = r;
  return { ...rest, state: 'stopped' };
}

export function saveRecord(paths: VmPaths, r: VmRecord): void {
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  replaceFile(paths.record, r);
}

/** Every VM record under the host dir (unreadable ones are skipped: a crash mid-create). */
export function loadRecords(hostDir: string): { dir: string; record: VmRecord | undefined }[] {
  const root = join(hostDir, 'vms');
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return readdirSync(root).map((n) => ({
    dir: join(root, n),
    record: readJson<VmRecord>(join(root, n, 'vm.json')),
  }));
}
