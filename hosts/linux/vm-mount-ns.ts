// Each VM's own mount namespace, so that a VM's temporary files are its own: /tmp, /var/tmp and
// /run/lock are directories on the VM's disk (its bounded tmpfs), emptied at every boot, and /dev/shm
// is a tmpfs of its own. Nothing a VM writes lands on the machine's own filesystems (those dirs are
// the machine's only world-writable ones; the VM's runtime dir is a bounded tmpfs of its own, see
// runtime-dir.ts). Everything else is the machine's view (homes are private by mode).
// /tmp/.X11-unix and /tmp/.ICE-unix in the private /tmp are made by root (1777) before any VM
// process runs; the VM's X server keeps its socket file in a dir of the VM's that only the driver
// reaches (display.ts) and its clients reach it through the abstract socket of the VM's network
// namespace, so no other VM can see the socket at all. Processes that start in the namespace must not
// need a path under the machine's /tmp (sshd's files are copied to the global dir, see vm-boot.ts).
//
// The same holder makes the VM's IPC namespace: SysV shared memory, semaphores, message queues and
// POSIX message queues of one VM are invisible to every other VM and to the machine, and go when the
// VM's last process does (before, they were swept by user at power-off, after the fact).
//
// And its PID namespace, with a /proc of its own: a VM sees, signals and traces only its own
// processes (before, `ps` in one VM listed every other VM's, and a VM could trace its own X server,
// which runs as its user). The namespace's first process (PID 1 inside) is `tini`, which reaps the
// orphans of the VM and lives as long as the VM: when PID 1 of a PID namespace dies the kernel kills
// everything in it, and no process can join it any more. So the holder (root, in the VM's cgroup)
// stays for the VM's whole run; power-off (the cgroup kill) ends it with the rest. The VM's processes
// join all three with `nsenter` (ns-enter.ts), the mount and IPC ones through the holder's
// `/proc/<pid>/ns/{mnt,ipc}` and the PID one through its `pid_for_children`. The X server alone stays
// out of the PID namespace, so that nothing in the VM can name it.
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import type { VmCgroup } from './cgroups.ts';
import { waitReady } from './probe.ts';
import { childPids } from './proc.ts';
import type { ProcessTracker, TrackedProcess } from './runner.ts';
import { TINI, type VmNamespaces } from './ns-enter.ts';
import { removeTenantTree } from './tenant-tree.ts';

/** The VM's temp dirs on its disk (`disk` is root-only, 0700: the VM reaches them only as /tmp, /var/tmp, /run/lock). */
export const vmTempDirs = (disk: string) => ({
  tmp: join(disk, 'tmp'),
  varTmp: join(disk, 'var-tmp'),
  runLock: join(disk, 'run-lock'),
});

const SOCKET_DIRS = ['.X11-unix', '.ICE-unix'];

/** A shell pipeline stage that prints the mount point of every VM disk and home in the caller's mount namespace. */
export const LIST_VM_MOUNTS =
  "sed -n 's/^[^ ]* [^ ]* [^ ]* [^ ]* \\([^ ]*\\) .* - [^ ]* sandbay-\\(home\\|disk\\|run\\) .*/\\1/p' /proc/self/mountinfo";

// Mounts made inside the new namespace. Paths and sizes arrive as arguments, never in the script.
// The namespace starts as a private copy of the machine's mounts, other VMs' disks and homes among
// them: those copies go (lazily), or a VM deleted later would keep its disk's memory alive in here.
// It runs as PID 1 of the new PID namespace, with the namespace's /proc already mounted (unshare's
// --mount-proc), and ends as tini, which reaps orphans and keeps the namespaces alive.
const HOLDER_SCRIPT = [
  'set -e',
  `${LIST_VM_MOUNTS} |`,
  'while read -r point; do [ "$point" = "$4" ] || [ "$point" = "$5" ] || [ "$point" = "$6" ] || umount -l "$point" 2>/dev/null || true; done',
  'mount --bind "$2" /var/tmp',
  'mount --bind "$7" /run/lock',
  // The VM's resolver: its link's DNS answerer (egress-dns.ts), whatever the machine uses.
  'mount --bind "$8" /etc/resolv.conf',
  'mount -t tmpfs -o "size=$3,mode=1777,nosuid,nodev" sandbay-shm /dev/shm',
  // Last: the other paths may lie under the machine's /tmp (a data dir in tests), hidden from here on.
  'mount --bind "$1" /tmp',
  `exec ${TINI} -- sleep infinity`,
].join('\n');

