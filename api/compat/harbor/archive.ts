// The Harbor task directory as the HTTP answer: a gzipped tar (docs/api.md says why not a ZIP: a tar
// keeps the scripts' executable bits for `tar xzf`, and it is how Harbor itself moves directories in
// and out of environments). Entries sit at the archive's root (`task.toml`, `tests/test.sh`, …), so
// `tar xzf - -C DIR` makes DIR the task directory. Streamed: a blob is read while it is written.
import { PassThrough, type Readable } from 'node:stream';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Header } from 'tar';
import type { TaskDirEntry } from './task-dir.ts';

const BLOCK = 512;
/** A fixed time for every entry: the same task exports to the same bytes. */
const MTIME = new Date(0);

function header(path: string, type: 'File' | 'Directory', mode: number, size: number): Buffer {
  const h = new Header({ path, mode, size, mtime: MTIME, type, uid: 0, gid: 0, uname: '', gname: '' });
  // Every path here is short (the longest, environment/blobs/sha256-<64 hex>, is 84 bytes): ustar holds it.
  if (h.encode()) throw new Error(`tar path too long for ustar: ${path}`);
  return h.block!;
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The directories the entries lie in, parents first. */
function directories(entries: readonly TaskDirEntry[]): string[] {
  const dirs = new Set<string>();
  for (const e of entries) {
    const parts = e.path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort();
}

/** Streams the entries as a .tar.gz; an entry that fails to read destroys the stream. */
export function harborArchive(entries: readonly TaskDirEntry[]): Readable {
  const tar = new PassThrough();
  const out = new PassThrough();
  const write = async (chunk: Buffer) => {
    if (!tar.write(chunk)) await Promise.race([once(tar, 'drain'), once(tar, 'close')]);
    if (out.destroyed) throw new Error('the download was closed');
  };
  void pipeline(tar, createGzip(), out).catch((err: unknown) => {
    if (!out.destroyed) out.destroy(err as Error);
  });
  void (async () => {
    for (const dir of directories(entries)) await write(header(`${dir}/`, 'Directory', 0o755, 0));
    for (const e of entries) {
      await write(header(e.path, 'File', e.mode, e.size));
      if (e.data) await write(e.data);
      else if (e.open) {
        let written = 0;
        for await (const chunk of await e.open()) {
          written += (chunk as Buffer).length;
          if (written > e.size) throw new Error(`${e.path} is longer than its recorded ${e.size} bytes`);
          await write(chunk as Buffer);
        }
        if (written !== e.size) throw new Error(`${e.path} is shorter than its recorded ${e.size} bytes`);
      }
      await write(padding(e.size));
    }
    await write(Buffer.alloc(2 * BLOCK));
    tar.end();
  })().catch((err: unknown) => {
    tar.destroy(err as Error);
    if (!out.destroyed) out.destroy(err as Error);
  });
  return out;
}
