// Reads a whole tar stream into memory with node-tar's strict parser: each entry's path, type, mode
// and bytes, in archive order. For archives known to be small (the sim driver's uploads, a Harbor
// task directory in tests); the caller decides where entries may land.
import { Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';

export interface TarEntry {
  path: string;
  type: string;
  mode: number;
  data: Buffer;
}

/** A parse error is passed through `parseError` (e.g. to give it the caller's error code). */
export function readTarEntries(
  source: Readable | Buffer,
  parseError: (err: Error) => Error = (err) => err,
): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  return new Promise<TarEntry[]>((resolve, reject) => {
    const parser = new Parser({ strict: true });
    parser.on('entry', (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () =>
        entries.push({
          path: entry.path,
          type: entry.type,
          mode: entry.mode ?? 0,
          data: Buffer.concat(chunks),
        }),
      );
    });
    parser.on('error', (err: Error) => reject(parseError(err)));
    parser.on('end', () => resolve(entries));
    if (source instanceof Readable) {
      source.on('error', reject);
      source.pipe(parser);
    } else parser.end(source);
  });
}
