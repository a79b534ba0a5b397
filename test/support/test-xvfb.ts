// An Xvfb for tests that leaves every other X server's socket alone. Run as root on the machine, a
// plain `Xvfb -displayfd` takes the first display whose abstract socket is free in its network
// namespace and unlinks that display's socket file in /tmp/.X11-unix first, even while another
// server (an emulated Mac's) listens on it: -displayfd writes no lock file, and root passes the
// sticky bit. This one runs in a mount namespace of its own whose /tmp/.X11-unix is a fresh dir;
// the test reaches it there by its socket file, and clients in the machine's network namespace by
// its display name (the abstract socket).
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestXvfb {
  /** Xvfb's own process (unshare and sh exec in place). */
  proc: ChildProcess;
  display: string;
  socket: string;
  stop(): Promise<void>;
}

const MOUNT_AND_RUN = 'mount --bind "$1" /tmp/.X11-unix && shift && exec "$@"';

/** Starts `Xvfb -displayfd 3 …args` and resolves once it accepts clients. */
export async function startTestXvfb(args: string[]): Promise<TestXvfb> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-test-xvfb-'));
  chmodSync(dir, 0o1777); // what Xvfb asks of its socket dir
  const proc = spawn(
    'unshare',
    ['--mount', '--propagation', 'private', '--', 'sh', '-c', MOUNT_AND_RUN, 'sb-test-x', dir, 'Xvfb', '-displayfd', '3', ...args],
    { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
  ); // prettier-ignore
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGCONT'); // a test may have stopped it
      proc.kill('SIGKILL');
    }
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const num = await new Promise<string>((resolve, reject) => {
      let text = '';
      proc.stdio[3]!.on('data', (b: Buffer) => {
        text += b.toString();
        if (text.endsWith('\n')) resolve(text.trim());
      });
      void exited.then(() => reject(new Error(`Xvfb exited before reporting its display: ${stderr.trim()}`)));
    });
    return { proc, display: `:${num}`, socket: join(dir, `X${num}`), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
