// The snapshot reconciler: captures a running sandbox's disk delta (`exportDelta` on its Mac) into
// the blob store under the snapshot's version, recording the base image and disk size the delta
// applies on (a restore uses that base, whatever the Mac's warm pool runs now). Deleting a Snapshot
// removes its artifact first (finalizer). A restore itself is a cold boot (operator/pool/boot.ts).
import { rm } from 'node:fs/promises';
import type { Snapshot, SnapshotStatus } from '../../crds/index.ts';
import { Finalizers, SNAPSHOT_FAILURES } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import type { ReconcileFn } from '../runtime/index.ts';

/**
 * Where a snapshot's artifact lives: fixed by its name, so a capture re-run after a crash replaces
 * the same blob, and a blob put just before a crash (before the status named it) is still found.
 */
function artifactLocation(snap: Snapshot): string {
  return `snapshots/${snap.metadata.namespace!}/${snap.metadata.name}.delta`;
}

export function snapshotReconciler(ctx: OperatorContext): ReconcileFn {
  return async (key) => {
    let snap = ctx.informers.snapshots.get(key);
    if (!snap) return;
    if (snap.metadata.deletionTimestamp) return removeArtifact(ctx, snap);
    snap = await ensureFinalizer(ctx, snap);
    const phase = snap.status?.phase ?? 'pending';
    if (phase === 'ready' || phase === 'failed') return;
    return capture(ctx, snap);
  };
}

async function capture(ctx: OperatorContext, snap: Snapshot): Promise<void> {
  const ns = snap.metadata.namespace!;
  const sourceKey = `${ns}/${snap.spec.sourceSandbox}`;
  const source = ctx.informers.sandboxes.get(sourceKey);
  const sourcePhase = source?.status?.phase ?? 'pending';
  if (!source || source.metadata.deletionTimestamp || ['failed', 'completing'].includes(sourcePhase)) {
    return fail(ctx, snap, 'source_not_found', `sandbox ${snap.spec.sourceSandbox} is not running`);
  }
  const vm = source.status?.vm ? ctx.informers.vms.get(source.status.vm) : undefined;
  // Not booted yet (or its VM not yet marked occupied): the VM's next change brings us back. A
  // source paused since the capture was asked is captured as it is (its driver keeps it paused).
  const placed = sourcePhase === 'running' || sourcePhase === 'paused';
  if (!placed || !vm || vm.status?.sandbox !== sourceKey) return;
  const mini = ctx.informers.minis.get(vm.spec.mini);
  if (!mini)
    return fail(ctx, snap, 'source_not_found', `the Mac of sandbox ${snap.spec.sourceSandbox} is gone`);

  await writeStatus(ctx, snap, { phase: 'capturing', version: snap.metadata.name });
  const tmp = await ctx.blobs.tempPath('.delta');
  try {
    await ctx.hosts.host(mini).exportDelta(vm.metadata.name, tmp);
    const artifact = await ctx.blobs.put(artifactLocation(snap), tmp);
    await writeStatus(ctx, ctx.informers.snapshots.get(`${ns}/${snap.metadata.name}`) ?? snap, {
      phase: 'ready',
      version: snap.metadata.name,
      baseImage: vm.spec.image,
      diskGiB: vm.spec.diskGiB,
      macModel: mini.spec.model,
      artifact,
    });
    ctx.logger.info({ snapshot: `${ns}/${snap.metadata.name}`, bytes: artifact.bytes }, 'snapshot captured');
  } catch (err) {
    const message = `${SNAPSHOT_FAILURES.snapshot_capture_failed}: ${(err as Error).message}`;
    await fail(
      ctx,
      ctx.informers.snapshots.get(`${ns}/${snap.metadata.name}`) ?? snap,
      'snapshot_capture_failed',
      message,
    );
  } finally {
    await rm(tmp, { force: true });
  }
}

async function writeStatus(ctx: OperatorContext, snap: Snapshot, status: SnapshotStatus): Promise<void> {
  await ctx.client.patch(
    { kind: 'Snapshot', namespace: snap.metadata.namespace!, name: snap.metadata.name },
    { status },
    { subresource: 'status' },
  );
}

async function fail(
  ctx: OperatorContext,
  snap: Snapshot,
  code: keyof typeof SNAPSHOT_FAILURES,
  message: string,
) {
  ctx.logger.warn(
    { snapshot: `${snap.metadata.namespace}/${snap.metadata.name}`, code, message },
    'snapshot failed',
  );
  // An earlier attempt killed between its put and its status write left a blob nothing names.
  await ctx.blobs.delete(artifactLocation(snap));
  await writeStatus(ctx, snap, {
    phase: 'failed',
    message,
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: code,
        message,
        lastTransitionTime: new Date(ctx.clock.now()).toISOString(),
      },
    ],
  });
}

async function ensureFinalizer(ctx: OperatorContext, snap: Snapshot): Promise<Snapshot> {
  const finalizers = snap.metadata.finalizers ?? [];
  if (finalizers.includes(Finalizers.deleteArtifact)) return snap;
  return ctx.client.update<Snapshot>({
    ...snap,
    metadata: { ...snap.metadata, finalizers: [...finalizers, Finalizers.deleteArtifact] },
  });
}

async function removeArtifact(ctx: OperatorContext, snap: Snapshot): Promise<void> {
  const finalizers = snap.metadata.finalizers ?? [];
  if (!finalizers.includes(Finalizers.deleteArtifact)) return;
  // By its fixed location, not only the status's: a capture killed after its put and before its
  // status write left a blob the status does not name (the crash test found such orphans).
  await ctx.blobs.delete(artifactLocation(snap));
  if (snap.status?.artifact && snap.status.artifact.location !== artifactLocation(snap))
    await ctx.blobs.delete(snap.status.artifact.location);
  await ctx.client.update<Snapshot>({
    ...snap,
    metadata: { ...snap.metadata, finalizers: finalizers.filter((f) => f !== Finalizers.deleteArtifact) },
  });
}
