// The process launcher (launcher.ts starts it): a small Node process that spawns the linux driver's
// programs for the server. Node's spawn forks the whole calling process and waits for the child's
// exec on the caller's main thread, a wait that grows with the caller's resident memory (1.2 ms at
// 67 MiB, 24.5 ms at 416 MiB: bench/spawn-cost.ts). Forked from this small process, a VM's boot no
// longer holds the server's event loop. It answers over its IPC channel and exits when the server
// goes; the programs it started stay (the driver adopts a VM's processes after a restart).
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setPriority } from 'node:os';
import type { LauncherReply, LauncherRequest } from './launcher.ts';

const children = new Map<number, ChildProcess>();

// The server may run ahead of its desktops at a negative nice level (`sandbay server --priority`),
// which this process inherits: the programs it forks for VMs start at the default, 0, again.
setPriority(0);

function reply(m: LauncherReply): void {
  // The server gone meanwhile: nothing to tell, and 'disconnect' ends this process.
  process.send?.(m, undefined, undefined, () => {});
}

function spawnError(id: number, e: NodeJS.ErrnoException): void {
  reply({ op: 'error', id, code: e.code ?? '', message: e.message });
}

/** A command run to its end: its whole output comes back in one reply. */
function runToEnd(m: Extract<LauncherRequest, { op: 'run' }>): void {
  const child = spawn(m.command, m.args, {
    env: m.env,
    cwd: m.cwd,
    stdio: [m.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  children.set(m.id, child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => err.push(b));
  let settled = false;
  const settle = (answer: () => void) => {
    if (settled) return;
    settled = true;
    children.delete(m.id);
    answer();
  };
  child.on('error', (e: NodeJS.ErrnoException) => settle(() => spawnError(m.id, e)));
  child.on('close', (code, signal) =>
    settle(() =>
      reply({ op: 'closed', id: m.id, code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }),
    ),
  );
  if (m.input !== undefined) {
    child.stdin?.on('error', () => {});
    child.stdin?.end(m.input);
  }
}

/** A long-running process: its pid once it runs, what it writes on its piped fds, and its exit. */
function startLong(m: Extract<LauncherRequest, { op: 'start' }>): void {
  let logFd: number | undefined;
  try {
    logFd = m.logFile === undefined ? undefined : openSync(m.logFile, 'w', 0o600);
  } catch (e) {
    return spawnError(m.id, e as NodeJS.ErrnoException);
  }
  const stdio: StdioOptions = ['ignore', 'ignore', logFd ?? 'pipe'];
  for (let i = 0; i < m.extraFds; i++) stdio.push('pipe');
  const child = spawn(m.command, m.args, { env: m.env, cwd: m.cwd, stdio });
  if (logFd !== undefined) closeSync(logFd);
  children.set(m.id, child);
  child.once('error', (e: NodeJS.ErrnoException) => {
    children.delete(m.id);
    spawnError(m.id, e);
  });
  child.once('spawn', () => reply({ op: 'spawned', id: m.id, pid: child.pid ?? -1 }));
  child.stdio.forEach((s, fd) => {
    if (fd < 2 || !s) return;
    s.on('data', (data: Buffer) => reply({ op: 'data', id: m.id, fd, data }));
    s.once('close', () => reply({ op: 'eof', id: m.id, fd }));
    s.on('error', () => {});
  });
  child.once('exit', (code, signal) => {
    children.delete(m.id);
    reply({ op: 'exit', id: m.id, code, signal });
  });
}

process.on('message', (m: LauncherRequest) => {
  // Received: from here on the server does not send it again should this process die.
  if (m.op !== 'kill') reply({ op: 'got', id: m.id });
  if (m.op === 'run') runToEnd(m);
  else if (m.op === 'start') startLong(m);
  else children.get(m.id)?.kill(m.signal);
});
// The server is gone (exited, crashed or killed): so is the launcher, and nothing else.
process.on('disconnect', () => process.exit(0));
reply({ op: 'ready' });
