// Creating and destroying what a VM consists of besides its processes: the slot (user, address),
// the cgroup with its limits, the overlay home on its own tmpfs, the keys and the record.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DriverError, type VmCreateSpec } from '../driver.ts';
import { VmCgroup, type CgroupLayout } from './cgroups.ts';
import { claimPrefix, ownerAlive, type SlotClaim, type SlotRegistry } from './claims.ts';
import { ensureUserLower } from './image.ts';
import { mountHome, unmount } from './overlay.ts';
import { generateSshKey } from './sshd.ts';
import { powerOff, type VmIsolation } from './vm-boot.ts';
import { removeVmNetwork, vmLink } from './vm-network.ts';
import { saveRecord, vmPaths, type VmPaths, type VmRecord } from './vm-record.ts';
import { ensureVmUser, findUser } from './vm-user.ts';

/** Machine and driver settings every VM of a host shares. */
export interface SetupContext {
  dataDir: string;
  hostName: string;
  hostDir: string;
  globalDir: string;
  imagesDir: string;
  cgroups: CgroupLayout;
  slots: SlotRegistry;
  userPrefix: string;
  homeRoot: string;
  sshPort: number;
  vncPort: number;
  pidsMax: number;
  /** VMs may get outbound NAT, as their egress policy says (an operator's setting; egress.ts). */
  outboundNat: boolean;
}

export const slotUser = (ctx: SetupContext, slot: number) => `${ctx.userPrefix}${slot}`;
export const vmCgroup = (ctx: SetupContext, user: string) => new VmCgroup(ctx.cgroups, `sandbay/${user}`);

/** The namespaces of the VM on `slot` (made at boot, removed at power-off). */
export function vmIsolation(ctx: SetupContext, slot: number): VmIsolation {
  const user = slotUser(ctx, slot);
  return { link: vmLink(slot, user), user, globalDir: ctx.globalDir };
}

/** A VNC password: x11vnc uses at most 8 characters. */
function vncPassword(): string {
  return randomBytes(6).toString('base64url').slice(0, 8);
}

/** A free machine-wide slot for `vm`, or one taken back from a dead driver of another data dir. */
export async function claimSlot(ctx: SetupContext, vm: string): Promise<SlotClaim> {
  const what = { dataDir: ctx.dataDir, host: ctx.hostName, vm, mounts: [], userPrefix: ctx.userPrefix };
  const free = ctx.slots.claim(what);
  if (free) return free;
  for (const stale of ctx.slots.all()) {
    // Our own dead claims were settled when this host started; a live owner keeps its slot; a slot
    // of another user prefix is swept by a driver of that prefix (sweepSlot knows only this one's users).
    if (ownerAlive(stale) || (stale.dataDir === ctx.dataDir && stale.host === ctx.hostName)) continue;
    if (claimPrefix(stale) !== ctx.userPrefix) continue;
    const taken = ctx.slots.takeStale(stale);
    if (!taken) continue;
    await sweepSlot(ctx, taken);
    rmSync(join(ctx.globalDir, 'auth', `${taken.slot}.pub`), { force: true });
    const claim = ctx.slots.claim(what);
    if (claim) return claim;
  }
  throw new DriverError('capacity', `no free VM slot on this machine (all ${ctx.slots.maxSlot} in use)`);
}

/** Sets up a fresh, stopped VM on a claimed slot. On failure, undoes what it did (not the claim). */
export async function provisionVm(
  ctx: SetupContext,
  spec: VmCreateSpec & { diskGiB: number },
  claim: SlotClaim,
): Promise<{ record: VmRecord; paths: VmPaths; cgroup: VmCgroup; claim: SlotClaim }> {
  const user = slotUser(ctx, claim.slot);
  const home = join(ctx.homeRoot, user);
  const u = await ensureVmUser(user, home);
  const cgroup = vmCgroup(ctx, user);
  // Whatever a crashed predecessor on this slot left: processes, mounts.
  await sweepSlot(ctx, { ...claim, mounts: [home] });
  const paths = vmPaths(ctx.hostDir, ctx.globalDir, { name: spec.name, slot: claim.slot, uid: u.uid });
  claim = ctx.slots.update({ ...claim, mounts: [home, paths.disk, paths.runtimeDir] });
  try {
    cgroup.create();
    cgroup.setLimits({ cpu: spec.cpu, memoryGiB: spec.memoryGiB, pidsMax: ctx.pidsMax });
    const lower = await ensureUserLower(ctx.imagesDir, spec.image, u.uid, u.gid);
    mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
    await mountHome({ lower, disk: paths.disk, home, sizeGiB: spec.diskGiB, uid: u.uid, gid: u.gid });
    const clientKey = generateSshKey(`${user}@sandbay`);
    const hostKey = generateSshKey(`host-${user}@sandbay`);
    writeFileSync(paths.hostKey, hostKey.privateKey, { mode: 0o600 });
    mkdirSync(join(ctx.globalDir, 'auth'), { recursive: true, mode: 0o711 });
    writeFileSync(paths.authorizedKeys, `${clientKey.publicKey}\n`, { mode: 0o644 });
    const record: VmRecord = {
      name: spec.name,
      image: spec.image,
      cpu: spec.cpu,
      memoryGiB: spec.memoryGiB,
      diskGiB: spec.diskGiB,
      slot: claim.slot,
      user,
      uid: u.uid,
      gid: u.gid,
      home,
      ip: vmLink(claim.slot, user).vmIp,
      lower,
      vncPort: ctx.vncPort,
      vncPassword: vncPassword(),
      sshPort: ctx.sshPort,
      sshPrivateKey: clientKey.privateKey,
      sshPublicKey: clientKey.publicKey,
      sshHostPublicKey: hostKey.publicKey,
      state: 'stopped',
      createdAt: new Date().toISOString(),
    };
    saveRecord(paths, record);
    return { record, paths, cgroup, claim };
  } catch (e) {
    await destroyVmFiles(ctx, { slot: claim.slot, home, cgroup, paths });
    throw e;
  }
}

/**
 * Makes a slot clean for a new VM or after a dead owner: no process of its user (cgroup, then uid),
 * nothing mounted where its VM had mounts. Safe to call on a clean slot.
 */
export async function sweepSlot(ctx: SetupContext, claim: SlotClaim): Promise<void> {
  const user = slotUser(ctx, claim.slot);
  const u = findUser(user);
  const cgroup = vmCgroup(ctx, user);
  const isolation = vmIsolation(ctx, claim.slot);
  if (u) await powerOff({ cgroup, uid: u.uid, procs: [], runtimeDir: `/run/user/${u.uid}`, isolation });
  else {
    await cgroup.killAll();
    await removeVmNetwork(isolation.link);
  }
  await unmount(...claim.mounts);
}

/** Removes a VM's mounts, cgroup, keys and files (its processes must be gone). */
export async function destroyVmFiles(
  ctx: SetupContext,
  vm: { slot: number; home: string; cgroup: VmCgroup; paths: VmPaths },
): Promise<void> {
  await unmount(vm.home, vm.paths.disk);
  vm.cgroup.remove();
  rmSync(vm.paths.authorizedKeys, { force: true });
  rmSync(vm.paths.dir, { recursive: true, force: true });
}
