// The pool's own VMs: fresh clones for empty slots, re-clones of dirty, down or mis-sized VMs
// (under the same name, as the spec's slot table shows a slot going occupied → cloning → warm),
// warm VMs stopped aside when the sandboxes leave too little room, and their return.
import { randomBytes } from 'node:crypto';
import { API_VERSION, type Mini, type VM } from '../../crds/index.ts';
import type { CloneAction } from '../scheduler/index.ts';
import { Finalizers } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import type { HostView } from './host-view.ts';
import type { VmEvent } from './states.ts';
import { vmPhase, writeVmStatus } from './vm-status.ts';

/** A fresh VM resource name: the Mini, the slot, and a random suffix (unique on the host). */
export function newVmName(mini: string, slot: number): string {
  return `${mini.slice(0, 40)}-s${slot}-${randomBytes(3).toString('hex')}`;
}

/** The event that takes a VM in `phase` back to cloning. */
function recloneEvent(vm: VM): VmEvent | undefined {
  switch (vmPhase(vm)) {
    case 'occupied':
      return 'release';
    case 'down':
      return 'hostBack';
    case 'warm':
    case 'stopped':
      return 'reprofile';
    default:
      return undefined;
  }
}

/** Executes one clone action of the plan; resolves with the VM once warm or stopped aside. */
export async function clone(
  ctx: OperatorContext,
  mini: Mini,
  action: CloneAction,
  view: HostView,
): Promise<void> {
  const spec = { cpu: action.cpu, memoryGiB: action.memoryGiB, image: action.image, diskGiB: action.diskGiB };
  let vm: VM;
  if (action.replaces) {
    const existing = ctx.informers.vms.get(action.replaces);
    if (!existing || existing.spec.sandbox) return; // claimed meanwhile: the next pass re-plans
    // Not claimable from here on (status first), then the spec takes the slot's size again.
    vm = await writeVmStatus(
      ctx,
      existing,
      recloneEvent(existing),
      { phase: 'cloning', vmName: existing.metadata.name },
      undefined,
      false,
    );
    const { sandbox: _s, snapshot: _snap, ...rest } = vm.spec;
    const wanted = { ...rest, ...spec, slot: action.slot };
    if (JSON.stringify(wanted) !== JSON.stringify(vm.spec))
      vm = await ctx.client.update<VM>({ ...vm, spec: wanted });
  } else {
    const name = newVmName(mini.metadata.name, action.slot);
    const created = await ctx.client.create<VM>({
      apiVersion: API_VERSION,
      kind: 'VM',
      metadata: {
        name,
        finalizers: [Finalizers.deleteHostVm],
        labels: { 'sandbay.io/mini': mini.metadata.name },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'Mini',
            name: mini.metadata.name,
            uid: mini.metadata.uid!,
            controller: true,
          },
        ],
      },
      spec: { mini: mini.metadata.name, slot: action.slot, ...spec },
    });
    vm = await writeVmStatus(ctx, created, undefined, { phase: 'cloning', vmName: name }, undefined, false);
  }
  ctx.logger.debug({ vm: vm.metadata.name, slot: action.slot, reason: action.reason }, 'cloning');
  await finishClone(ctx, vm, action.run, view);
}

/**
 * Clones the VM on the host and boots it or keeps it aside. Always a fresh clone: a host VM of
 * that name may be the dirty one being replaced, or an interrupted clone; neither is reused.
 */
export async function finishClone(ctx: OperatorContext, vm: VM, run: boolean, view: HostView): Promise<void> {
  const name = vm.metadata.name;
  const size = { cpu: vm.spec.cpu, memoryGiB: vm.spec.memoryGiB };
  await view.clone({ name, image: vm.spec.image, ...size });
  const current = ctx.informers.vms.get(name) ?? vm;
  if (run && view.roomFor(name, size)) {
    const info = await view.start(name);
    await writeVmStatus(
      ctx,
      current,
      'clonedRun',
      { vmName: name, ...size, ...(info.ip !== undefined && { vmIp: info.ip }) },
      undefined,
      false,
    );
  } else {
    await writeVmStatus(ctx, current, 'clonedAside', { vmName: name, ...size }, undefined, false);
  }
}

/** Stops a warm VM and keeps it aside. The status moves first, so no claim takes it as warm meanwhile. */
export async function stopAside(ctx: OperatorContext, vm: VM, view: HostView): Promise<void> {
  if (vm.spec.sandbox) return;
  if (vmPhase(vm) === 'cloning') {
    await finishClone(ctx, vm, false, view);
    return;
  }
  const name = vm.metadata.name;
  const stopped = await writeVmStatus(ctx, vm, 'stopAside', { ...vm.status, vmName: name });
  await view.stop(name);
  ctx.logger.debug({ vm: name, rv: stopped.metadata.resourceVersion }, 'stopped aside');
}

/**
 * Pool VMs whose status says stopped while their Mac still runs them: a stop aside a crash cut short
 * (its status moves first), or a return to the pool whose start ran and whose status was never
 * written. The plan counts them as holding no room, so nothing else would ever stop them, and a boot
 * waiting for that room waited forever (seen once in the crash test's SIGKILL storm). The Mac is made
 * to match: they are stopped, and the pass's return to the pool starts them again if there is room.
 */
export async function finishStopsAside(vms: VM[], view: HostView): Promise<void> {
  for (const vm of vms) {
    const name = vm.metadata.name;
    if (!vm.spec.sandbox && vmPhase(vm) === 'stopped' && view.get(name)?.state === 'running')
      await view.stop(name);
  }
}

/** Boots a stopped-aside VM back into the warm pool once there is room. */
export async function returnToPool(ctx: OperatorContext, vm: VM, view: HostView): Promise<void> {
  if (vm.spec.sandbox || vmPhase(vm) !== 'stopped') return;
  const name = vm.metadata.name;
  const size = { cpu: vm.spec.cpu, memoryGiB: vm.spec.memoryGiB };
  if (!view.get(name)) {
    await finishClone(ctx, vm, true, view);
    return;
  }
  if (!view.roomFor(name, size)) return;
  const info = await view.start(name);
  await writeVmStatus(ctx, vm, 'returnToPool', {
    ...vm.status,
    vmName: name,
    ...(info.ip !== undefined && { vmIp: info.ip }),
  });
}
