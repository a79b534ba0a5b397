// Reads a Harbor task directory as `GET /v1/me/tasks/{id}/harbor` answers it (a .tar.gz), with
// node-tar's parser: each file's path, mode and bytes.
import { gunzipSync } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';

export interface HarborFile {
  mode: number;
  type: string;
  data: Buffer;
}

export async function readHarborArchive(gz: Buffer | Uint8Array): Promise<Map<string, HarborFile>> {
  const files = new Map<string, HarborFile>();
  await new Promise<void>((resolve, reject) => {
    const parser = new Parser({ strict: true });
    parser.on('entry', (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () =>
        files.set(entry.path, { mode: entry.mode ?? 0, type: entry.type, data: Buffer.concat(chunks) }),
      );
    });
    parser.on('error', reject);
    parser.on('end', resolve);
    parser.end(gunzipSync(gz));
  });
  return files;
}

/** A file's text. */
export function text(files: Map<string, HarborFile>, path: string): string {
  const f = files.get(path);
  if (!f) throw new Error(`no ${path} in the archive (has ${[...files.keys()].join(', ')})`);
  return f.data.toString('utf8');
}
