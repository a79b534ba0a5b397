// Reads a Harbor task directory as `GET /v1/me/tasks/{id}/harbor` answers it (a .tar.gz), with
// node-tar's parser: each file's path, mode and bytes.
import { gunzipSync } from 'node:zlib';
import { readTarEntries, type TarEntry } from '../../hosts/tar-entries.ts';

export type HarborFile = Omit<TarEntry, 'path'>;

export async function readHarborArchive(gz: Buffer | Uint8Array): Promise<Map<string, HarborFile>> {
  const entries = await readTarEntries(gunzipSync(gz));
  return new Map(entries.map(({ path, ...file }) => [path, file]));
}

/** A file's text. */
export function text(files: Map<string, HarborFile>, path: string): string {
  const f = files.get(path);
  if (!f) throw new Error(`no ${path} in the archive (has ${[...files.keys()].join(', ')})`);
  return f.data.toString('utf8');
}
