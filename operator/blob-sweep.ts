// Keeps the blob directory to what resources hold. Two kinds of leftovers: temp files of writes that
// never finished (a crash between write and rename, see blob-store.ts), and blobs whose owner is
// gone (a crash between a delete and its blob's removal, or a blob written before its resource
// was). Blobs are owned by name: `snapshots/<ns>/<name>.delta` by that Snapshot, `tasks/<ns>/<id>/…`
// by that Task, `uploads/<ns>/<hex>` by the Blob `sha256-<hex>` (an `uploads/<ns>/incoming-…` is an
// upload a crash stopped between its bytes and its name). Nothing younger than a grace period is touched: a write in progress keeps its temp
// file's mtime fresh, and a blob written a moment before its resource is not taken for an orphan.
// Runs when the operator starts and then hourly.
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { SNAPSHOT_TRANSFER_DEADLINE_MS, type AnyResource } from '../crds/index.ts';
import type { BlobStore } from './blob-store.ts';

/**
 * A temp file untouched this long is abandoned: longer than the longest transfer the spec allows (a
 * snapshot capture or restore, whose delta may sit in a temp file until its deadline), plus a margin.
 */
export const TEMP_GRACE_MS = SNAPSHOT_TRANSFER_DEADLINE_MS + 10 * 60_000;

export interface BlobSweepOptions {
  now: number;
  /** A temp file untouched this long is abandoned (default TEMP_GRACE_MS). */
  tempGraceMs?: number;
  /** A blob without owner this old is an orphan (default 1 h). */
  orphanGraceMs?: number;
}

export interface BlobSweepReport {
  temps: string[];
  orphans: string[];
}

/** Whether the resource that owns a blob exists. */
export type OwnerExists = (
  kind: 'Snapshot' | 'Task' | 'Blob',
  namespace: string,
  name: string,
) => Promise<boolean>;

export async function sweepBlobs(
  blobs: BlobStore,
  ownerExists: OwnerExists,
  opts: BlobSweepOptions,
): Promise<BlobSweepReport> {
  const report: BlobSweepReport = { temps: [], orphans: [] };
  const tempBefore = opts.now - (opts.tempGraceMs ?? TEMP_GRACE_MS);
  const orphanBefore = opts.now - (opts.orphanGraceMs ?? 60 * 60_000);

  for (const name of await names(path.join(blobs.dir, '.tmp'))) {
    const file = path.join(blobs.dir, '.tmp', name);
    if ((await mtime(file)) < tempBefore) {
      await rm(file, { recursive: true, force: true });
      report.temps.push(`.tmp/${name}`);
    }
  }

  for (const ns of await names(path.join(blobs.dir, 'snapshots'))) {
    for (const file of await names(path.join(blobs.dir, 'snapshots', ns))) {
      const location = `snapshots/${ns}/${file}`;
      const owner = file.endsWith('.delta') ? file.slice(0, -'.delta'.length) : undefined;
      if (owner !== undefined && (await ownerExists('Snapshot', ns, owner))) continue;
      if ((await mtime(path.join(blobs.dir, location))) >= orphanBefore) continue;
      await blobs.delete(location);
      report.orphans.push(location);
    }
  }

  for (const ns of await names(path.join(blobs.dir, 'tasks'))) {
    for (const task of await names(path.join(blobs.dir, 'tasks', ns))) {
      const dir = path.join(blobs.dir, 'tasks', ns, task);
      if (await ownerExists('Task', ns, task)) continue;
      const files = await names(dir);
      const times = await Promise.all(files.map((f) => mtime(path.join(dir, f))));
      if (times.some((t) => t >= orphanBefore)) continue;
      await rm(dir, { recursive: true, force: true });
      report.orphans.push(...files.map((f) => `tasks/${ns}/${task}/${f}`));
    }
  }
  for (const ns of await names(path.join(blobs.dir, 'uploads'))) {
    for (const file of await names(path.join(blobs.dir, 'uploads', ns))) {
      const location = `uploads/${ns}/${file}`;
      if (!file.startsWith('incoming-') && (await ownerExists('Blob', ns, `sha256-${file}`))) continue;
      if ((await mtime(path.join(blobs.dir, location))) >= orphanBefore) continue;
      await blobs.delete(location);
      report.orphans.push(location);
    }
  }
  return report;
}

/** `ownerExists` answered by the store (a get per owner). */
export function ownerInStore(store: {
  get<T extends AnyResource>(key: { kind: string; namespace?: string; name: string }): Promise<T | undefined>;
}): OwnerExists {
  return async (kind, namespace, name) => (await store.get({ kind, namespace, name })) !== undefined;
}

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** Modification time in ms; Infinity when the file is gone (never swept). */
async function mtime(file: string): Promise<number> {
  const st = await stat(file).catch(() => undefined);
  return st ? st.mtimeMs : Infinity;
}
