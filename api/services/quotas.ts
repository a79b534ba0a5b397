// Per-account quotas on what an account keeps in the service's storage (snapshots, recordings).
// Snapshots: a count, and a
// byte total that must be under its limit before a new capture starts (a capture's size is known
// only once captured, so one capture may end past it; the next is refused). Counted from the API's
// snapshot cache: two captures racing each other may both pass at the limit (a soft bound of one
// per concurrent request), which is what keeps the check free of store scans.
import type { Snapshot } from '../../crds/index.ts';
import type { RecordingInfo } from '../../hosts/driver.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import { guestOf } from './guests.ts';
import type { RecordingQuota, SnapshotQuota } from './quota-limits.ts';

export type { RecordingQuota, SnapshotQuota } from './quota-limits.ts';

export const DEFAULT_SNAPSHOT_QUOTA: SnapshotQuota = { maxCount: 100, maxBytes: 500 * 1024 ** 3 };

/** Throws 403 `quota_exceeded`, naming the limit, when the account may not capture one more. */
export function checkSnapshotQuota(snapshots: readonly Snapshot[], quota: SnapshotQuota): void {
  const kept = snapshots.filter((s) => !s.metadata.deletionTimestamp);
  if (kept.length >= quota.maxCount)
    throw new ApiError(
      'quota_exceeded',
      `Snapshot count quota reached: ${kept.length} of ${quota.maxCount} snapshots. Delete one first.`,
    );
  const bytes = kept.reduce((sum, s) => sum + (s.status?.artifact?.bytes ?? 0), 0);
  if (bytes >= quota.maxBytes)
    throw new ApiError(
      'quota_exceeded',
      `Snapshot storage quota reached: ${bytes} of ${quota.maxBytes} bytes. Delete snapshots first.`,
    );
}

export const DEFAULT_RECORDING_QUOTA: RecordingQuota = { maxCount: 50, maxBytes: 50 * 1024 ** 3 };

/**
 * Recordings live with their sandbox (in its VM): an account's are those of its running sandboxes,
 * asked of each sandbox's VM when a recording starts (a sandbox that does not answer counts none).
 */
export async function checkRecordingQuota(ctx: ApiContext, account: string): Promise<void> {
  const quota = ctx.recordingQuota ?? DEFAULT_RECORDING_QUOTA;
  const running = ctx.reads
    .sandboxesIn(account)
    .filter((s) => s.status?.phase === 'running' && !s.spec.paused && !s.metadata.deletionTimestamp);
  const lists = await Promise.all(
    running.map(async (s) => (await guestOf(ctx, s)).listRecordings().catch((): RecordingInfo[] => [])),
  );
  const recordings = lists.flat();
  if (recordings.length >= quota.maxCount)
    throw new ApiError(
      'quota_exceeded',
      `Recording count quota reached: ${recordings.length} of ${quota.maxCount} recordings. Delete one first.`,
    );
  const bytes = recordings.reduce((sum, r) => sum + (r.bytes ?? 0), 0);
  if (bytes >= quota.maxBytes)
    throw new ApiError(
      'quota_exceeded',
      `Recording storage quota reached: ${bytes} of ${quota.maxBytes} bytes. Delete recordings first.`,
    );
}
