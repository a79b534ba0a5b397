// A fork's disk on the linux driver: the source VM's overlay upper dir (its whole disk delta, on its
// own tmpfs) copied into the fork's, with the source frozen meanwhile (the caller's job: host.ts).
//
// The copy is made as root, because the upper dir holds what only root can read and recreate:
// overlayfs's whiteouts (character devices 0:0, a deleted image file) and its `trusted.overlay.*`
// xattrs (an opaque dir). It opens nothing of the tenant's but regular files: `cp -a` copies symlinks
// as links (never follows one), and FIFOs, sockets and devices as such (mknod, never opened, so a
// FIFO blocks nothing); hard links within the tree stay links. With the source frozen no tenant
// process runs, so no name changes between cp's look and its copy. Then the whole copy is given to
// the fork's user (`chown -R -h`, links themselves, never their targets): no process of that user
// runs yet. tmpfs has no reflinks: "copy-on-write" here is a plain copy of the delta (its cost is
// measured in bench/README.md), never of the image, which stays the shared lower layer.
import { readdir } from 'node:fs/promises';
import { DriverError } from '../driver.ts';
import { mountHome, unmount, upperOf, type HomeLayers } from './overlay.ts';
import { run } from './runner.ts';

/** A disk of ten gigabytes on tmpfs copies in seconds; past this the fork fails. */
const COPY_TIMEOUT_MS = 10 * 60_000;

/**
 * Copies the upper dir of `fromDisk` into the fork's (a stopped VM with an empty disk): its merged
 * home is unmounted meanwhile (overlayfs does not allow its upper dir to change under a mount), and
 * mounted again over the copy.
 */
export async function copyDisk(fromDisk: string, to: HomeLayers): Promise<void> {
  const target = upperOf(to.disk);
  if ((await readdir(target)).length > 0) {
    throw new DriverError('invalid_argument', `the disk of the fork at ${to.disk} is not empty`);
  }
  await unmount(to.home);
  try {
    await run('cp', ['-a', '--no-target-directory', '--', upperOf(fromDisk), target], {
      timeoutMs: COPY_TIMEOUT_MS,
    });
    await run('chown', ['-R', '-h', `${to.uid}:${to.gid}`, '--', target], { timeoutMs: COPY_TIMEOUT_MS });
  } finally {
    await mountHome(to);
  }
}
