// Keeping the store and a host in agreement before planning: VM resources being deleted are
// deleted on the host, host VMs nobody owns are removed (leaks after a crash), and VMs the host
// lost are cloned again (unclaimed) or reported down (claimed: their sandbox fails).
import type { Sandbox, VM } from '../../crds/index.ts';
import { Finalizers, SANDBOX_FAILURES } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import { BOOT_ANNOTATION } from '../sandbox/place.ts';
import { releaseVm } from '../sandbox/release.ts';
import type { HostView } from './host-view.ts';
import { bootedCondition, vmPhase, writeVmStatus } from './vm-status.ts';

export async function dropFinalizer(ctx: OperatorContext, vm: VM): Promise<void> {
  const finalizers = vm.metadata.finalizers ?? [];
  if (!finalizers.includes(Finalizers.deleteHostVm)) return;
  await ctx.client.update<VM>({
    ...vm,
    metadata: { ...vm.metadata, finalizers: finalizers.filter((f) => f !== Finalizers.deleteHostVm) },
  });
}

/** Deletes on the host every VM whose resource is being deleted, then lets the resource go. */
export async function finishDeletions(
  ctx: OperatorContext,
  vms: VM[],
  view: HostView | undefined,
): Promise<void> {
  for (const vm of vms) {
    if (!vm.metadata.deletionTimestamp) continue;
    if (view?.get(vm.metadata.name)) await view.remove(vm.metadata.name);
    await dropFinalizer(ctx, vm);
  }
}

/** Removes host VMs no live VM resource names: left behind by a crash between host and store. */
export async function collectGarbage(ctx: OperatorContext, live: VM[], view: HostView): Promise<void> {
  const known = new Set(live.map((vm) => vm.metadata.name));
  for (const name of view.names()) {
    if (known.has(name)) continue;
    // Deleting a VM is not undoable: ask the store itself, not only the cache, before calling it a leak.
    if (await ctx.store.get({ kind: 'VM', name })) continue;
    ctx.logger.info({ vm: name }, 'deleting a host VM no resource owns');
    await view.remove(name);
  }
}

/**
 * VMs the store has but the host lost (a host restart, a VM removed by hand, its process killed): an
 * unclaimed one is cloned again, a claimed one goes down and its sandbox fails with `vm_lost`. A VM
 * the host still has on disk but no longer runs is lost too when it should run: a warm one, or one
 * booted for its claim (a Mac that rebooted keeps its VMs, stopped). A warm claim counts as booted
 * from the claim on, marked by the pool or not yet: its sandbox already runs on it.
 */
export async function noticeLostVms(ctx: OperatorContext, live: VM[], view: HostView): Promise<VM[]> {
  const out: VM[] = [];
  for (const vm of live) {
    const phase = vmPhase(vm);
    const onHost = view.get(vm.metadata.name);
    const shouldRun =
      phase === 'warm' ||
      (phase === 'occupied' && vm.status?.sandbox !== undefined && vm.status.sandbox === vm.spec.sandbox);
    const kept = onHost !== undefined && (onHost.state === 'running' || !shouldRun);
    if (kept || phase === 'cloning' || phase === 'down') {
      out.push(vm);
      continue;
    }
    const claimed = vm.spec.sandbox !== undefined || phase === 'occupied';
    // A warm claim is booted from the claim on: its sandbox already runs on it.
    const warmClaim = isWarmClaim(vm);
    const booted = vm.status?.sandbox !== undefined || warmClaim;
    if (claimed && (booted || phase === 'occupied')) {
      // A warm claim the pool has not marked yet is marked occupied now (warm --claim-->), then lost.
      const current: VM = warmClaim
        ? { ...vm, status: { ...vm.status, phase: 'occupied', sandbox: vm.spec.sandbox! } }
        : vm;
      out.push(
        await writeVmStatus(
          ctx,
          current,
          'lost',
          { ...current.status },
          bootedCondition('False', 'vm_lost', SANDBOX_FAILURES.vm_lost.summary),
        ),
      );
    } else if (!claimed) {
      out.push(await writeVmStatus(ctx, vm, 'lost', { vmName: vm.metadata.name }, undefined, false));
    } else {
      out.push(vm); // claimed but not booted yet: the boot clones it
    }
  }
  return out;
}

/** A warm VM claimed as it runs: its sandbox runs on it from the claim on, before the pool marks it. */
function isWarmClaim(vm: VM): boolean {
  return (
    vm.spec.sandbox !== undefined &&
    vm.status?.phase === 'warm' &&
    vm.metadata.annotations?.[BOOT_ANNOTATION] === 'warm'
  );
}

/**
 * Claims nobody holds: a claim whose sandbox no longer exists, or whose sandbox runs on another VM
 * (two operator processes placing one sandbox at once). Such a VM is released like any other, so
 * it is re-cloned and returns to the pool instead of leaking.
 */
export async function releaseOrphanClaims(ctx: OperatorContext, live: VM[]): Promise<void> {
  for (const vm of live) {
    const claim = vm.spec.sandbox;
    if (!claim) continue;
    const [namespace, name] = claim.split('/');
    const cached = ctx.informers.sandboxes.get(claim);
    const sandbox =
      cached ?? (await ctx.store.get<Sandbox>({ kind: 'Sandbox', namespace: namespace!, name: name! }));
    const elsewhere = sandbox?.status?.vm !== undefined && sandbox.status.vm !== vm.metadata.name;
    if (sandbox && !elsewhere) continue;
    ctx.logger.warn({ vm: vm.metadata.name, sandbox: claim }, 'releasing a claim its sandbox does not hold');
    await releaseVm(ctx, claim, vm);
  }
}
