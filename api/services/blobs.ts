// Uploaded blobs (`/v1/blobs`): bytes an account keeps for `download` setup steps, content-addressed
// (the id is `sha256-<hex>` of the bytes, so uploading the same bytes again is the same blob). The
// bytes are streamed into the blob store as they arrive, hashed on the way; the Blob resource is
// written once they are durable under their final name, so a Blob always points at its bytes.
// Quota per account: a count, and a byte total that must be under its limit before an upload
// starts (its size is known only once read), counted from the store.
import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { API_VERSION, BLOB_ID_PATTERN, type Blob } from '../../crds/index.ts';
import type { BlobStore } from '../../operator/blob-store.ts';
import { uploadLocation } from '../../operator/evaluation/blob-source.ts';
import { isStoreError } from '../../store/store.ts';
import type { Principal } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';
import type { BlobQuota } from './quota-limits.ts';

export const DEFAULT_BLOB_QUOTA: BlobQuota = { maxCount: 1000, maxBytes: 10 * 1024 ** 3 };
const ID = new RegExp(BLOB_ID_PATTERN);

export function blobWire(blob: Blob) {
  return {
    blob_id: blob.metadata.name,
    bytes: blob.spec.artifact.bytes,
    sha256: blob.spec.artifact.sha256,
    filename: blob.spec.filename ?? null,
    created_at: blob.metadata.creationTimestamp ?? null,
  };
}

export async function listBlobs(ctx: ApiContext, principal: Principal): Promise<Blob[]> {
  const { items } = await ctx.store.list<Blob>('Blob', { namespace: principal.account });
  return items
    .filter((b) => !b.metadata.deletionTimestamp)
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
}

export async function findBlob(ctx: ApiContext, principal: Principal, id: string): Promise<Blob> {
  const blob = ID.test(id)
    ? await ctx.store.get<Blob>({ kind: 'Blob', namespace: principal.account, name: id })
    : undefined;
  if (!blob || blob.metadata.deletionTimestamp) throw new ApiError('blob_not_found');
  return blob;
}

/** 403 `quota_exceeded` naming the limit when the account may not upload one more blob. */
export async function checkBlobQuota(ctx: ApiContext, principal: Principal): Promise<void> {
  const quota = ctx.blobQuota ?? DEFAULT_BLOB_QUOTA;
  const kept = await listBlobs(ctx, principal);
  if (kept.length >= quota.maxCount)
    throw new ApiError(
      'quota_exceeded',
      `Blob count quota reached: ${kept.length} of ${quota.maxCount} blobs. Delete one first.`,
    );
  const bytes = kept.reduce((sum, b) => sum + b.spec.artifact.bytes, 0);
  if (bytes >= quota.maxBytes)
    throw new ApiError(
      'quota_exceeded',
      `Blob storage quota reached: ${bytes} of ${quota.maxBytes} bytes. Delete blobs first.`,
    );
}

/** Stores the body; answers the blob and whether it is new (the same bytes uploaded before are not). */
export async function uploadBlob(
  ctx: ApiContext,
  blobs: BlobStore | undefined,
  principal: Principal,
  body: Readable,
  filename: string | undefined,
): Promise<{ blob: Blob; created: boolean }> {
  if (!blobs) throw new ApiError('artifact_unavailable', 'This server has no blob store configured.');
  const account = principal.account;
  // Streamed under a name of its own first (the digest is known only at the end), then renamed to
  // its content's name in the same directory: atomic, and an interrupted upload leaves an
  // incoming file that the blob sweep removes.
  const incoming = `uploads/${account}/incoming-${randomBytes(8).toString('hex')}`;
  const stored = await blobs.put(incoming, body);
  const id = `sha256-${stored.sha256}`;
  const location = uploadLocation(account, id);
  await rename(blobs.path(incoming), blobs.path(location));
  const key = { kind: 'Blob', namespace: account, name: id };
  try {
    const blob = await ctx.store.create<Blob>({
      apiVersion: API_VERSION,
      kind: 'Blob',
      metadata: { name: id, namespace: account },
      spec: {
        artifact: { location, bytes: stored.bytes, sha256: stored.sha256 },
        ...(filename !== undefined && { filename }),
      },
    });
    return { blob, created: true };
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
    const existing = await ctx.store.get<Blob>(key);
    if (!existing) throw err;
    return { blob: existing, created: false };
  }
}

export async function deleteBlob(
  ctx: ApiContext,
  blobs: BlobStore | undefined,
  principal: Principal,
  id: string,
): Promise<void> {
  const blob = await findBlob(ctx, principal, id);
  await ctx.store.delete(
    { kind: 'Blob', namespace: principal.account, name: id },
    { uid: blob.metadata.uid! },
  );
  // Only the account's own upload (a Blob written through the admin API could name other blobs).
  if (blobs && blob.spec.artifact.location === uploadLocation(principal.account, id))
    await blobs.delete(blob.spec.artifact.location).catch(() => undefined);
}
