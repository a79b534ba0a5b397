// What the lifecycle half of the linux driver needs from the machine, checked once when the driver
// starts so that a missing package is named up front instead of surfacing as an odd boot failure.
// Checks look at files only (no spawns). `scripts/setup.sh` installs all of it.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import { detectCgroups } from './cgroups.ts';

/** Binaries and the Debian package of each. */
const BINARIES: ReadonlyArray<[binary: string, pkg: string]> = [
  ['Xvfb', 'xvfb'],
  ['xfce4-session', 'xfce4-session'],
  ['xfwm4', 'xfwm4'],
  ['xfce4-panel', 'xfce4-panel'],
  ['xfdesktop', 'xfdesktop4'],
  ['x11vnc', 'x11vnc'],
  ['sshd', 'openssh-server'],
  ['dbus-daemon', 'dbus-daemon'],
  ['xfce4-terminal', 'xfce4-terminal'],
  ['mousepad', 'mousepad'],
  ['thunar', 'thunar'],
  ['exo-open', 'exo-utils'],
  ['chromium', 'chromium'],
  ['setpriv', 'util-linux'],
  ['nsenter', 'util-linux'],
  ['unshare', 'util-linux'],
  ['tini', 'tini'],
  ['ip', 'iproute2'],
  ['nft', 'nftables'],
  ['ipcrm', 'util-linux'],
  ['mount', 'mount'],
  ['umount', 'mount'],
  ['useradd', 'passwd'],
  ['usermod', 'passwd'],
];

/** Files that are not on PATH: the accessibility tree (atspi-tree.py) needs python3-gi and GTK 3. */
const FILES: ReadonlyArray<[file: string, pkg: string]> = [
  ['/usr/bin/python3', 'python3'],
  ['/usr/lib/python3/dist-packages/gi', 'python3-gi'],
];

const TYPELIBS: ReadonlyArray<[typelib: string, pkg: string]> = [['Gtk-3.0.typelib', 'gir1.2-gtk-3.0']];

export interface ToolReport {
  /** Human-readable items, e.g. `Xvfb (package xvfb)`. */
  missing: string[];
  /** Debian packages that would provide them. */
  packages: string[];
}

/** PATH plus the sbin dirs (root's tools live there even when PATH lacks them). */
export function defaultSearchDirs(path = process.env.PATH ?? ''): string[] {
  return [...new Set([...path.split(':').filter(Boolean), '/usr/sbin', '/sbin', '/usr/bin', '/bin'])];
}

/** What is missing, looking for binaries in `dirs`. */
export function checkTools(dirs = defaultSearchDirs()): ToolReport {
  const missing: string[] = [];
  const packages = new Set<string>();
  const miss = (what: string, pkg: string) => {
    missing.push(`${what} (package ${pkg})`);
    packages.add(pkg);
  };
  for (const [bin, pkg] of BINARIES) if (!dirs.some((d) => executable(join(d, bin)))) miss(bin, pkg);
  for (const [file, pkg] of FILES) if (!existsSync(file)) miss(file, pkg);
  const typelibDirs = [
    '/usr/lib/x86_64-linux-gnu/girepository-1.0',
    '/usr/lib/aarch64-linux-gnu/girepository-1.0',
    '/usr/lib/girepository-1.0',
  ];
  for (const [lib, pkg] of TYPELIBS) if (!typelibDirs.some((d) => existsSync(join(d, lib)))) miss(lib, pkg);
  if (!readFileSync('/proc/filesystems', 'utf8').includes('\toverlay\n'))
    missing.push('overlay filesystem (kernel module overlay)');
  const cg = detectCgroups();
  if ('missing' in cg) missing.push(cg.missing);
  if (process.getuid?.() !== 0)
    missing.push('root privileges (the driver creates users, mounts and cgroups)');
  return { missing, packages: [...packages] };
}

/** Throws `missing_tool` naming exactly what is missing and how to install it. */
export function requireTools(): void {
  const r = checkTools();
  if (r.missing.length > 0) throw missingToolsError(r);
}

export function missingToolsError(r: ToolReport): DriverError {
  const install = r.packages.length
    ? `; install with: apt-get install ${r.packages.join(' ')} (or run scripts/setup.sh)`
    : '';
  return new DriverError('missing_tool', `linux driver: missing ${r.missing.join(', ')}${install}`);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
