// Each VM runs as its own Unix user (`sbvm<N>`, created on demand and kept for reuse): that is what
// keeps one VM out of another's home, processes and screen. This module creates the user and sweeps
// up after it: every process with its uid, and the SysV shared-memory segments its X clients leave
// behind when killed (x11vnc leaks ~42 per SIGKILL; the system limit runs out after ~100).
import { lstatSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { DriverError } from '../driver.ts';
import { processLives } from './proc.ts';
import { delay, run, signalPid } from './runner.ts';
import { isSharedSocketDirName } from './shared-socket-dirs.ts';

export interface VmUser {
  user: string;
  uid: number;
  gid: number;
  home: string;
}

/** Looks a user up in /etc/passwd (no NSS: VM users are always local). */
export function findUser(
  user: string,
  passwdFile = '/etc/passwd',
): (VmUser & { comment: string }) | undefined {
  for (const line of readFileSync(passwdFile, 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === user && f.length >= 7)
      return { user, uid: Number(f[2]), gid: Number(f[3]), home: f[5]!, comment: f[4]! };
  }
  return undefined;
}

/** The comment (GECOS) field of every VM user: what tells the machine reset the driver made it. */
export const VM_USER_COMMENT = 'sandbay linux VM';

/**
 * Makes sure `user` exists with `home` as its home (not created: the VM mounts it) and a password
 * field of `*`, which sshd with `UsePAM no` accepts for key logins (`!` would lock it).
 */
export async function ensureVmUser(user: string, home: string): Promise<VmUser> {
  if (!/^[a-z_][a-z0-9_-]{0,30}$/.test(user))
    throw new DriverError('invalid_argument', `bad user name ${user}`);
  const found = findUser(user);
  if (found) {
    if (found.home !== home) await withPasswdLock(() => run('usermod', ['-d', home, user]));
    if (shadowField(user) !== '*') await withPasswdLock(() => run('usermod', ['-p', '*', user]));
    if (found.comment !== VM_USER_COMMENT)
      await withPasswdLock(() => run('usermod', ['-c', VM_USER_COMMENT, user]));
    return { user, uid: found.uid, gid: found.gid, home };
  }
  await withPasswdLock(() =>
    run('useradd', ['-M', '-d', home, '-s', '/bin/bash', '-p', '*', '-U', '-c', VM_USER_COMMENT, user]),
  );
  const made = findUser(user);
  if (!made) throw new DriverError('command_failed', `useradd ${user}: user not found afterwards`, 'useradd');
  return made;
}

/** Removes a VM user and its group (its processes must be gone; its home is not touched). */
export async function deleteVmUser(user: string): Promise<void> {
  if (!findUser(user)) return;
  await withPasswdLock(() => run('userdel', [user]));
}

function shadowField(user: string): string | undefined {
  try {
    for (const line of readFileSync('/etc/shadow', 'utf8').split('\n')) {
      const f = line.split(':');
      if (f[0] === user) return f[1];
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** useradd/usermod fail fast when another process holds /etc/passwd's lock; other drivers may. */
async function withPasswdLock<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const busy = e instanceof DriverError && /lock|try again/i.test(e.message);
      if (!busy || attempt >= 20) throw e;
      await delay(50 + attempt * 25);
    }
  }
}

/** PIDs of every process whose effective uid is `uid` (a /proc entry is owned by the process's euid). */
export function userPids(uid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (statSync(`/proc/${name}`).uid === uid) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** PIDs of the living (not zombie) processes of `uid`. */
export function liveUserPids(uid: number): number[] {
  return userPids(uid).filter(processLives);
}

/** SIGKILLs every process of `uid` until none is left (bounded): the net under the cgroup kill. */
export async function killUserProcesses(uid: number, timeoutMs = 3000): Promise<void> {
  if (uid === 0) throw new DriverError('invalid_argument', 'refusing to kill processes of root');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = liveUserPids(uid);
    if (left.length === 0) return;
    if (Date.now() >= deadline)
      throw new DriverError('timeout', `processes of uid ${uid} survive SIGKILL: ${left.join(' ')}`);
    for (const pid of left) signalPid(pid, 'SIGKILL');
    await delay(5);
  }
}

/** Machine-wide dirs every user can write to: where a VM's files would outlive its home. */
const SHARED_TMP_DIRS = ['/tmp', '/var/tmp', '/dev/shm'];

/**
 * Removes every file of `uid` from the machine's shared temp dirs (and world-writable dirs in them,
 * such as /tmp/.X11-unix), so that nothing a VM wrote there is left for the next VM of its user. A
 * shared socket dir (`/tmp/.X11-unix`, `/tmp/.ICE-unix`) is never removed, even when `uid` made it:
 * other VMs' sockets live in it; only `uid`'s files in it go (see shared-socket-dirs.ts).
 */
export function removeUserTempFiles(uid: number, dirs = SHARED_TMP_DIRS): number {
  if (uid === 0) throw new DriverError('invalid_argument', 'refusing to remove files of root');
  let removed = 0;
  const sweep = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = `${dir}/${name}`;
      try {
        const st = lstatSync(p);
        if (depth === 0 && st.isDirectory() && isSharedSocketDirName(name)) {
          sweep(p, depth + 1);
        } else if (st.uid === uid) {
          rmSync(p, { recursive: true, force: true });
          removed++;
        } else if (st.isDirectory() && (st.mode & 0o002) !== 0 && depth < 3) {
          sweep(p, depth + 1);
        }
      } catch {
        // gone meanwhile
      }
    }
  };
  for (const d of dirs) sweep(d, 0);
  return removed;
}

