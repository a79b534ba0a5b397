// What differs between the guest systems a Tart VM may run: how a command reaches the logged-in GUI
// session (agent exec, `exec_ax`) and where the window and accessibility tree comes from. The guest
// says which it is (`uname -s`, once per boot):
//
// - macOS (`Darwin`): agent exec through `launchctl asuser` (the GUI session's bootstrap namespace,
//   where accessibility and screen APIs answer); the tree from the Accessibility API in a JXA
//   helper (ax-tree.jxa, `osascript -l JavaScript` fed on stdin, run in that session), bounded in
//   depth, node count and time. Both wait for the GUI session first (auto-login may still be under
//   way after boot). Needs the Accessibility permission for osascript/sshd-keygen-wrapper in the
//   guest (docs/mac.md); each TCC error code gets a hint. Written to Apple's documented interfaces;
//   not run here (no Mac): the emulated Macs' guests are Linux desktops and take the other path.
// - a Linux desktop (Tart runs Linux guests too; the emulated Macs' guests are these): the guest's
//   sshd already gives commands the desktop session's environment, so agent exec is a plain exec;
//   top-level windows from the window manager (`wmctrl -lpG`, every X client), their accessibility
//   subtrees from AT-SPI with the linux driver's own script and merge.
import { readFileSync } from 'node:fs';
import { DriverError, type WindowNode } from '../driver.ts';
import { mergeAccessibility } from '../linux/windows-atspi.ts';
import { shellQuote } from '../linux/ssh-client.ts';

/** Runs a command line in the guest (as the guest user over SSH), with `stdin` if given. */
export type GuestRun = (
  command: string,
  stdin?: Buffer,
) => Promise<{ code: number; stdout: string; stderr: string }>;

export interface GuestOs {
  readonly name: 'macos' | 'linux';
  /** The command line that runs `command` (a shell command) in the guest user's GUI session. */
  inSession(command: string): string;
  /** A command line that exits 0 once the guest user's GUI session is up (bounded: exit 3 past it). */
  readonly sessionUp: string;
  windows(run: GuestRun): Promise<WindowNode[]>;
}

/** How long the first call that needs the GUI session waits for it (auto-login after a boot). */
export const SESSION_WAIT_S = 60;

/** `until TEST; do …` bounded by SESSION_WAIT_S, failing with `what` on stderr. */
function waitFor(test: string, what: string): string {
  return (
    `i=0; until ${test}; do i=$((i+1)); ` +
    `if [ $i -gt ${SESSION_WAIT_S * 10} ]; then echo ${shellQuote(what)} >&2; exit 3; fi; sleep 0.1; done`
  );
}

/**
 * Hints for the codes macOS's privacy controls (TCC) fail with, and the failures that mean the GUI
 * session is not there: each names what to grant or fix. The first match wins.
 */
const TCC_HINTS: [RegExp, string][] = [
  [
    /-25211|kAXErrorAPIDisabled|-1719|assistive access|not trusted for Accessibility/,
    'grant Accessibility to sshd-keygen-wrapper and osascript in the guest (Privacy & Security › Accessibility; Cirrus Labs base images have it): docs/mac.md',
  ],
  [
    /-1743|errAEEventNotPermitted|Not authorized to send Apple events/,
    'grant Automation (Apple Events) to sshd-keygen-wrapper and osascript in the guest (Privacy & Security › Automation): docs/mac.md',
  ],
  [
    /-1744|errAEEventWouldRequireUserConsent/,
    'macOS wants a person to allow Automation for osascript once; pre-grant it in the image (TCC): docs/mac.md',
  ],
  [
    /-10004|errAEPrivilegeError|privilege violation/,
    'a privileged Apple event was refused; run it in the GUI session as the logged-in user: docs/mac.md',
  ],
  [
    /-600|procNotFound|-10810|Could not switch|no GUI session/,
    'no GUI session: the guest user is not logged in at the console (auto-login off, or the login keychain prompt is up)',
  ],
  [
    /Operation not permitted|EPERM/,
    'a TCC-protected location (Full Disk Access, Documents, Desktop) refused the process; grant Full Disk Access to sshd-keygen-wrapper in the image: docs/mac.md',
  ],
  [
    /-25204|kAXErrorCannotComplete/,
    'an application did not answer its accessibility request in time (busy or hung)',
  ],
];

/** A failure's first line with the hint its TCC code gets, if any. */
export function withTccHint(line: string): string {
  const hint = TCC_HINTS.find(([test]) => test.test(line))?.[1];
  return hint ? `${line} (${hint})` : line;
}

