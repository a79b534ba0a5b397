// Root taking a recording out of a VM: the recorder (as the VM's user) wrote it into the VM's /tmp,
// where the tenant may have replaced it meanwhile by a link to a file of the machine, a FIFO that
// would block the read, a device, or a hard link to some other file. So the file is opened once,
// without following a link and without blocking, and read only if that descriptor is a regular file
// of the VM's user, with one link, on the VM's own disk; the copy goes to a root-only file, and holds
// the bytes the file had when opened, no more. The directories above it (the VM's disk and its /tmp)
// are root's: only the last name is the tenant's.
import { constants, createWriteStream } from 'node:fs';
import { lstat, open, rm, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';

/**
 * Copies `src` (in the VM's /tmp on the machine) to `dest` if it is the VM user's own regular file
 * on the same disk as `vm.tmpDir`; says whether it did (anything else is left alone and unread).
 */
export async function importVideo(
  src: string,
  dest: string,
  vm: { uid: number; tmpDir: string },
): Promise<boolean> {
  const disk = await lstat(vm.tmpDir);
  let handle;
  try {
    handle = await open(
      src,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
    );
  } catch {
    return false; // gone, or a symbolic link (ELOOP)
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.uid !== vm.uid || st.nlink !== 1 || st.dev !== disk.dev) return false;
    // Only the bytes it had when opened: a file the tenant keeps appending to must not fill the
    // machine's recordings dir (the copy would never end).
    if (st.size === 0) await writeFile(dest, '', { mode: 0o600 });
    else
      await pipeline(
        handle.createReadStream({ start: 0, end: st.size - 1, autoClose: false }),
        createWriteStream(dest, { mode: 0o600 }),
      );
    return true;
  } catch (e) {
    await rm(dest, { force: true });
    throw e;
  } finally {
    await handle.close();
  }
}
