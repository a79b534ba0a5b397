// Files root writes into a directory a tenant can write to (the VM's runtime dir): created fresh,
// never opened if anything is at the name already (a link, a FIFO, a file the tenant made), and
// given to their owner through the descriptor (fchown), never by a path the tenant could swap for a
// link to a file of the machine between the write and the chown.
import { closeSync, constants, fchownSync, openSync, writeSync } from 'node:fs';

/** Creates `file` (which must not exist) holding `data`, owned by `uid:gid` with `mode`. */
export function createFileFor(
  file: string,
  data: Buffer | string,
  owner: { uid: number; gid: number },
  mode = 0o600,
): void {
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    fchownSync(fd, owner.uid, owner.gid);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
  } finally {
    closeSync(fd);
  }
}
