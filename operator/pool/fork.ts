// A fork's disk: the source sandbox's disk as it is when the fork's VM is made. On the source's own
// Mac the driver copies it there (Host.forkVm: the linux driver copies the overlay's upper dir with
// the source frozen, tart clones it); a fork the scheduler placed on another Mac gets the source's
// disk delta exported (a point in time too) and applied onto a fresh clone of the same image, as a
// snapshot restore is, through a temporary file in the blob store. Either way only the disk is
// copied: the fork boots cold (docs/api.md, Fork).
import { rm } from 'node:fs/promises';
import type { VM } from '../../crds/index.ts';
import type { VmCreateSpec } from '../../hosts/driver.ts';
import type { OperatorContext } from '../context.ts';
import { BootFailure } from './boot-failure.ts';
import type { HostView } from './host-view.ts';

export interface ForkSource {
  /** The source's VM (its name on its Mac). */
  vm: string;
  /** The Mini it runs on. */
  mini: string;
}

/**
 * The running (or paused) VM of the sandbox `vm.spec.fork` names, or the sandbox's failure: a source
 * deleted, failed or moved since its fork was placed has no disk to copy.
 */
export function forkSource(ctx: OperatorContext, vm: VM): ForkSource {
  const key = vm.spec.fork!;
  const source = ctx.informers.sandboxes.get(key);
  const phase = source?.status?.phase;
  const sourceVm = source?.status?.vm ? ctx.informers.vms.get(source.status.vm) : undefined;
  if (
    !source ||
    source.metadata.deletionTimestamp ||
    (phase !== 'running' && phase !== 'paused') ||
    !sourceVm ||
    sourceVm.spec.sandbox !== key
  ) {
    throw new BootFailure(
      'fork_source_unavailable',
      `sandbox ${key.split('/')[1]} is not running: its disk cannot be copied`,
    );
  }
  return { vm: sourceVm.metadata.name, mini: sourceVm.spec.mini };
}

/**
 * Makes `spec.name` on `mini` (the Mac of `view`) with the source's disk; a failure is the fork's
 * `fork_failed` (also an outage of the source's Mac: that is not this Mac's to be marked down for).
 */
export async function forkDisk(
  ctx: OperatorContext,
  view: HostView,
  mini: string,
  spec: VmCreateSpec,
  source: ForkSource,
): Promise<void> {
  const started = performance.now();
  const sameMac = source.mini === mini;
  try {
    if (sameMac) await view.fork(source.vm, spec);
    else await moveDelta(ctx, view, spec, source);
  } catch (err) {
    throw new BootFailure('fork_failed', `copying the disk of ${source.vm}: ${(err as Error).message}`);
  }
  ctx.logger.info(
    { vm: spec.name, source: source.vm, sameMac, ms: Math.round(performance.now() - started) },
    'fork disk copied',
  );
}

/** From another Mac: the source's delta, exported there and applied onto a fresh clone here. */
async function moveDelta(
  ctx: OperatorContext,
  view: HostView,
  spec: VmCreateSpec,
  source: ForkSource,
): Promise<void> {
  const from = ctx.informers.minis.get(source.mini);
  if (!from) throw new Error(`the Mac ${source.mini} of the source is gone`);
  const tmp = await ctx.blobs.tempPath('.delta');
  try {
    await ctx.hosts.host(from).exportDelta(source.vm, tmp);
    await view.clone(spec);
    await view.host.importDelta(spec.name, tmp);
  } finally {
    await rm(tmp, { force: true });
  }
}
