// Returns the machine to its state before the linux driver ran: every VM user (`sbvmN`) with its
// processes (its mount namespace ends with them), home mount, disk tmpfs, cgroup, temp files, IPC
// objects and runtime dir, its network namespace and link, every slot claim and key; with the last slot, the VMs' firewall and route. `sandbay host reset` runs it, and so does the end of `npm test`.
//
// Only what no live driver owns: each slot is claimed through the same claim files the drivers use
// (claims.ts) before anything on it is touched, so a driver starting a VM meanwhile either got the
// slot first (and it is skipped) or waits for it. And only what the driver made: a user counts as a
// VM user when its name, home and comment are the driver's (vm-user.ts), a mount when its source is
// one of the driver's (`sandbay-home`, `sandbay-disk`, see overlay.ts; `sandbay-run`, runtime-dir.ts), a cgroup when it is under
// the driver's `sandbay/` parent.
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { detectCgroups, VmCgroup, type CgroupLayout } from './cgroups.ts';
import {
  claimPrefix,
  createExclusive,
  currentOwner,
  ownerAlive,
  replaceFile,
  SlotRegistry,
  type SlotClaim,
} from './claims.ts';
import { isMounted, unmount } from './overlay.ts';
import { RUNTIME_DIR_SOURCE, unmountRuntimeDir } from './runtime-dir.ts';
import { removeTenantTree } from './tenant-tree.ts';
import { sshdRunDir } from './vm-boot.ts';
import { listVmNetns, removeVmFirewall, removeVmNetwork, vmLink } from './vm-network.ts';
import {
  VM_USER_COMMENT,
  deleteVmUser,
  killUserProcesses,
  removeMqueues,
  removeShm,
  removeUserTempFiles,
} from './vm-user.ts';

export interface ResetOptions {
  /** The drivers' machine-wide dir (default /run/sandbay-linux). */
  globalDir?: string;
  userPrefix?: string;
  homeRoot?: string;
  /** Also slots whose driver process is alive (it loses its VMs). Default: left alone. */
  force?: boolean;
  /**
   * Only VMs whose driver's data dir is gone as well (a finished test's), not those of a driver
   * that died with its data dir in place: a restarted driver adopts those (adopt.ts), and a test of
   * that may be under way in a concurrent run. For the end of `npm test`.
   */
  abandonedOnly?: boolean;
  log?: (line: string) => void;
}

export interface ResetReport {
  users: string[];
  mounts: string[];
  cgroups: string[];
  claims: number[];
  /** Slots a live driver holds, left alone. */
  skipped: number[];
}

const MOUNT_SOURCES = new Set(['sandbay-home', 'sandbay-disk', RUNTIME_DIR_SOURCE]);

interface PasswdEntry {
  user: string;
  uid: number;
  home: string;
  comment: string;
}

/** The driver's VM users: `<prefix>N`, home `<homeRoot>/<prefix>N`, the driver's comment (or none, as before it had one). */
export function vmUsers(
  prefix: string,
  homeRoot: string,
  passwdFile = '/etc/passwd',
): (PasswdEntry & { slot: number })[] {
  const out: (PasswdEntry & { slot: number })[] = [];
  for (const line of readFileSync(passwdFile, 'utf8').split('\n')) {
    const f = line.split(':');
    if (f.length < 7) continue;
    const m = new RegExp(`^${prefix}([1-9][0-9]{0,2})$`).exec(f[0]!);
    if (!m) continue;
    const e = { user: f[0]!, uid: Number(f[2]), home: f[5]!, comment: f[4]!, slot: Number(m[1]) };
    if (e.uid < 1000 || e.home !== join(homeRoot, e.user)) continue;
    if (e.comment !== '' && e.comment !== VM_USER_COMMENT) continue;
    out.push(e);
  }
  return out;
}

