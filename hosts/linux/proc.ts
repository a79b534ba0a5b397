// What /proc and kill(2) say about a process of this machine: whether it still lives, its children,
// a line of its state. Read by the driver, the process launcher and the emulated Mac alike.
import { readFileSync } from 'node:fs';

/** A file under /proc, or undefined when the process (or the file) is gone. */
export function readProcFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The children of a process (its main thread's). */
export function childPids(pid: number): number[] {
  const list = readProcFile(`/proc/${pid}/task/${pid}/children`) ?? '';
  return list.split(' ').filter(Boolean).map(Number);
}

/** A process that exists and has not yet died (a zombie has died; only its parent has not reaped it). */
export function processLives(pid: number): boolean {
  return pidAlive(pid) && !isZombie(pid);
}

/** The pid names a process, a zombie included (one of another user's answers EPERM: it exists). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process that has exited and waits to be reaped (false when it is gone altogether). */
export function isZombie(pid: number): boolean {
  const stat = readProcFile(`/proc/${pid}/stat`);
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}
