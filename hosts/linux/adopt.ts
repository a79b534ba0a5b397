// What a (re)starting host does with what an earlier incarnation left, deterministically:
//
// - A VM record whose slot claim is still ours is adopted. If it was running and every one of its
//   desktop processes is alive (same PID, same program, in the VM's cgroup) and answers (X display,
//   RFB, SSH), it stays running and its processes are tracked by PID; otherwise all of its processes
//   are killed and it is adopted as stopped, its disk kept. One whose cgroup is frozen is paused
//   (whatever its record says: a crash may fall between the freeze and the record): its processes
//   are checked by PID and program only (nothing frozen answers) and it stays paused. If its tmpfs is gone (the machine
//   rebooted), its disk delta is gone too: it gets a fresh disk from its image, stopped.
// - A VM record whose slot now belongs to someone else (or whose user changed) is dropped.
// - A record that cannot be read (a crash mid-create) is removed.
// - A slot claim of ours with no VM record is swept (processes killed, mounts removed) and released.
// - A claim of another driver whose process is gone and whose data dir no longer exists (a test that
//   died) is swept and released; one whose data dir still exists is left for that driver to adopt.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { TINI } from './ns-enter.ts';
import { basename, join } from 'node:path';
import type { VmCgroup } from './cgroups.ts';
import { claimPrefix, ownerAlive } from './claims.ts';
import type { VmEntry } from './vm-entry.ts';
import { ensureUserLower } from './image.ts';
import { isMounted, mountHome, unmount } from './overlay.ts';
import { greets } from './probe.ts';
import { childPids } from './proc.ts';
import type { ProcessTracker } from './runner.ts';
import { publicKeyOfFile } from './sshd.ts';
import { DESKTOP_PROGRAMS, powerOff, type DesktopProcess } from './vm-boot.ts';
import { loadRecords, saveRecord, stoppedRecord, vmPaths, xSocketOf, type VmRecord } from './vm-record.ts';
import { destroyVmFiles, sweepSlot, vmCgroup, vmIsolation, type SetupContext } from './vm-setup.ts';
import { findUser } from './vm-user.ts';
import { XProbe } from './x-probe.ts';

export async function adoptVms(
  ctx: SetupContext,
  tracker: ProcessTracker,
  log: (m: string) => void,
): Promise<VmEntry[]> {
  const entries: VmEntry[] = [];
  for (const { dir, record } of loadRecords(ctx.hostDir)) {
    const entry = await adoptOne(ctx, tracker, log, dir, record);
    if (entry) entries.push(entry);
  }
  const kept = new Set(entries.map((e) => e.record.slot));
  for (const c of ctx.slots.all()) {
    const ours = c.dataDir === ctx.dataDir && c.host === ctx.hostName;
    if (ours && !kept.has(c.slot)) {
      log(`linux host ${ctx.hostName}: releasing slot ${c.slot}, claimed for VM ${c.vm} that never finished`);
      await sweepSlot(ctx, c);
      rmSync(join(ctx.globalDir, 'auth', `${c.slot}.pub`), { force: true });
      ctx.slots.release(c);
    } else if (!ours && claimPrefix(c) === ctx.userPrefix && !ownerAlive(c) && !existsSync(c.dataDir)) {
      const taken = ctx.slots.takeStale(c);
      if (!taken) continue;
      log(`linux host ${ctx.hostName}: sweeping slot ${c.slot} of a dead driver (${c.dataDir})`);
      await sweepSlot(ctx, taken);
      rmSync(join(ctx.globalDir, 'auth', `${c.slot}.pub`), { force: true });
    }
  }
  return entries;
}

