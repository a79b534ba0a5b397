// What a hostile tenant does inside its own VM to wedge the control plane, as shell lines for the
// API's `exec` of its sandbox (the tenant's own rights): shared by the hostile-tenant test and its
// bench, so that both try the same things.

/** The tenant's X client grabs its X server (XGrabServer) and holds it: an X server that stops answering. */
export const GRAB_X =
  "nohup /usr/bin/python3 -c 'import gi,time\n" +
  'gi.require_version("Gdk","3.0"); gi.require_version("GdkX11","3.0")\n' +
  'from gi.repository import Gdk, GdkX11\n' +
  'd = Gdk.Display.get_default(); d.grab(); d.flush(); print("grabbed", flush=True); time.sleep(3600)\'' +
  ' > /tmp/sandbay-grab.out 2>&1 </dev/null & ' +
  'while ! grep -q grabbed /tmp/sandbay-grab.out; do sleep 0.05; done; echo grabbed';

/** Ends the grab (its client exits). */
export const UNGRAB_X = 'pkill -f "d.grab()"; rm -f /tmp/sandbay-grab.out; true';

/** A FIFO where the VM's X cookie file was (a copy kept aside, for the tenant's own X clients). */
export const FIFO_AT_COOKIE =
  'cp "$XAUTHORITY" ~/.sandbay-cookie; rm -f "$XAUTHORITY"; mkfifo "$XAUTHORITY"; stat -c %F "$XAUTHORITY"';

/** Puts the cookie file back. */
export const RESTORE_COOKIE = 'rm -f "$XAUTHORITY"; mv ~/.sandbay-cookie "$XAUTHORITY"';

/**
 * A file in the home that grows without end, 1 MiB per 50 ms at most; answers once it holds `mib`
 * MiB. Not faster: a VM's disk is a tmpfs charged to its memory cgroup (docs/isolation.md), and a
 * writer at full speed (~600 MiB/s here) fills its 6 GiB within the test on a loaded machine; the
 * kernel then kills the VM's largest process, its X server, and the VM stops as a crashed one does.
 */
export const growForever = (name: string, mib = 4) =>
  `{ nohup sh -c 'while :; do head -c 1048576 /dev/zero; sleep 0.05; done' > ~/${name} 2>/dev/null </dev/null & } ; ` +
  `while [ $(stat -c %s ~/${name}) -lt ${mib * 1048576} ]; do sleep 0.05; done; echo growing`;

/** Stops the growing file's writer and removes the file. */
export const stopGrowing = (name: string) =>
  `pkill -u "$(id -u)" -f "head -c 1048576"; pkill -u "$(id -u)" -f "while :; do head"; rm -f ~/${name}; true`;

/**
 * In `seconds`, the tenant stops (SIGSTOP) every sshd process of its own uid: the control plane's
 * pooled connection then accepts nothing more and answers nothing (an sshd that accepts and never
 * answers). The delay lets this exec's own answer out first.
 */
export const stopOwnSshdIn = (seconds: number) =>
  `{ nohup sh -c 'sleep ${seconds}; pkill -STOP -u "$(id -u)" -x sshd' >/dev/null 2>&1 </dev/null & } ; echo armed`;

/** Whether `ps -o stat=,args=` lines of the VM's user show every sshd session of it stopped. */
export function sshdStopped(psLines: string[]): boolean {
  const sshd = psLines.filter((l) => / sshd: /.test(l));
  return sshd.length > 0 && sshd.every((l) => l.startsWith('T'));
}

/**
 * Kills the sshd process that carries the command's own SSH connection (the shell's parent, or,
 * through the exec agent, the agent's): the control plane's pooled connection drops.
 */
export const KILL_OWN_CONNECTION =
  'p=$PPID; while [ "$(ps -o comm= -p "$p")" != sshd ]; do p=$(ps -o ppid= -p "$p" | tr -d " "); done; kill -9 "$p"';
