// The accessibility subtree of each window, from AT-SPI inside the VM's session: atspi-tree.py runs
// as the VM user under /usr/bin/python3 (the one with pyatspi/gi; a pyenv python first on PATH has
// neither), fed on stdin over the pooled SSH connection. X11 windows stay the top level: a window's
// AT-SPI frame (same pid, same title) lends it its children. Any failure leaves the X11 list as is.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { WindowNode } from '../driver.ts';
import { commandLine } from './ssh-client-exec.ts';
import type { SshClient } from './ssh-client.ts';

const SCRIPT = readFileSync(new URL('./atspi-tree.py', import.meta.url));
/** The script stops itself after 4 s (SIGALRM); the channel is closed at 5 s regardless. */
const ATSPI_TIMEOUT_MS = 5_000;

interface AtspiApp {
  app: string;
  pid: number;
  windows: WindowNode[];
}

export async function atspiApps(ssh: SshClient, env: Record<string, string>): Promise<AtspiApp[]> {
  const res = await ssh.run(commandLine('exec /usr/bin/python3 -', env), {
    stdin: Readable.from([SCRIPT]),
    deadlineMs: ATSPI_TIMEOUT_MS,
  });
  if (res.code !== 0) return [];
  try {
    const parsed = JSON.parse(res.stdout.toString('utf8')) as { apps?: AtspiApp[] };
    return Array.isArray(parsed.apps) ? parsed.apps : [];
  } catch {
    return [];
  }
}

/** Attaches to each X11 window the children of its AT-SPI frame (matched by pid, then by title). */
export function mergeAccessibility(windows: WindowNode[], apps: AtspiApp[]): WindowNode[] {
  const used = new Set<WindowNode>();
  return windows.map((win) => {
    const candidates = apps
      .filter((a) => win.pid !== undefined && a.pid === win.pid)
      .flatMap((a) => a.windows);
    const frame =
      candidates.find((f) => !used.has(f) && f.name === win.name) ??
      (candidates.length === 1 && !used.has(candidates[0] as WindowNode) ? candidates[0] : undefined);
    if (!frame) return win;
    used.add(frame);
    const merged: WindowNode = { ...win };
    if (frame.children?.length) merged.children = frame.children;
    return merged;
  });
}
