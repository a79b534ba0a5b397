// The shapes of the per-account quota limits (api/services/quotas.ts checks them), apart from the
// checks so that the API context can name them without importing the code that reads the context.

/** Snapshots an account keeps: how many, and their bytes in total. */
export interface SnapshotQuota {
  maxCount: number;
  maxBytes: number;
}

/** Recordings an account keeps across its running sandboxes: how many, and their bytes in total. */
export interface RecordingQuota {
  maxCount: number;
  maxBytes: number;
}

/** Blobs an account uploaded for setup steps: how many, and their bytes in total. */
export interface BlobQuota {
  maxCount: number;
  maxBytes: number;
}
