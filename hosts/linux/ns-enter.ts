// Starting a process inside a VM's namespaces: `nsenter` joins them and then execs the command in
// place (no fork without a PID namespace), so the PID the driver tracks is the command's own.
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
}

/** `cmd` as run inside `ns` (unchanged without). Paths travel as argv entries, never through a shell. */
export function inNamespaces(
  cmd: { command: string; args: string[] },
  ns: VmNamespaces | undefined,
): { command: string; args: string[] } {
  if (!ns) return cmd;
  const mount = ns.mount === undefined ? [] : [`--mount=${ns.mount}`];
  const ipc = ns.ipc === undefined ? [] : [`--ipc=${ns.ipc}`];
  return { command: 'nsenter', args: [`--net=${ns.net}`, ...mount, ...ipc, '--', cmd.command, ...cmd.args] };
}