async function adoptOne(
  ctx: SetupContext,
  tracker: ProcessTracker,
  log: (m: string) => void,
  dir: string,
  record: VmRecord | undefined,
): Promise<VmEntry | undefined> {
  const say = (m: string) => log(`linux host ${ctx.hostName}: VM ${basename(dir)}: ${m}`);
  if (!record) {
    say('unreadable record (interrupted create); removing it');
    await unmount(join(dir, 'disk'));
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const paths = vmPaths(ctx.hostDir, ctx.globalDir, record);
  const claim = ctx.slots.read(record.slot);
  if (!claim || claim.dataDir !== ctx.dataDir || claim.host !== ctx.hostName || claim.vm !== record.name) {
    say(`slot ${record.slot} is no longer ours; dropping the VM`);
    await unmount(paths.disk);
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const cgroup = vmCgroup(ctx, record.user);
  const user = findUser(record.user);
  if (!user || user.uid !== record.uid) {
    say(`user ${record.user} changed; dropping the VM`);
    await sweepSlot(ctx, claim);
    await destroyVmFiles(ctx, { slot: record.slot, home: record.home, cgroup, paths });
    ctx.slots.release(claim);
    return undefined;
  }
  const entry: VmEntry = {
    record,
    paths,
    cgroup,
    claim: ctx.slots.update({ ...claim, mounts: [record.home, paths.disk, paths.runtimeDir] }),
    procs: {},
    stopping: false,
  };
  cgroup.create();
  cgroup.setLimits({ cpu: record.cpu, memoryGiB: record.memoryGiB, pidsMax: ctx.pidsMax });
  if (!isMounted(paths.disk) || !isMounted(record.home)) {
    say('its disk is gone (machine restarted?); it gets a fresh one from its image');
    await stopAll(ctx, entry);
    await unmount(record.home, paths.disk);
    entry.record.lower = await ensureUserLower(ctx.imagesDir, record.image, record.uid, record.gid);
    await mountHome({
      ...entry.record,
      lower: entry.record.lower,
      disk: paths.disk,
      sizeGiB: record.diskGiB,
    });
  } else if (record.state === 'running') {
    const paused = cgroup.frozen();
    const pids = await liveDesktop(record, cgroup, paused);
    entry.record = { ...entry.record, paused };
    if (pids) {
      for (const [k, pid] of Object.entries(pids) as [DesktopProcess, number][]) {
        const { program, log } = DESKTOP_PROGRAMS[k];
        entry.procs[k] = tracker.adopt(program, pid, join(paths.logs, `${log}.log`));
      }
      say(paused ? 'still running, paused; adopted' : 'still running; adopted');
    } else {
      say('was running but its desktop does not answer; powered off, disk kept');
      await stopAll(ctx, entry);
    }
  }
  // Records of older drivers lack the host public key the guest pins; sshd's own key file has it.
  entry.record.sshHostPublicKey ??= publicKeyOfFile(paths.hostKey);
  saveRecord(paths, entry.record);
  return entry;
}

async function stopAll(ctx: SetupContext, e: VmEntry): Promise<void> {
  await powerOff({
    cgroup: e.cgroup,
    uid: e.record.uid,
    procs: [],
    runtimeDir: e.paths.runtimeDir,
    xTmpDir: e.paths.xTmpDir,
    isolation: vmIsolation(ctx, e.record.slot),
  });
  e.record = stoppedRecord(e.record);
}

/**
 * The PIDs of a running VM's desktop if every process is the right program in its cgroup and answers
 * (a `frozen` one cannot: its processes are enough). A VM of an older driver (no namespace holder, or
 * no cookie kept by the driver) is not adopted: it is powered off, its disk kept.
 */
async function liveDesktop(
  r: VmRecord,
  cgroup: VmCgroup,
  frozen: boolean,
): Promise<Record<DesktopProcess, number> | undefined> {
  const pids = r.pids ?? {};
  const members = new Set(cgroup.pids());
  const runs = (pid: number | undefined, program: string) =>
    pid !== undefined && members.has(pid) && comm(pid) === program;
  for (const [k, { program, inPidNs }] of Object.entries(DESKTOP_PROGRAMS)) {
    const pid = pids[k];
    const live = inPidNs
      ? pid !== undefined && comm(pid) === TINI && runs(childPids(pid)[0], program)
      : runs(pid, program);
    if (!live) return undefined;
  }
  const socket = xSocketOf(r);
  if (!socket || !r.xCookie) return undefined;
  if (frozen) return pids as Record<DesktopProcess, number>;
  try {
    (await XProbe.connect(socket, Buffer.from(r.xCookie, 'hex'))).close();
  } catch {
    return undefined;
  }
  if (!(await greets(r.ip, r.vncPort, 'RFB ')) || !(await greets(r.ip, r.sshPort, 'SSH-2.0-')))
    return undefined;
  return pids as Record<DesktopProcess, number>;
}

function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