export interface MountNsHolder {
  proc: TrackedProcess;
  /** What `nsenter --mount=` takes while the holder lives. */
  path: string;
  /** What `nsenter --ipc=` takes while the holder lives. */
  ipc: string;
  /** What `nsenter --pid=` takes while the holder lives. */
  pid: string;
}

/**
 * Makes the VM's mount, IPC and PID namespaces with fresh temp dirs, held by a process that lives as
 * long as the VM (killing it kills every process in the PID namespace). The VM's processes must be
 * gone (the temp dirs are emptied).
 */
export async function holdVmMountNs(
  tracker: ProcessTracker,
  cgroup: VmCgroup | undefined,
  vm: { disk: string; home: string; runtimeDir: string; resolvConf: string; shmMiB: number; logFile: string },
  timeoutMs = 5000,
): Promise<MountNsHolder> {
  const dirs = vmTempDirs(vm.disk);
  await Promise.all([dirs.tmp, dirs.varTmp, dirs.runLock].map((dir) => freshRootDir(dir, 0o1777)));
  for (const name of SOCKET_DIRS) mkdirRootDir(join(dirs.tmp, name), 0o1777);
  const args = [
    '--mount',
    '--ipc',
    '--pid',
    '--fork',
    '--mount-proc',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    HOLDER_SCRIPT,
    'sb-mounts',
    dirs.tmp,
    dirs.varTmp,
    `${Math.max(1, Math.floor(vm.shmMiB))}m`,
    vm.home,
    vm.disk,
    vm.runtimeDir,
    dirs.runLock,
    vm.resolvConf,
  ];
  const cmd = cgroup ? cgroup.wrap('unshare', args) : { command: 'unshare', args };
  const proc = await tracker.start(cmd.command, cmd.args, { label: 'mount namespace', logFile: vm.logFile });
  try {
    // unshare forks PID 1 of the namespace (sh, exec'ing tini): ready once tini has started `sleep`.
    await waitReady('the VM namespaces', proc, async () => isHolding(proc.pid), timeoutMs);
  } catch (e) {
    proc.kill();
    await proc.exited;
    throw e;
  }
  const { mount, ipc, pid } = vmNamespaces(proc.pid, '');
  return { proc, path: mount, ipc, pid };
}

/** The namespaces of the VM whose holder is `holderPid`, and whose network namespace is `net`. */
export function vmNamespaces(holderPid: number, net: string): Required<VmNamespaces> {
  const ns = (name: string) => `/proc/${holderPid}/ns/${name}`;
  return { net, mount: ns('mnt'), ipc: ns('ipc'), pid: ns('pid_for_children') };
}

/** Whether the holder `unshare` runs tini as PID 1 of its namespace, and tini its `sleep`. */
function isHolding(unsharePid: number): boolean {
  const init = childPids(unsharePid)[0];
  if (init === undefined || comm(init) !== TINI) return false;
  return childPids(init).some((pid) => comm(pid) === 'sleep');
}

/** The mount namespace a process is in (`mnt:[inode]`), for checks. */
export function mountNsOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return undefined;
  }
}

export function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * Removes `dir` (never following a link in it) and makes it again, root's, with `mode`. What was in
 * it is a tenant's (a VM's last /tmp): removed by a child process with a deadline (tenant-tree.ts),
 * never by a walk on the server's thread that a tree of a million files would hold for seconds.
 */
export async function freshRootDir(dir: string, mode: number): Promise<void> {
  await removeTenantTree(dir);
  mkdirRootDir(dir, mode);
}

/** Makes `dir` (which must not exist), root's, with `mode`; refuses anything that is not then root's dir. */
export function mkdirRootDir(dir: string, mode: number): void {
  mkdirSync(dir, { mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== 0)
    throw new DriverError('command_failed', `${dir}: not root's directory`);
  chmodSync(dir, mode);
}
