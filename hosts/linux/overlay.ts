// A VM's disk: its home is an overlayfs whose lower layer is the image (a template home) and whose
// upper layer lives on the VM's own tmpfs, sized like the VM's disk. The upper dir is the VM's disk
// delta; dropping it (unmounting the tmpfs) is what makes a fresh clone cost milliseconds.
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import { run } from './runner.ts';

export interface HomeLayers {
  /** The image's template home as owned by the VM user (lower layer, read-only to the VM). */
  lower: string;
  /** Mount point of the VM's tmpfs, holding `upper/` and `work/`. */
  disk: string;
  /** Where the merged home is mounted (the VM user's home in /etc/passwd). */
  home: string;
  sizeGiB: number;
  uid: number;
  gid: number;
}

export const upperOf = (disk: string) => join(disk, 'upper');
const workOf = (disk: string) => join(disk, 'work');

/** Mounts a fresh disk (empty upper) and the merged home on it. */
export async function mountHome(l: HomeLayers): Promise<void> {
  mkdirSync(l.disk, { recursive: true, mode: 0o700 });
  mkdirSync(l.home, { recursive: true, mode: 0o755 });
  if (!isMounted(l.disk)) {
    await run('mount', [
      '-t',
      'tmpfs',
      '-o',
      `size=${l.sizeGiB}g,mode=0700,nosuid,nodev`,
      'sandbay-disk',
      l.disk,
    ]);
  }
  const upper = upperOf(l.disk);
  mkdirSync(upper, { recursive: true });
  mkdirSync(workOf(l.disk), { recursive: true });
  // The merged root takes the owner and mode of the upper dir: the VM user's, private.
  chownSync(upper, l.uid, l.gid);
  chmodSync(upper, 0o700);
  if (!isMounted(l.home)) {
    const opts = `lowerdir=${l.lower},upperdir=${upper},workdir=${workOf(l.disk)},nosuid,nodev`;
    if (opts.includes(' ') || [l.lower, l.disk].some((p) => p.includes(',') || p.includes(':'))) {
      throw new DriverError(
        'invalid_argument',
        `overlay paths must not contain spaces, commas or colons: ${opts}`,
      );
    }
    await run('mount', ['-t', 'overlay', 'sandbay-home', '-o', opts, l.home]);
  }
}

/**
 * Unmounts each of `dirs` that is a mount point, in order, with one `umount` (lazily when busy). A
 * mount listed in mountinfo whose path does not resolve here (shadowed by a later mount over a parent,
 * as in a namespace with a fresh /tmp) cannot be unmounted by path and is left to its namespace.
 */
export async function unmount(...dirs: string[]): Promise<void> {
  const reachable = (dir: string) => isMounted(dir) && existsSync(dir);
  for (let mounted = dirs.filter(reachable); mounted.length > 0; mounted = dirs.filter(reachable)) {
    try {
      await run('umount', mounted);
    } catch (e) {
      if (!(e instanceof DriverError && /busy/i.test(e.message))) throw e;
      await run('umount', ['-l', ...mounted]);
    }
  }
}

/** Whether `dir` is a mount point, from /proc/self/mountinfo (no spawn). */
export function isMounted(dir: string): boolean {
  const want = dir.replace(/\/+$/, '');
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const mountPoint = line.split(' ')[4];
    if (mountPoint !== undefined && unescapeMountPath(mountPoint) === want) return true;
  }
  return false;
}

function unescapeMountPath(p: string): string {
  return p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}
