// The free-space guard of the data directory: below a threshold, requests that would write to it
// (snapshots, recordings, uploads) are refused with 507 `insufficient_storage` before their body is
// read, so the store's own disk never fills under them. Reads, deletes (which free space) and
// everything else keep working.
import { statfs } from 'node:fs/promises';
import { ApiError } from './errors.ts';

export interface StorageGuardOptions {
  /** The directory whose file system is watched (the data directory). */
  dir: string;
  /** New writes are refused while fewer bytes than this are free (for unprivileged users). */
  minFreeBytes: number;
}

export const DEFAULT_MIN_FREE_BYTES = 1024 * 1024 * 1024;

/** Routes that grow the data directory (method and route pattern). */
const WRITING_ROUTES = new Set([
  'POST /v1/sandboxes/:sandboxID/snapshots',
  'POST /v1/sandboxes/:sandboxID/recording/start',
  'PUT /v1/sandboxes/:sandboxID/files',
  'PUT /v1/sandboxes/:sandboxID/files/archive',
  'POST /v1/blobs',
]);

/** Free bytes of the file system holding `dir`, as an unprivileged process may use them. */
export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/** Whether a route (method and pattern) grows the data directory: the storage guard's routes. */
export function writesToDataDir(method: string, url: string): boolean {
  return WRITING_ROUTES.has(`${method} ${url}`);
}

/**
 * An onRequest hook (after authentication) refusing a request while space is short; the app
 * attaches it to the routes `writesToDataDir` names, so no other request pays for it.
 */
export function storageGuardHook(opts: StorageGuardOptions) {
  return async (): Promise<void> => {
    const free = await freeBytes(opts.dir);
    if (free < opts.minFreeBytes)
      throw new ApiError(
        'insufficient_storage',
        `The service's storage has ${free} bytes free, under its ${opts.minFreeBytes}-byte floor: ` +
          'new snapshots, recordings and uploads are refused until space is freed.',
      );
  };
}
