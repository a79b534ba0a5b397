// Each VM runs as its own Unix user (`sbvm<N>`, created on demand and kept for reuse): that is what
// keeps one VM out of another's home, processes and screen. This module creates the user and sweeps
// up after it: every process with its uid, and the SysV shared-memory segments its X clients leave
// behind when killed (x11vnc leaks ~42 per SIGKILL; the system limit runs out after ~100).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { DriverError } from '../driver.ts';
import { delay, run, signalPid } from './runner.ts';

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
): (VmUser & { password?: string }) | undefined {
  for (const line of readFileSync(passwdFile, 'utf8').split('\n')) {
    const f = line.split(':');
    if (f[0] === user && f.length >= 7) return { user, uid: Number(f[2]), gid: Number(f[3]), home: f[5]! };
  }
  return undefined;
}

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
    return { ...found, home };
  }
  await withPasswdLock(() => run('useradd', ['-M', '-d', home, '-s', '/bin/bash', '-p', '*', '-U', user]));
  const made = findUser(user);
  if (!made) throw new DriverError('command_failed', `useradd ${user}: user not found afterwards`, 'useradd');
  return made;
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
  return userPids(uid).filter((pid) => !isZombie(pid));
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

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Removes the shared-memory segments that belong to the VM: owned or created by its uid, or created
 * by one of its processes that ran as root (x11vnc). Only unattached segments are removed.
 */
export async function removeShm(uid: number, pids: readonly number[] = []): Promise<number> {
  const ids = vmShmIds(uid, new Set(pids));
  if (ids.length === 0) return 0;
  await run(
    'ipcrm',
    ids.flatMap((id) => ['-m', String(id)]),
  ).catch((e: unknown) => {
    // A segment removed by someone else meanwhile is fine; anything else is reported.
    if (!(e instanceof DriverError && /invalid id|not exist/i.test(e.message))) throw e;
  });
  return ids.length;
}

function vmShmIds(uid: number, pids: Set<number>): number[] {
  const lines = readFileSync('/proc/sysvipc/shm', 'utf8').trim().split('\n').slice(1);
  const ids: number[] = [];
  for (const line of lines) {
    // key shmid perms size cpid lpid nattch uid gid cuid cgid ...
    const f = line.trim().split(/\s+/).map(Number);
    const [shmid, cpid, nattch, owner, creator] = [f[1]!, f[4]!, f[6]!, f[7]!, f[9]!];
    if (nattch === 0 && (owner === uid || creator === uid || pids.has(cpid))) ids.push(shmid);
  }
  return ids;
}
