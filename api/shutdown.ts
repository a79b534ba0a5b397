// How a sandbay process ends on SIGTERM or SIGINT: always, and within a bound, whatever is in flight.
// The listeners stop taking requests and give those in flight a grace period (api/app.ts), the
// operator stops, the drivers power their VMs off, the store closes. If all of that is not done by
// the limit (a VM that will not die, a reconcile stuck on a Mac), the process says what it abandoned
// and exits anyway. The exit code says whether anything was abandoned: 0 for a clean stop, 1 when a
// request was cut off or a part did not stop in time. A second signal exits at once (code 1).

/** SIGTERM to exit: within Kubernetes' default grace (30 s), and within what an operator waits for. */
export const SHUTDOWN_LIMIT_MS = 8_000;

export interface Stoppable {
  close(): Promise<void>;
  abandoned(): string[];
}

export interface ShutdownReport {
  /** Requests cut off and parts not stopped in time. */
  abandoned: string[];
  /** The close did not finish within the limit. */
  timedOut: boolean;
  exitCode: 0 | 1;
}

/** Closes `server`, giving up waiting after `limitMs`. */
export async function stopWithin(server: Stoppable, limitMs = SHUTDOWN_LIMIT_MS): Promise<ShutdownReport> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    server.close().then(
      () => false,
      () => false,
    ),
    new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), limitMs);
    }),
  ]);
  clearTimeout(timer);
  const abandoned = server.abandoned();
  return { abandoned, timedOut, exitCode: abandoned.length > 0 || timedOut ? 1 : 0 };
}

/** One line for the log: what the stop of `name` left behind, if anything. */
export function describeShutdown(name: string, signal: string, r: ShutdownReport): string {
  if (r.exitCode === 0) return `${name} stopped (${signal})`;
  const what = r.abandoned.length > 0 ? r.abandoned.join('; ') : 'nothing named';
  const late = r.timedOut ? ' did not stop within its limit;' : '';
  return `${name} stopped (${signal});${late} abandoned: ${what}`;
}
