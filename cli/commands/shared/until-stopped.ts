// The end of every long-running command (`server`, `api`, `operator`): wait for SIGINT or SIGTERM,
// stop within the shutdown limit (api/shutdown.ts), say what was abandoned, exit with its code.
import { describeShutdown, stopWithin, type Stoppable } from '../../../api/shutdown.ts';
import { untilSignalled } from './store-flags.ts';

export async function runUntilStopped(
  name: string,
  server: { close(): Promise<void>; abandoned?: () => string[] },
): Promise<never> {
  const signal = await untilSignalled();
  // A second signal while stopping: the operator means it.
  const again = () => process.exit(1);
  process.once('SIGINT', again).once('SIGTERM', again);
  const stoppable: Stoppable = { close: () => server.close(), abandoned: () => server.abandoned?.() ?? [] };
  const report = await stopWithin(stoppable);
  process.stderr.write(`${describeShutdown(name, signal, report)}\n`);
  // Explicitly: a handle still open (a connection being cut, a timer of a part that did not stop)
  // must not keep the process alive after the stop.
  process.exit(report.exitCode);
}
