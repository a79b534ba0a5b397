// The pool reconciler, one key per Mini: it owns every host operation on the Mini's VMs, so they
// are serialized per Mac and the running VMs can be checked against the Mac before each start.
//
// One pass: read the host (`listVms`), reconcile store and host (deletions, leaks, lost VMs), plan
// with the scheduler's pure `poolPlan`, then apply in the order that keeps behavior rule 6 true:
// discard and stop aside first, then boot claimed VMs, then clone, then return stopped VMs to the
// pool. A host that does not answer is probed by the Mini reconciler, which marks it down; while it
// is down its VMs are down and nothing is planned on it.
import {
  DEFAULT_VM_LAYOUT,
  macProfile,
  macShape,
  warmProfile,
  type Mini,
  type VM,
} from '../../crds/index.ts';
import { DriverError } from '../../hosts/driver.ts';
import { holdsPlace, miniView, poolPlan, sandboxUse, type SandboxUse } from '../scheduler/index.ts';
import { Indexes, type OperatorContext } from '../context.ts';
import { isUnreachable } from '../mini/hosts.ts';
import type { ReconcileFn, ReconcileResult } from '../runtime/index.ts';
import { bootClaimed, isRoomWait, pendingBoots } from './boot.ts';
import {
  collectGarbage,
  dropFinalizer,
  finishDeletions,
  noticeLostVms,
  releaseOrphanClaims,
} from './cleanup.ts';
import { clone, finishClone, finishStopsAside, returnToPool, stopAside } from './clone.ts';
import { HostView } from './host-view.ts';
import { reportRoom } from './room.ts';
import { vmPhase, writeVmStatus } from './vm-status.ts';

export function poolReconciler(ctx: OperatorContext): ReconcileFn {
  return async (name) => {
    const mini = ctx.informers.minis.get(name);
    if (!mini) return;
    const phase = mini.status?.phase;
    if (phase === 'down') return reconcileDown(ctx, vmsOf(ctx, name));
    if (phase === undefined || phase === 'pending' || mini.metadata.deletionTimestamp) return;
    try {
      return await reconcileUp(ctx, mini);
    } catch (err) {
      // Let the Mini reconciler probe now; it marks the host down after consecutive failures.
      if (isUnreachable(err)) ctx.enqueue.mini(name);
      throw err;
    }
  };
}

function vmsOf(ctx: OperatorContext, mini: string): VM[] {
  return ctx.informers.vms.byIndex(Indexes.vmByMini, mini);
}

function sandboxesOn(ctx: OperatorContext, mini: string): SandboxUse[] {
  return ctx.informers.sandboxes
    .byIndex(Indexes.sandboxByMini, mini)
    .flatMap((sb) => (holdsPlace(sb) ? (sandboxUse(sb) ?? []) : []));
}

/** The host is down: its VMs are down; deletions complete without it (a leak is collected on return). */
async function reconcileDown(ctx: OperatorContext, vms: VM[]): Promise<void> {
  for (const vm of vms) {
    if (vm.metadata.deletionTimestamp) await dropFinalizer(ctx, vm);
    else if (vmPhase(vm) !== 'down') await writeVmStatus(ctx, vm, 'hostDown', { ...vm.status });
  }
}

async function reconcileUp(ctx: OperatorContext, mini: Mini): Promise<ReconcileResult | void> {
  const name = mini.metadata.name;
  const host = ctx.hosts.host(mini);
  const profile = macProfile(macShape(mini.spec));
  const view = new HostView(host, { cpu: profile.cores, memoryGiB: profile.memoryGiB }, await host.listVms());

  await finishDeletions(ctx, vmsOf(ctx, name), view);
  let live = vmsOf(ctx, name).filter((vm) => !vm.metadata.deletionTimestamp);
  await collectGarbage(ctx, live, view);
  live = await noticeLostVms(ctx, live, view);
  await releaseOrphanClaims(ctx, live);
  live = vmsOf(ctx, name).filter((vm) => !vm.metadata.deletionTimestamp);

  const layout = mini.status?.layout ?? mini.spec.defaultLayout ?? DEFAULT_VM_LAYOUT;
  const plan = poolPlan(miniView(mini), live, sandboxesOn(ctx, name), {
    targetProfile: warmProfile(macShape(mini.spec), layout),
  });
  ctx.logger.debug(
    {
      mini: name,
      discard: plan.discard,
      stopAside: plan.stopAside,
      clone: plan.clone.map(
        (c) => `${c.slot}:${c.reason}${c.replaces ? `:${c.replaces}` : ''}:${c.run ? 'run' : 'aside'}`,
      ),
      returnToPool: plan.returnToPool,
    },
    'pool plan',
  );
  if (plan.profileChanged) {
    await ctx.client.patch<Mini>(
      { kind: 'Mini', name },
      { status: { warmProfile: plan.profile } },
      { subresource: 'status', resourceVersion: mini.metadata.resourceVersion! },
    );
  }

  for (const vmName of plan.discard) {
    const vm = ctx.informers.vms.get(vmName);
    if (!vm || vm.spec.sandbox) continue;
    const deleting = await ctx.client.delete<VM>({ kind: 'VM', name: vmName });
    if (deleting) await finishDeletions(ctx, [deleting], view);
  }
  for (const vmName of plan.stopAside) {
    const vm = ctx.informers.vms.get(vmName);
    if (vm) await stopAside(ctx, vm, view);
  }
  await finishStopsAside(live, view);
  // A boot that waits for room does not end the pass: the steps below may be what makes the room (a
  // released VM still running at its sandbox's size is re-cloned there; a crash left one half-cloned).
  // Ending the pass here waited forever for room that only the rest of the pass could free.
  // A pool VM the Mac itself refuses to start (a VM sandbay did not start holds a licence slot)
  // waits the same way: a clone stays cloning, so it is never claimed as a cold boot that could not
  // start either.
  let waiting: unknown;
  let refused: DriverError | undefined;
  const orWait = async (step: () => Promise<void>) => {
    try {
      await step();
    } catch (err) {
      if (!isRoomWait(err)) throw err;
      waiting ??= err;
      if (err instanceof DriverError) refused ??= err;
    }
  };
  for (const vm of pendingBoots(vmsOf(ctx, name))) {
    await orWait(() => bootClaimed(ctx, ctx.informers.vms.get(vm.metadata.name) ?? vm, view));
  }
  const recloned = new Set<string>();
  for (const action of plan.clone) {
    await orWait(() => clone(ctx, mini, action, view));
    if (action.replaces) recloned.add(action.replaces);
  }
  // Clones a crash interrupted (phase cloning, not re-planned): redo them.
  for (const d of plan.desired) {
    const vm = d.vm ? ctx.informers.vms.get(d.vm) : undefined;
    if (vm && !recloned.has(vm.metadata.name) && !vm.spec.sandbox && vmPhase(vm) === 'cloning') {
      await orWait(() => finishClone(ctx, vm, d.run, view));
    }
  }
  for (const vmName of plan.returnToPool) {
    const vm = ctx.informers.vms.get(vmName);
    if (vm) await orWait(() => returnToPool(ctx, vm, view));
  }
  await reportRoom(ctx, name, refused);
  if (waiting) throw waiting; // tried again with backoff (and at once on the VMs' own changes)
  return undefined;
}
