// One cgroup per VM: it enforces the VM's vCPU (CPU quota), memory and process limits, and it is how
// a VM's processes are killed as a whole (freeze, SIGKILL every member, thaw, wait until empty), so
// that none outlives a stop or a delete. cgroup v1 (cpu, memory, pids, freezer hierarchies) and
// cgroup v2 (one unified hierarchy with cgroup.kill) are both supported; which one is detected.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError } from '../driver.ts';
import { delay, signalPid } from './runner.ts';

const GiB = 1024 ** 3;
const CPU_PERIOD_US = 100_000;
const V1_CONTROLLERS = ['cpu', 'memory', 'pids', 'freezer'] as const;
type V1Controller = (typeof V1_CONTROLLERS)[number];

export type CgroupLayout =
  { version: 1; mounts: Record<V1Controller, string> } | { version: 2; root: string };

/** cgroup v2's default `cpu.weight` (v1's `cpu.shares` 1024): a running VM's share. */
export const DEFAULT_CPU_WEIGHT = 100;

export interface CgroupLimits {
  cpu: number;
  memoryGiB: number;
  pidsMax: number;
}

/** v1's `cpu.shares` for a v2 weight: 1024 is v1's default (weight 100), 2 its minimum. */
const sharesOf = (weight: number) => Math.max(2, Math.round((weight * 1024) / DEFAULT_CPU_WEIGHT));

/** Finds the usable cgroup hierarchy, or says what is missing. */
export function detectCgroups(mountsFile = '/proc/mounts'): CgroupLayout | { missing: string } {
  const lines = readFileSync(mountsFile, 'utf8').split('\n');
  const v1: Partial<Record<V1Controller, string>> = {};
  let v2: string | undefined;
  for (const line of lines) {
    const [, dir, type, options] = line.split(' ');
    if (!dir || !options) continue;
    if (type === 'cgroup') {
      const opts = options.split(',');
      for (const c of V1_CONTROLLERS) if (opts.includes(c) && !v1[c]) v1[c] = dir;
    } else if (type === 'cgroup2' && !v2) {
      const ctl = readOr(join(dir, 'cgroup.controllers'), '').split(/\s+/);
      if (['cpu', 'memory', 'pids'].every((c) => ctl.includes(c))) v2 = dir;
    }
  }
  if (V1_CONTROLLERS.every((c) => v1[c])) return { version: 1, mounts: v1 as Record<V1Controller, string> };
  if (v2) return { version: 2, root: v2 };
  const absent = V1_CONTROLLERS.filter((c) => !v1[c]);
  return {
    missing: `cgroup controllers ${absent.join(', ')} (v1) or a cgroup2 mount with cpu, memory, pids`,
  };
}

/** The cgroup of one VM, by its relative path (e.g. `sandbay/sbvm3`), the same in every hierarchy. */
export class VmCgroup {
  readonly layout: CgroupLayout;
  readonly path: string;

  constructor(layout: CgroupLayout, path: string) {
    if (!/^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/.test(path))
      throw new DriverError('invalid_argument', `bad cgroup path ${path}`);
    this.layout = layout;
    this.path = path;
  }

  /** The directories that make up this cgroup (one per v1 hierarchy, one for v2). */
  dirs(): string[] {
    if (this.layout.version === 2) return [join(this.layout.root, this.path)];
    return V1_CONTROLLERS.map((c) =>
      join((this.layout as { mounts: Record<V1Controller, string> }).mounts[c], this.path),
    );
  }

  /** The `cgroup.procs` files a new process writes its PID into to join this cgroup. */
  procsFiles(): string[] {
    return this.dirs().map((d) => join(d, 'cgroup.procs'));
  }

  create(): void {
    if (this.layout.version === 2) enableV2Controllers(this.layout.root, this.path);
    for (const d of this.dirs()) mkdirSync(d, { recursive: true });
  }

  exists(): boolean {
    return this.dirs().every((d) => existsSync(d));
  }