/**
 * Removes the VM's System V IPC objects, which outlive their processes: shared-memory segments
 * (unattached ones) owned or created by its uid or created by one of its processes, and its
 * semaphore sets and message queues. Returns how many were removed.
 */
export async function removeShm(uid: number, pids: readonly number[] = []): Promise<number> {
  const args = [...ipcIds(uid, new Set(pids))];
  if (args.length === 0) return 0;
  await run('ipcrm', args).catch((e: unknown) => {
    // An object removed by someone else meanwhile is fine; anything else is reported.
    if (!(e instanceof DriverError && /invalid id|not exist|identifier removed/i.test(e.message))) throw e;
  });
  return args.length / 2;
}

/** `ipcrm` arguments for the VM's objects, read from /proc/sysvipc (columns as the kernel prints them). */
function* ipcIds(uid: number, pids: Set<number>): Generator<string> {
  const table = (name: string) =>
    readFileSync(`/proc/sysvipc/${name}`, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/).map(Number));
  // shm: key shmid perms size cpid lpid nattch uid gid cuid cgid …
  for (const f of table('shm')) {
    const mine = f[7] === uid || f[9] === uid || pids.has(f[4]!);
    if (mine && f[6] === 0) yield* ['-m', String(f[1])];
  }
  // sem: key semid perms nsems uid gid cuid cgid …
  for (const f of table('sem')) if (f[4] === uid || f[6] === uid) yield* ['-s', String(f[1])];
  // msg: key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid …
  for (const f of table('msg')) if (f[7] === uid || f[9] === uid) yield* ['-q', String(f[1])];
}

// Lists the message queues of the machine's IPC namespace owned by `$1` and removes them: the mqueue
// filesystem is mounted only inside a throwaway mount namespace, so the machine's mounts stay as they are.
const MQUEUE_SWEEP = [
  'set -e',
  'mount -t mqueue sandbay-mqueue /mnt',
  'find /mnt -mindepth 1 -maxdepth 1 -user "$1" -print -delete',
].join('\n');

/**
 * Removes the POSIX message queues of `uid`, which, like System V objects, outlive their creator
 * and would be the next tenant's of the same user. Returns how many were removed.
 */
export async function removeMqueues(uid: number): Promise<number> {
  if (uid === 0) throw new DriverError('invalid_argument', 'refusing to remove message queues of root');
  const { stdout } = await run('unshare', [
    '--mount',
    '--propagation',
    'private',
    '--',
    '/bin/sh',
    '-c',
    MQUEUE_SWEEP,
    'sb-mqueue',
    String(uid),
  ]);
  return stdout.split('\n').filter(Boolean).length;
}