export function guestOsOf(uname: string): GuestOs {
  const kernel = uname.trim();
  if (kernel === 'Darwin') return MACOS;
  if (kernel === 'Linux') return LINUX_DESKTOP;
  throw new DriverError('command_failed', `unknown guest system ${JSON.stringify(kernel)} (uname -s)`);
}

/** A tree answer: each application with its windows (the shape both tree scripts print). */
interface TreeApps {
  apps: { app: string; pid: number; windows: WindowNode[] }[];
}

function parseTree(what: string, text: string): TreeApps {
  try {
    const parsed = JSON.parse(text) as TreeApps;
    if (Array.isArray(parsed.apps)) return parsed;
  } catch {
    // reported below with the text
  }
  throw new DriverError('command_failed', `${what} printed no tree: ${JSON.stringify(text.slice(0, 200))}`);
}

const JXA_TREE = readFileSync(new URL('./ax-tree.jxa', import.meta.url));

const MACOS: GuestOs = {
  name: 'macos',
  inSession(command) {
    // From SSH the process is outside the GUI session; launchctl asuser enters its bootstrap
    // namespace (root needed, so sudo: Cirrus Labs' images give admin passwordless sudo), and the
    // inner sudo drops back to the guest user.
    return `sudo -n launchctl asuser "$(id -u)" sudo -n -u "$(id -un)" /bin/zsh -c ${shellQuote(command)}`;
  },
  // The console belongs to the guest user and its Dock runs: loginwindow has finished the login.
  sessionUp: waitFor(
    '[ "$(stat -f %Su /dev/console)" = "$(id -un)" ] && pgrep -qxu "$(id -u)" Dock',
    'no GUI session: the guest user did not log in at the console (is auto-login on?)',
  ),
  async windows(run) {
    const r = await run(this.inSession('osascript -l JavaScript'), JXA_TREE);
    if (r.code !== 0) {
      const line = r.stderr.trim().split('\n')[0] || `exit ${r.code}`;
      throw new DriverError('command_failed', `osascript: ${withTccHint(line)}`, 'osascript');
    }
    return parseTree('osascript', r.stdout).apps.flatMap((a) =>
      a.windows.map((w) => ({ ...w, app: a.app, pid: a.pid })),
    );
  },
};

const ATSPI_TREE = readFileSync(new URL('../linux/atspi-tree.py', import.meta.url));

const LINUX_DESKTOP: GuestOs = {
  name: 'linux',
  inSession: (command) => command,
  sessionUp: waitFor(
    'xprop -root _NET_SUPPORTING_WM_CHECK >/dev/null 2>&1',
    'no desktop session: its window manager is not up',
  ),
  async windows(run) {
    const r = await run('wmctrl -lpG && xprop -root _NET_ACTIVE_WINDOW');
    if (r.code !== 0) {
      throw new DriverError('command_failed', `wmctrl: ${r.stderr.trim().split('\n')[0] ?? ''}`, 'wmctrl');
    }
    const windows = parseWmctrl(r.stdout);
    const tree = await run('exec /usr/bin/python3 -', ATSPI_TREE);
    // Apps that speak no AT-SPI (xterm) keep their window without children, as on the linux driver.
    return tree.code === 0
      ? mergeAccessibility(windows, parseTree('atspi-tree.py', tree.stdout).apps)
      : windows;
  },
};

/** `wmctrl -lpG` lines (id desktop pid x y w h host title…) and xprop's active window. */
export function parseWmctrl(text: string): WindowNode[] {
  const active = /_NET_ACTIVE_WINDOW\(WINDOW\): window id # (0x[0-9a-f]+)/.exec(text)?.[1];
  const out: WindowNode[] = [];
  for (const line of text.split('\n')) {
    const m = /^(0x[0-9a-f]+)\s+(-?\d+)\s+(\d+)\s+(-?\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+\S+\s?(.*)$/.exec(line);
    if (!m) continue;
    const [, id, desktop, pid, x, y, width, height, title] = m;
    if (desktop === '-1') continue; // sticky panels and the desktop itself
    const node: WindowNode = {
      role: 'window',
      name: title ?? '',
      x: Number(x),
      y: Number(y),
      width: Number(width),
      height: Number(height),
      id: id!,
    };
    if (Number(pid) > 0) node.pid = Number(pid);
    if (active !== undefined && Number(active) === Number(id)) node.focused = true;
    out.push(node);
  }
  return out;
}
