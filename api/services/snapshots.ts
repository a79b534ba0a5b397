// Snapshots: created from a running sandbox with a name, identified by their version (the Snapshot's
// resource name). The API writes the Snapshot and waits for the snapshot reconciler to capture the
// disk delta (`ready`) or fail (502, spec Snapshots rule 4).
import { randomBytes } from 'node:crypto';
import { API_VERSION, SNAPSHOT_TRANSFER_DEADLINE_MS, type Sandbox, type Snapshot } from '../../crds/index.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import { checkSnapshotQuota, DEFAULT_SNAPSHOT_QUOTA } from './quotas.ts';
import type { ApiContext } from './context.ts';
import { requireRunning } from './guests.ts';
import { waitForResource } from './wait.ts';

/** Snapshot capture deadline (spec, Limits). */
export const CAPTURE_DEADLINE_MS = SNAPSHOT_TRANSFER_DEADLINE_MS;

/** A version: sortable by time, unique, and a valid resource name. */
export function newVersion(now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'z')
    .toLowerCase();
  return `snap-${stamp}-${randomBytes(4).toString('hex')}`;
}

/**
 * Captures `sandbox` as version `version`. Under an Idempotency-Key the version is the key's
 * record's, so when it exists already it is what an earlier attempt of the same request wrote
 * before its process died: that capture is answered, not a second one (docs/api.md, Idempotency).
 */
export async function createSnapshot(
  ctx: ApiContext,
  sandbox: Sandbox,
  name: string,
  version: string = newVersion(ctx.clock.now()),
): Promise<Snapshot> {
  const namespace = sandbox.metadata.namespace!;
  const earlier = await ctx.store.get<Snapshot>({ kind: 'Snapshot', namespace, name: version });
  const created = earlier ?? (await createNew(ctx, sandbox, name, version));
  if (!earlier) ctx.operatorHooks?.written?.('Snapshot', `${namespace}/${created.metadata.name}`);
  type Outcome = { ok: Snapshot } | { err: ApiError };
  const outcome = await waitForResource<Snapshot, Outcome>({
    store: ctx.store,
    clock: ctx.clock,
    kind: 'Snapshot',
    namespace,
    name: created.metadata.name,
    fromVersion: created.metadata.resourceVersion,
    decide: (obj) => {
      if (!obj)
        return {
          result: {
            err: new ApiError('snapshot_capture_failed', 'The snapshot was deleted while capturing.'),
          },
        };
      if (obj.status?.phase === 'ready') return { result: { ok: obj } };
      if (obj.status?.phase === 'failed')
        return { result: { err: new ApiError('snapshot_capture_failed', obj.status.message) } };
      return undefined;
    },
    timeoutMs: CAPTURE_DEADLINE_MS,
    onTimeout: () => ({
      err: new ApiError('operation_timeout', 'The snapshot was not captured before its deadline.'),
    }),
    signal: ctx.shutdown,
  });
  if (!('ok' in outcome)) throw outcome.err;
  // Read-your-writes: the next capture's quota check (from the cache) counts this one.
  await ctx.reads.synced(outcome.ok);
  return outcome.ok;
}

async function createNew(ctx: ApiContext, sandbox: Sandbox, name: string, version: string) {
  requireRunning(sandbox);
  const namespace = sandbox.metadata.namespace!;
  checkSnapshotQuota(ctx.reads.snapshotsIn(namespace), ctx.snapshotQuota ?? DEFAULT_SNAPSHOT_QUOTA);
  return ctx.store.create<Snapshot>({
    apiVersion: API_VERSION,
    kind: 'Snapshot',
    metadata: { name: version, namespace },
    spec: { sourceSandbox: sandbox.metadata.name, name },
  });
}

export async function findSnapshot(
  ctx: ApiContext,
  principal: Principal,
  version: string,
): Promise<Snapshot> {
  const snapshot = await ctx.store.get<Snapshot>({
    kind: 'Snapshot',
    namespace: principal.account,
    name: version,
  });
  if (!snapshot || snapshot.metadata.deletionTimestamp) throw new ApiError('snapshot_not_found');
  return snapshot;
}

export async function listSnapshots(
  ctx: ApiContext,
  principal: Principal,
  sandboxId?: string,
): Promise<Snapshot[]> {
  const { items } = await ctx.store.list<Snapshot>('Snapshot', { namespace: principal.account });
  return items
    .filter(
      (s) => !s.metadata.deletionTimestamp && (sandboxId === undefined || s.spec.sourceSandbox === sandboxId),
    )
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
}

export async function deleteSnapshot(ctx: ApiContext, snapshot: Snapshot): Promise<void> {
  await ctx.store.delete(
    { kind: 'Snapshot', namespace: snapshot.metadata.namespace!, name: snapshot.metadata.name },
    { uid: snapshot.metadata.uid! },
  );
}

export function snapshotWire(s: Snapshot) {
  const st = s.status ?? {};
  return {
    version: s.metadata.name,
    name: s.spec.name,
    sandbox_id: s.spec.sourceSandbox,
    status: st.phase ?? 'pending',
    created_at: s.metadata.creationTimestamp ?? new Date(0).toISOString(),
    base_image: st.baseImage ?? null,
    disk_gib: st.diskGiB ?? null,
    size_bytes: st.artifact?.bytes ?? null,
    sha256: st.artifact?.sha256 ?? null,
  };
}
