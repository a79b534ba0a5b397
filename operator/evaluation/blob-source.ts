// Where an account's uploaded blobs (`POST /v1/blobs`, Blob resources) live in the blob store, and
// how a `download` step opens one: by its Blob resource, whose artifact is checked before use.
import type { Blob } from '../../crds/index.ts';
import type { Store } from '../../store/store.ts';
import type { BlobStore } from '../blob-store.ts';
import type { OpenedBlob } from './steps.ts';

/** `uploads/<account>/<sha256 hex>`: one copy per account and content. */
export function uploadLocation(account: string, id: string): string {
  return `uploads/${account}/${id.replace(/^sha256-/, '')}`;
}

/** Opens the account's blob `id`; undefined when the account has no such blob (or it is being deleted). */
export async function openAccountBlob(
  store: Pick<Store, 'get'>,
  blobs: BlobStore | undefined,
  account: string,
  id: string,
): Promise<OpenedBlob | undefined> {
  if (!blobs) return undefined;
  const blob = await store.get<Blob>({ kind: 'Blob', namespace: account, name: id });
  if (!blob || blob.metadata.deletionTimestamp) return undefined;
  const { location, bytes, sha256 } = blob.spec.artifact;
  // Only the account's own uploads (a Blob written through the admin API could name other blobs).
  if (location !== uploadLocation(account, id)) return undefined;
  return { stream: blobs.open(location), bytes, sha256 };
}
