// Each VM's own mount namespace, so that a VM's temporary files are its own: /tmp and /var/tmp are
// directories on the VM's disk (its bounded tmpfs), emptied at every boot, and /dev/shm is a tmpfs
// of its own. Everything else is the machine's view (homes are private by mode, the runtime dir is
// the user's). /tmp/.X11-unix and /tmp/.ICE-unix in the private /tmp are made by root (1777) before
// any VM process runs; the VM's X server keeps its socket file in a dir of the VM's that only the
// driver reaches (display.ts) and its clients reach it through the abstract socket of the VM's network
// namespace, so no other VM can see the socket at all. Processes that start in the namespace must not
// need a path under the machine's /tmp (sshd's files are copied to the global dir, see vm-boot.ts).
//
// The same holder makes the VM's IPC namespace: SysV shared memory, semaphores, message queues and
// POSIX message queues of one VM are invisible to every other VM and to the machine, and go when the
// VM's last process does (before, they were swept by user at power-off, after the fact).
//
// The namespaces are made by a holder process (root, in the VM's cgroup) that sets up the mounts and
// sleeps; the VM's processes join them with `nsenter --mount=/proc/<holder>/ns/mnt
// --ipc=/proc/<holder>/ns/ipc` while it boots, and the holder is stopped once they run. The
// namespaces then live exactly as long as the VM's processes: power-off (the cgroup kill) ends them
// with them, and nothing is left to remove.
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import type { VmCgroup } from './cgroups.ts';
import { waitReady } from './probe.ts';
import type { ProcessTracker, TrackedProcess } from './runner.ts';

/** The VM's temp dirs on its disk (`disk` is root-only, 0700: the VM reaches them only as /tmp, /var/tmp). */
export const vmTempDirs = (disk: string) => ({ tmp: join(disk, 'tmp'), varTmp: join(disk, 'var-tmp') });

const SOCKET_DIRS = ['.X11-unix', '.ICE-unix'];

/** A shell pipeline stage that prints the mount point of every VM disk and home in the caller's mount namespace. */
export const LIST_VM_MOUNTS =
  "sed -n 's/^[^ ]* [^ ]* [^ ]* [^ ]* \\([^ ]*\\) .* - [^ ]* sandbay-\\(home\\|disk\\) .*/\\1/p' /proc/self/mountinfo";

// Mounts made inside the new namespace. Paths and sizes arrive as arguments, never in the script.
// The namespace starts as a private copy of the machine's mounts, other VMs' disks and homes among
// them: those copies go (lazily), or a VM deleted later would keep its disk's memory alive in here.
const HOLDER_SCRIPT = [
  'set -e',
  `${LIST_VM_MOUNTS} |`,
  'while read -r point; do [ "$point" = "$4" ] || [ "$point" = "$5" ] || umount -l "$point" 2>/dev/null || true; done',
  'mount --bind "$2" /var/tmp',
  'mount -t tmpfs -o "size=$3,mode=1777,nosuid,nodev" sandbay-shm /dev/shm',
  // Last: the other paths may lie under the machine's /tmp (a data dir in tests), hidden from here on.
  'mount --bind "$1" /tmp',
  'exec sleep infinity',
].join('\n');

export interface MountNsHolder {
  proc: TrackedProcess;
  /** What `nsenter --mount=` takes while the holder lives. */
  path: string;
  /** What `nsenter --ipc=` takes while the holder lives. */
  ipc: string;
}

/**
 * Makes the VM's mount namespace with fresh temp dirs, held by a process until `stop()`. The VM's
 * processes must be gone (the temp dirs are emptied).
 */
export async function holdVmMountNs(
  tracker: ProcessTracker,
  cgroup: VmCgroup | undefined,
  vm: { disk: string; home: string; shmMiB: number; logFile: string },
  timeoutMs = 5000,
): Promise<MountNsHolder> {
  const dirs = vmTempDirs(vm.disk);
  for (const dir of [dirs.tmp, dirs.varTmp]) freshRootDir(dir, 0o1777);
  for (const name of SOCKET_DIRS) freshRootDir(join(dirs.tmp, name), 0o1777);
  const args = [
    '--mount',
    '--ipc',
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
  ];
  const cmd = cgroup ? cgroup.wrap('unshare', args) : { command: 'unshare', args };
  const proc = await tracker.start(cmd.command, cmd.args, { label: 'mount namespace', logFile: vm.logFile });
  try {
    // unshare and sh exec in place: the holder is ready when its PID runs `sleep`.
    await waitReady('the mount namespace', proc, async () => comm(proc.pid) === 'sleep', timeoutMs);
  } catch (e) {
    proc.kill();
    await proc.exited;
    throw e;
  }
  return { proc, path: `/proc/${proc.pid}/ns/mnt`, ipc: `/proc/${proc.pid}/ns/ipc` };
}

/** The mount namespace a process is in (`mnt:[inode]`), for checks. */
export function mountNsOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return undefined;
  }
}

function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Removes `dir` (never following a link in it) and makes it again, root's, with `mode`. */
export function freshRootDir(dir: string, mode: number): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || st.uid !== 0)
    throw new DriverError('command_failed', `${dir}: not root's directory`);
  chmodSync(dir, mode);
}
