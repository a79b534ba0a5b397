// Reads the MIT-MAGIC-COOKIE-1 of one display from a VM's Xauthority file. The `x11` package would
// read process.env.XAUTHORITY, which is process-wide; every VM has its own file, so the server picks
// the cookie itself and hands it to the connection.
import { readFile } from 'node:fs/promises';
import { DriverError } from '../driver.ts';

export interface X11Cookie {
  name: string;
  /** The cookie bytes as a latin1 string (what the `x11` handshake writes). */
  data: string;
}

interface XauthEntry {
  family: number;
  display: string;
  name: string;
  data: Buffer;
}

/** Parses the Xauthority binary format: repeated (family u16, then 4 length-prefixed fields). */
export function parseXauthority(buf: Buffer): XauthEntry[] {
  const entries: XauthEntry[] = [];
  let off = 0;
  const field = (): Buffer | undefined => {
    if (off + 2 > buf.length) return undefined;
    const len = buf.readUInt16BE(off);
    off += 2;
    if (off + len > buf.length) return undefined;
    const value = buf.subarray(off, off + len);
    off += len;
    return value;
  };
  while (off + 2 <= buf.length) {
    const family = buf.readUInt16BE(off);
    off += 2;
    const address = field();
    const display = field();
    const name = field();
    const data = field();
    // A truncated tail (a file being rewritten) ends the list; the complete entries stand.
    if (!address || !display || !name || !data) break;
    entries.push({
      family,
      display: display.toString('latin1'),
      name: name.toString('latin1'),
      data: Buffer.from(data),
    });
  }
  return entries;
}

/** The display number of `:N` / `:N.S` / `N`. */
export function displayNumber(display: string | number): string {
  const m = /^:?(\d+)(?:\.\d+)?$/.exec(String(display));
  if (!m?.[1]) throw new DriverError('invalid_argument', `not a local X display: ${String(display)}`);
  return m[1];
}

/** The cookie for `display` in `file`. The file belongs to one VM, so any address family matches. */
export async function readCookie(file: string, display: string | number): Promise<X11Cookie> {
  let buf: Buffer;
  try {
    buf = await readFile(file);
  } catch (err) {
    throw new DriverError('unreachable', `cannot read Xauthority ${file}: ${(err as Error).message}`);
  }
  const num = displayNumber(display);
  const cookie = parseXauthority(buf).find(
    (e) => e.name === 'MIT-MAGIC-COOKIE-1' && (e.display === num || e.display === ''),
  );
  if (!cookie) throw new DriverError('unreachable', `no MIT-MAGIC-COOKIE-1 for display :${num} in ${file}`);
  return { name: cookie.name, data: cookie.data.toString('latin1') };
}
