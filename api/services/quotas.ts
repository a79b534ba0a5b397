// Per-account quotas on what an account keeps in the service's storage. Snapshots: a count, and a
// byte total that must be under its limit before a new capture starts (a capture's size is known
// only once captured, so one capture may end past it; the next is refused). Counted from the API's
// snapshot cache: two captures racing each other may both pass at the limit (a soft bound of one
// per concurrent request), which is what keeps the check free of store scans.
import type { Snapshot } from '../../crds/index.ts';
import { ApiError } from '../errors.ts';

export interface SnapshotQuota {
  maxCount: number;
  maxBytes: number;
}

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
