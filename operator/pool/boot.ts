// Booting claimed VMs. A warm claim (the VM runs at the asked size on the asked image) only needs
// marking occupied. Anything else is a cold boot: re-clone from the image (a restore: the snapshot's
// base, then the delta applied; a fork: the source's disk copied, fork.ts), or stop and resize; then
// start, once the VMs running on the Mac
// leave room (behavior rule 6: the pool stopped the warm VMs aside first). Failures are reported on
// the VM's Booted condition with the code the sandbox fails with.
import type { Snapshot, VM } from '../../crds/index.ts';
import { DriverError } from '../../hosts/driver.ts';
import { findCondition, ConditionTypes, Reasons, type SandboxFailureCode } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import { isUnreachable } from '../mini/hosts.ts';
import { BootFailure } from './boot-failure.ts';
import { forkDisk, forkSource } from './fork.ts';
import type { HostView } from './host-view.ts';
import { bootedCondition, vmPhase, writeVmStatus } from './vm-status.ts';

/**
 * A cold boot that waits for room on its Mac: the rest of the pool pass (stopping aside, re-cloning a
 * released VM still running at its sandbox's size, finishing a clone a crash cut short) is what makes
 * it, so the pass goes on and the boot is tried again after it.
 */
export class WaitingForRoom extends Error {}

/** A boot that will go once room is made: this pass's later steps, or VMs being stopped aside. */
export function isRoomWait(err: unknown): boolean {
  return err instanceof WaitingForRoom || (err instanceof DriverError && err.code === 'capacity');
}

/** Claimed VMs whose boot for the current claim has neither finished nor failed. */
export function pendingBoots(vms: VM[]): VM[] {
  return vms.filter((vm) => {
    if (!vm.spec.sandbox || vm.metadata.deletionTimestamp || vmPhase(vm) === 'down') return false;
    if (vm.status?.sandbox === vm.spec.sandbox) return false;
    return findCondition(vm.status?.conditions, ConditionTypes.Booted)?.status !== 'False';
  });
}

export async function bootClaimed(ctx: OperatorContext, vm: VM, view: HostView): Promise<void> {
  const name = vm.metadata.name;
  const onHost = view.get(name);
  const size = { cpu: vm.spec.cpu, memoryGiB: vm.spec.memoryGiB };
  const warm =
    onHost?.state === 'running' &&
    onHost.cpu === size.cpu &&
    onHost.memoryGiB === size.memoryGiB &&
    onHost.image === vm.spec.image &&
    !vm.spec.snapshot &&
    !vm.spec.fork;
  if (warm) {
    await markBooted(ctx, vm, onHost.ip ?? vm.status?.vmIp);
    return;
  }
  // From here the VM is the sandbox's: occupied, and not warm to anyone else.
  let current = await writeVmStatus(
    ctx,
    vm,
    claimEvent(vm),
    { phase: 'occupied', vmName: name, ...size },
    bootedCondition('Unknown', Reasons.Booted, 'booting'),
    false,
  );
  try {
    await coldBoot(ctx, current, view);
    current = ctx.informers.vms.get(name) ?? current;
    await markBooted(ctx, current, view.get(name)?.ip);
  } catch (err) {
    if (!(err instanceof BootFailure)) throw err;
    ctx.logger.warn({ vm: name, sandbox: vm.spec.sandbox, code: err.code, err: err.message }, 'boot failed');
    await writeVmStatus(
      ctx,
      ctx.informers.vms.get(name) ?? current,
      undefined,
      { ...current.status, vmName: name },
      bootedCondition('False', err.code, err.message),
    );
  }
}

/** Warm or stopped VMs move by `claim`; one already occupied (a boot resumed) stays. */
function claimEvent(vm: VM): 'claim' | undefined {
  const phase = vmPhase(vm);
  return phase === 'warm' || phase === 'stopped' ? 'claim' : undefined;
}

async function markBooted(ctx: OperatorContext, vm: VM, vmIp: string | undefined): Promise<void> {
  await writeVmStatus(
    ctx,
    vm,
    claimEvent(vm),
    {
      phase: 'occupied',
      vmName: vm.metadata.name,
      sandbox: vm.spec.sandbox!,
      cpu: vm.spec.cpu,
      memoryGiB: vm.spec.memoryGiB,
      ...(vmIp !== undefined && { vmIp }),
    },
    bootedCondition('True', Reasons.Booted),
    false,
  );
}

async function coldBoot(ctx: OperatorContext, vm: VM, view: HostView): Promise<void> {
  const name = vm.metadata.name;
  const size = { cpu: vm.spec.cpu, memoryGiB: vm.spec.memoryGiB };
  const onHost = view.get(name);
  const restore = vm.spec.snapshot !== undefined;
  const source = vm.spec.fork !== undefined ? forkSource(ctx, vm) : undefined;
  const artifact = restore ? await snapshotArtifact(ctx, vm) : undefined;
  await guard('boot_failed', () => view.stop(name));
  if (source) {
    await forkDisk(ctx, view, vm.spec.mini, { name, image: vm.spec.image, ...size }, source);
  } else if (!onHost || onHost.image !== vm.spec.image || restore) {
    await guard('boot_failed', () => view.clone({ name, image: vm.spec.image, ...size }));
    if (artifact) await applyDelta(ctx, view, name, artifact);
  } else {
    await guard('boot_failed', () => view.resize(name, size));
  }
  if (!view.roomFor(name, size)) {
    // The warm VMs beside it are stopped aside, or re-cloned, by this pass; the next one boots it.
    throw new WaitingForRoom(`VM ${name}: waiting for room to run ${size.cpu} vCPU / ${size.memoryGiB} GiB`);
  }
  const startup = restore ? 'snapshot_startup_failed' : source ? 'fork_failed' : 'boot_failed';
  await guard(startup, () => view.start(name));
}

/** The snapshot a restore applies, checked complete and intact before it is pushed to the Mac. */
async function snapshotArtifact(ctx: OperatorContext, vm: VM): Promise<string> {
  const ns = vm.spec.sandbox!.split('/')[0]!;
  const snapshot = ctx.informers.snapshots.get(`${ns}/${vm.spec.snapshot}`) as Snapshot | undefined;
  const artifact = snapshot?.status?.artifact;
  if (!snapshot || snapshot.status?.phase !== 'ready' || !artifact) {
    throw new BootFailure('snapshot_transfer_failed', `snapshot ${vm.spec.snapshot} is not available`);
  }
  if (!(await ctx.blobs.verify(artifact).catch(() => false))) {
    throw new BootFailure(
      'snapshot_transfer_failed',
      `snapshot ${vm.spec.snapshot}: the stored artifact is missing or does not match its digest`,
    );
  }
  return ctx.blobs.path(artifact.location);
}

async function applyDelta(ctx: OperatorContext, view: HostView, name: string, file: string): Promise<void> {
  try {
    await view.host.importDelta(name, file);
  } catch (err) {
    if (isUnreachable(err)) {
      throw new BootFailure(
        'snapshot_transfer_failed',
        `pushing the snapshot failed: ${(err as Error).message}`,
      );
    }
    throw new BootFailure('snapshot_apply_failed', `applying the snapshot failed: ${(err as Error).message}`);
  }
  ctx.logger.debug({ vm: name }, 'snapshot applied');
}

/** Turns a driver failure of a boot step into the sandbox's failure code; outages still propagate. */
async function guard<T>(code: SandboxFailureCode, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (isUnreachable(err) || !(err instanceof DriverError)) throw err;
    if (err.code === 'capacity') throw err; // room is being made: retry
    throw new BootFailure(code, err.message);
  }
}
