// The machine's X socket directory, /tmp/.X11-unix. Each VM's Xvfb has a /tmp of its own (display.ts);
// X servers without one (an emulated Mac's, the clone bench's baseline) put their socket files in
// this one. It must exist before the first of them starts, owned by root with mode 1777
// (world-writable, sticky): created by an Xvfb instead, it would belong to that
// user, who could then replace another server's socket, and that user's power-off sweep (every file
// of its uid in /tmp) would remove it with every other socket in it. With root owning it, the sweep
// only enters it and removes the socket and lock of its own server (the sticky bit keeps users from
// removing each other's).
import { chmodSync, chownSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';

export const X11_SOCKET_DIR = '/tmp/.X11-unix';
/** The socket file of display number `num` in `dir`, as X servers name it. */
export function xSocketPath(num: number, dir = X11_SOCKET_DIR): string {
  return join(dir, `X${num}`);
}

/** The same holds for the ICE socket dir that X session clients (XFCE's session manager) use. */
export const SHARED_SOCKET_DIRS = [X11_SOCKET_DIR, '/tmp/.ICE-unix'];
const MODE = 0o1777;

/** Whether `name`, directly in a shared temp dir, is a socket dir of this kind (`.X11-unix`, `.ICE-unix`, …). */
export function isSharedSocketDirName(name: string): boolean {
  return /^\.[A-Za-z0-9]+-unix$/.test(name);
}

/** Creates `dir` (root, 1777) or fixes its owner and mode, keeping what is in it; refuses anything but a directory. */
export function ensureSharedSocketDir(dir = X11_SOCKET_DIR): void {
  try {
    mkdirSync(dir, { mode: 0o700 }); // widened below, once root owns it
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) {
    throw new DriverError('command_failed', `${dir} is not a directory: X servers cannot put sockets in it`);
  }
  if (st.uid !== 0 || st.gid !== 0) chownSync(dir, 0, 0);
  if ((st.mode & 0o7777) !== MODE) chmodSync(dir, MODE);
}
