// Starting a process inside a VM's namespaces. `nsenter` joins the network, mount and IPC
// namespaces itself and then execs in place. A PID namespace cannot be joined by a running process,
// only by its children: with one, nsenter (`--no-fork`) execs `tini`, which stays outside, in the
// machine's PID namespace, and starts the command as its child inside the VM's. tini forwards every
// signal it can catch to the command and exits with its status, so the PID the driver tracks (tini's)
// stops and reports the command as if it were the command; SIGKILL, which tini cannot forward, reaches
// the command through its cgroup (power-off kills the cgroup) or the parent-death signal (PDEATHSIG).
export interface VmNamespaces {
  /** The VM's network namespace (/run/netns/…). */
  net: string;
  /** The VM's persisted mount namespace (private /tmp, /var/tmp, /dev/shm); absent for the X server. */
  mount?: string;
  /**
   * The VM's IPC namespace (SysV shared memory, semaphores and message queues, POSIX message
   * queues), which every process of the VM joins, its X server included: x11vnc and X clients hand
   * SysV segments to the X server by id (MIT-SHM), an id means something only within one namespace.
   */
  ipc?: string;
  /**
   * The VM's PID namespace: the VM sees its own processes only (vm-mount-ns.ts). Absent for the X
   * server, which no process of the VM can then name, signal or trace.
   */
  pid?: string;
}

/** `cmd` as run inside `ns` (unchanged without). Paths travel as argv entries, never through a shell. */
export function inNamespaces(
  cmd: { command: string; args: string[] },
  ns: VmNamespaces | undefined,
): { command: string; args: string[] } {
  if (!ns) return cmd;
  const mount = ns.mount === undefined ? [] : [`--mount=${ns.mount}`];
  const ipc = ns.ipc === undefined ? [] : [`--ipc=${ns.ipc}`];
  const joined = [`--net=${ns.net}`, ...mount, ...ipc];
  if (ns.pid === undefined) return { command: 'nsenter', args: [...joined, '--', cmd.command, ...cmd.args] };
  return {
    command: 'nsenter',
    args: [...joined, `--pid=${ns.pid}`, '--no-fork', '--', TINI, '-s', '--', cmd.command, ...cmd.args],
  };
}

/** Debian's tini: the signal-forwarding parent of each VM process started into its PID namespace. */
export const TINI = 'tini';
