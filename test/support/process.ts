// Runs a command as its own process (an argument array, no shell) and collects what it printed:
// how the CLI and kubectl tests drive the binaries users run.
import { spawn, type SpawnOptions } from 'node:child_process';

export interface ProcessRun {
  /** The exit code; null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `command args`, writes `stdin` (or nothing) and resolves when the process has closed. */
export function runProcess(
  command: string,
  args: string[],
  opts: Pick<SpawnOptions, 'cwd' | 'env'> & { stdin?: string } = {},
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...(opts.cwd !== undefined && { cwd: opts.cwd }),
      ...(opts.env !== undefined && { env: opts.env }),
      stdio: 'pipe',
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end(opts.stdin ?? '');
  });
}