  /** The VM's limits, and its CPU weight back at the default (a boot's lower weight never sticks). */
  setLimits(l: CgroupLimits): void {
    const quota = Math.round(l.cpu * CPU_PERIOD_US);
    const memory = Math.round(l.memoryGiB * GiB);
    this.setCpuWeight(DEFAULT_CPU_WEIGHT);
    if (this.layout.version === 2) {
      const d = this.dirs()[0]!;
      writeFileSync(join(d, 'cpu.max'), `${quota} ${CPU_PERIOD_US}`);
      writeFileSync(join(d, 'memory.max'), String(memory));
      writeFileSync(join(d, 'pids.max'), String(l.pidsMax));
      return;
    }
    const m = this.layout.mounts;
    writeFileSync(join(m.cpu, this.path, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
    writeFileSync(join(m.cpu, this.path, 'cpu.cfs_quota_us'), String(quota));
    writeFileSync(join(m.memory, this.path, 'memory.limit_in_bytes'), String(memory));
    writeFileSync(join(m.pids, this.path, 'pids.max'), String(l.pidsMax));
  }

  /**
   * The cgroup's share of the CPU when the CPU is contended, against its peers (1 to 10,000, as
   * cgroup v2's `cpu.weight`). A weight, not a limit: on an idle machine it still gets every cycle.
   */
  setCpuWeight(weight: number): void {
    if (this.layout.version === 2) writeFileSync(join(this.dirs()[0]!, 'cpu.weight'), String(weight));
    else writeFileSync(this.#v1Shares(), String(sharesOf(weight)));
  }

  /** The CPU weight as the kernel reports it (v1's `cpu.shares` read back on v2's scale). */
  cpuWeight(): number {
    if (this.layout.version === 2) return Number(readFileSync(join(this.dirs()[0]!, 'cpu.weight'), 'utf8'));
    const shares = Number(readFileSync(this.#v1Shares(), 'utf8'));
    return Math.max(1, Math.round((shares * DEFAULT_CPU_WEIGHT) / 1024));
  }

  #v1Shares(): string {
    return join(
      (this.layout as { mounts: Record<V1Controller, string> }).mounts.cpu,
      this.path,
      'cpu.shares',
    );
  }

  /** The limits as the kernel reports them. */
  readLimits(): CgroupLimits {
    let quota: number, period: number, memory: number, pids: string;
    if (this.layout.version === 2) {
      const d = this.dirs()[0]!;
      [quota, period] = readFileSync(join(d, 'cpu.max'), 'utf8').trim().split(' ').map(Number) as [
        number,
        number,
      ];
      memory = Number(readFileSync(join(d, 'memory.max'), 'utf8').trim());
      pids = readFileSync(join(d, 'pids.max'), 'utf8').trim();
    } else {
      const m = this.layout.mounts;
      quota = Number(readFileSync(join(m.cpu, this.path, 'cpu.cfs_quota_us'), 'utf8'));
      period = Number(readFileSync(join(m.cpu, this.path, 'cpu.cfs_period_us'), 'utf8'));
      memory = Number(readFileSync(join(m.memory, this.path, 'memory.limit_in_bytes'), 'utf8'));
      pids = readFileSync(join(m.pids, this.path, 'pids.max'), 'utf8').trim();
    }
    return {
      cpu: quota / period,
      memoryGiB: memory / GiB,
      pidsMax: pids === 'max' ? Infinity : Number(pids),
    };
  }

  /** PIDs of every process in the cgroup. */
  pids(): number[] {
    const seen = new Set<number>();
    for (const f of this.procsFiles()) {
      for (const s of readOr(f, '').split('\n')) if (s) seen.add(Number(s));
    }
    return [...seen];
  }

  /**
   * Kills every process of the cgroup and waits until it is empty. Freezing first means no member
   * can fork a new one between our reading the list and the kill; the wait is bounded because a
   * traced process never freezes.
   */
  async killAll(timeoutMs = 3000): Promise<void> {
    if (!this.exists()) return;
    const deadline = Date.now() + timeoutMs;
    if (this.layout.version === 2) {
      const kill = join(this.dirs()[0]!, 'cgroup.kill');
      if (existsSync(kill)) writeFileSync(kill, '1');
      else for (const pid of this.pids()) signalPid(pid, 'SIGKILL');
    } else {
      const state = join(this.layout.mounts.freezer, this.path, 'freezer.state');
      writeFileSync(state, 'FROZEN');
      while (readOr(state, '').trim() !== 'FROZEN' && Date.now() < deadline) await delay(2);
      for (const pid of this.pids()) signalPid(pid, 'SIGKILL');
      writeFileSync(state, 'THAWED');
    }
    for (;;) {
      const left = this.pids();
      if (left.length === 0) return;
      if (Date.now() >= deadline) {
        throw new DriverError(
          'timeout',
          `cgroup ${this.path}: processes ${left.join(' ')} still alive after SIGKILL`,
        );
      }
      for (const pid of left) signalPid(pid, 'SIGKILL');
      await delay(5);
    }
  }

  /**
   * Stops every process of the cgroup where it is (the freezer): none runs, forks or touches a file
   * until `thaw()`; memory is kept. Resolves once the kernel reports the cgroup frozen; a process that
   * cannot be frozen within `timeoutMs` (one being traced) thaws it again and fails the call.
   */
  async freeze(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.#setFrozen(true);
    while (!this.frozen()) {
      if (Date.now() >= deadline) {
        this.#setFrozen(false);
        throw new DriverError('timeout', `cgroup ${this.path}: not frozen within ${timeoutMs} ms`);
      }
      await delay(2);
    }
  }

  thaw(): void {
    this.#setFrozen(false);
  }

  /** Whether the kernel reports every process of the cgroup frozen. */
  frozen(): boolean {
    if (this.layout.version === 2)
      return /^frozen 1$/m.test(readOr(join(this.dirs()[0]!, 'cgroup.events'), ''));
    return readOr(join(this.layout.mounts.freezer, this.path, 'freezer.state'), '').trim() === 'FROZEN';
  }

  #setFrozen(on: boolean): void {
    if (this.layout.version === 2) writeFileSync(join(this.dirs()[0]!, 'cgroup.freeze'), on ? '1' : '0');
    else
      writeFileSync(join(this.layout.mounts.freezer, this.path, 'freezer.state'), on ? 'FROZEN' : 'THAWED');
  }

  /** Moves a running process (and the children it forks from now on) into this cgroup. */
  join(pid: number): void {
    for (const f of this.procsFiles()) writeFileSync(f, String(pid));
  }

  /**
   * The command line that starts `command` inside this cgroup, as `as` when given: a tiny `sh` writes
   * its own PID into every `cgroup.procs` and then execs (setpriv dropping to the VM user, then) the
   * command, so the process is a member before it runs a single instruction of its own. The script
   * is a constant; paths and arguments travel as separate argv entries, never through the shell.
   */
  wrap(
    command: string,
    args: readonly string[],
    as?: { uid: number; gid: number },
  ): { command: string; args: string[] } {
    const drop = as ? asUser(as) : [];
    return {
      command: '/bin/sh',
      args: ['-c', ENTER_SCRIPT, 'sb-enter', ...this.procsFiles(), '--', ...drop, command, ...args],
    };
  }

  /** Removes the (empty) cgroup. */
  remove(): void {
    for (const d of this.dirs().reverse()) {
      try {
        rmdirSync(d);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
}

const ENTER_SCRIPT =
  'for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 126; shift; done; shift; exec "$@"';

/** v2 only delegates controllers that every ancestor lists in cgroup.subtree_control. */
function enableV2Controllers(root: string, path: string): void {
  let dir = root;
  for (const part of path.split('/').slice(0, -1)) {
    writeFileSync(join(dir, 'cgroup.subtree_control'), '+cpu +memory +pids');
    dir = join(dir, part);
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(dir, 'cgroup.subtree_control'), '+cpu +memory +pids');
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

/** The argv prefix that runs what follows as `as`: uid, gid, no supplementary groups (root's dropped). */
export function asUser(as: { uid: number; gid: number }): string[] {
  return ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--'];
}
