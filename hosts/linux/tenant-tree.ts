// Removing what a tenant made: its last /tmp on its disk, its runtime dir. Such a tree can hold
// millions of entries and any kind of file (FIFOs, sockets, links to anywhere), so it is removed by
// a child process (`rm -rf --one-file-system`, which never follows a link and never opens a file),
// bounded by a deadline: a walk on the server's own thread (Node's rmSync) would hold every other
// tenant's calls for as long as the tree takes. Callers remove a tree only once no process of the
// tenant runs any more (power-off, or before its VM boots), so nothing can swap a name meanwhile.
import { DriverError } from '../driver.ts';
import { run } from './runner.ts';

/** Removing a tree the tenant filled to its disk's inode limit takes seconds, not minutes. */
const REMOVE_DEADLINE_MS = 120_000;

/** Removes `path` and everything under it (nothing when it does not exist). */
export async function removeTenantTree(path: string, timeoutMs = REMOVE_DEADLINE_MS): Promise<void> {
  if (!path.startsWith('/') || path === '/')
    throw new DriverError('invalid_argument', `refusing to remove ${path}: not an absolute path below /`);
  await run('rm', ['-rf', '--one-file-system', '--', path], { timeoutMs });
}