/** Mount points whose source is one of the driver's, from /proc/self/mountinfo (source is after ` - fstype `). */
export function driverMounts(mountinfo = '/proc/self/mountinfo'): string[] {
  const out: string[] = [];
  for (const line of readFileSync(mountinfo, 'utf8').split('\n')) {
    const [left, right] = line.split(' - ');
    const point = left?.split(' ')[4];
    const source = right?.split(' ')[1];
    if (point && source && MOUNT_SOURCES.has(source))
      out.push(point.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  }
  return out;
}

export async function resetMachine(opts: ResetOptions = {}): Promise<ResetReport> {
  const globalDir = opts.globalDir ?? '/run/sandbay-linux';
  const prefix = opts.userPrefix ?? 'sbvm';
  if (!/^[a-z_][a-z0-9_-]{0,20}$/.test(prefix)) throw new Error(`bad user prefix ${prefix}`);
  const homeRoot = opts.homeRoot ?? '/home';
  const log = opts.log ?? (() => undefined);
  const report: ResetReport = { users: [], mounts: [], cgroups: [], claims: [], skipped: [] };
  const layout = detectCgroups();
  const cgroups = 'missing' in layout ? undefined : layout;
  // Mounts first, claims after: a mount made meanwhile was listed in its claim before it was made.
  const mounts = driverMounts();
  const slots = new SlotRegistry(globalDir);
  const users = vmUsers(prefix, homeRoot);
  // Claims of drivers with another user prefix are theirs to reset.
  const claims = slots.all().filter((c) => claimPrefix(c) === prefix);
  const netns = await listVmNetns(prefix);
  const slotNumbers = new Set([
    ...claims.map((c) => c.slot),
    ...netns.map((n) => n.slot),
    ...users.map((u) => u.slot),
    ...(cgroups ? cgroupSlots(cgroups, prefix) : []),
  ]);

  for (const slot of [...slotNumbers].sort((a, b) => a - b)) {
    const held = takeSlot(slots, slot, prefix, opts);
    if (!held) {
      report.skipped.push(slot);
      continue;
    }
    try {
      const user = users.find((u) => u.slot === slot);
      const cgroup = cgroups && new VmCgroup(cgroups, `sandbay/${prefix}${slot}`);
      if (cgroup?.exists()) {
        await cgroup.killAll();
        cgroup.remove();
        report.cgroups.push(cgroup.path);
      }
      const own = [...new Set([...(held.previous?.mounts ?? []), ...(user ? [user.home] : [])])];
      if (user) {
        await killUserProcesses(user.uid);
        const mine = own.filter((m) => mounts.includes(m) && isMounted(m));
        await unmount(...mine);
        report.mounts.push(...mine);
        removeUserTempFiles(user.uid);
        await removeShm(user.uid);
        await removeMqueues(user.uid);
        await unmountRuntimeDir(`/run/user/${user.uid}`);
        await removeTenantTree(`/run/user/${user.uid}`);
        await deleteVmUser(user.user);
        removeEmptyDir(user.home);
        report.users.push(user.user);
      } else {
        const mine = own.filter((m) => mounts.includes(m) && isMounted(m));
        await unmount(...mine);
        report.mounts.push(...mine);
      }
      // Its namespaces (the link goes with the network one) and sshd's per-boot files.
      const vmUser = `${prefix}${slot}`;
      await removeVmNetwork(vmLink(slot, vmUser));
      rmSync(sshdRunDir(globalDir, vmUser), { recursive: true, force: true });
      rmSync(join(globalDir, 'auth', `${slot}.pub`), { force: true });
      if (held.previous) report.claims.push(slot);
      log(`slot ${slot}: ${user ? `user ${user.user} removed` : 'claim removed'}`);
    } finally {
      rmSync(slots.file(slot), { force: true });
    }
  }

  // Mounts no claim lists (their VM's claim is gone: a data dir deleted under a live mount). A
  // claim lists its mounts before they are made, so a mount seen at the start is in its claim.
  const claimed = new Set(slots.all().flatMap((c) => c.mounts));
  const orphans = mounts.filter((m) => !claimed.has(m) && !report.mounts.includes(m) && isMounted(m));
  if (orphans.length > 0) {
    await unmount(...orphans);
    report.mounts.push(...orphans);
  }
  // The machine-wide parts go with the last VM of any driver: the firewall and the unreachable route.
  if (slots.all().length === 0) await removeVmFirewall();
  return report;
}

/**
 * Claims `slot` for the reset (a claim file of this process): free, taken over from a dead owner,
 * or from a live one with `force`; undefined when the slot is not the reset's to take.
 */
function takeSlot(
  slots: SlotRegistry,
  slot: number,
  prefix: string,
  opts: ResetOptions,
): { previous: SlotClaim | undefined } | undefined {
  const mine: SlotClaim = {
    ...currentOwner(),
    slot,
    dataDir: '',
    host: '',
    vm: 'reset',
    mounts: [],
    userPrefix: prefix,
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createExclusive(slots.file(slot), mine)) return { previous: undefined };
    const current = slots.read(slot);
    if (!current) continue; // released meanwhile
    if (claimPrefix(current) !== prefix) return undefined;
    if (ownerAlive(current)) {
      if (!opts.force) return undefined;
      // force: the live driver's VM goes too (its claim is replaced by the reset's).
      replaceFile(slots.file(slot), mine);
      return { previous: current };
    }
    if (opts.abandonedOnly && current.dataDir !== '' && existsSync(current.dataDir)) return undefined;
    const taken = slots.takeStale(current);
    if (taken && createExclusive(slots.file(slot), mine)) return { previous: taken };
  }
  return undefined;
}

/** Slots that have a cgroup under the driver's `sandbay/` parent. */
function cgroupSlots(layout: CgroupLayout, prefix: string): number[] {
  const slots = new Set<number>();
  for (const dir of new VmCgroup(layout, 'sandbay').dirs()) {
    let names: string[] = [];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      // no such hierarchy dir
    }
    for (const name of names) {
      const m = new RegExp(`^${prefix}([1-9][0-9]{0,2})$`).exec(name);
      if (m) slots.add(Number(m[1]));
    }
  }
  return [...slots];
}

/** Removes `dir` only when it is an empty directory (a home mount point), never its content. */
function removeEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, not there, or still a mount point: left as is
  }
}
