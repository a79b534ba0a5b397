// Holding a process's namespace open for the rest of a test. A namespace is named by its inode
// (`mnt:[4026532177]`), and the kernel gives a freed namespace's number to the next namespace made
// (the lowest free, shared by every kind: `unshare --mount` four times 0.3 s apart printed the same
// number each time). A test that checks a VM's namespace is gone by looking for processes with that
// number would then count another test's VM booting meanwhile as "still in it"; while the test holds
// an fd on the namespace, the number names it alone.
import { closeSync, openSync, readlinkSync } from 'node:fs';
import { onTestFinished } from 'vitest';

/** The namespace's name (`/proc/PID/ns/<kind>` link text), held open until the test ends. */
export function holdNamespace(pid: number, kind: 'mnt' | 'ipc' | 'net'): string {
  const fd = openSync(`/proc/${pid}/ns/${kind}`, 'r');
  onTestFinished(() => closeSync(fd));
  return readlinkSync(`/proc/${pid}/ns/${kind}`);
}
