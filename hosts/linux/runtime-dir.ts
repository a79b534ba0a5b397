// A VM's XDG_RUNTIME_DIR (/run/user/<uid>: its session bus, its accessibility bus, its own copy of
// the X cookie) is a tmpfs of its own, as systemd-logind makes it: bounded (a tenant writing there
// fills its own tmpfs, charged to its memory cgroup, never the machine's /run or root disk, where the
// driver keeps its claims and databases), owned by the VM user, and gone at once when unmounted at
// power-off, whatever the tenant left in it (no walk over a tenant's tree as root).
import { mkdirSync, rmdirSync } from 'node:fs';
import { DriverError } from '../driver.ts';
import { isMounted, unmount } from './overlay.ts';
import { run } from './runner.ts';

/** The mount's source name: what tells the machine reset and the VMs' mount namespaces it is a VM's. */
export const RUNTIME_DIR_SOURCE = 'sandbay-run';

/** systemd-logind's default RuntimeDirectorySize is 10% of the machine's memory; here, of the VM's. */
export function runtimeDirMiB(memoryGiB: number): number {
  return Math.max(16, Math.floor((memoryGiB * 1024) / 10));
}

/** Mounts a fresh, empty runtime dir for `uid` at `dir` (whatever was mounted there goes first). */
export async function mountRuntimeDir(dir: string, uid: number, gid: number, sizeMiB: number): Promise<void> {
  if (!/^\/run\/user\/\d+$/.test(dir)) throw new DriverError('invalid_argument', `not a runtime dir: ${dir}`);
  await unmountRuntimeDir(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const opts = `size=${Math.floor(sizeMiB)}m,mode=0700,uid=${uid},gid=${gid},nosuid,nodev`;
  await run('mount', ['-t', 'tmpfs', '-o', opts, RUNTIME_DIR_SOURCE, dir]);
}

/**
 * Unmounts the runtime dir (lazily while a process still holds it) and removes the empty mount
 * point. A runtime dir of an older driver, a plain dir on the machine's disk, is left for the
 * machine reset, which removes it once no process of its user runs.
 */
export async function unmountRuntimeDir(dir: string): Promise<void> {
  if (!isMounted(dir)) return;
  await unmount(dir);
  try {
    rmdirSync(dir);
  } catch {
    // Not empty (an older driver's files under the mount point) or gone: left as it is.
  }
}
