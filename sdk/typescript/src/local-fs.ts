// The local filesystem, for the methods that take local paths (upload, download_file, upload_dir,
// download_dir, recording download). Loaded on first use through `node:fs/promises`, which Node,
// Deno and Bun all provide; the rest of the SDK needs only fetch, so it also runs where there is no
// filesystem. The interface lists just what the SDK calls, so the SDK builds without Node's types.
import { TAR_END, readTar, safeMemberName, tarHeader, tarPadding } from './tar.ts';

interface FileHandle {
  read(
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number | null,
  ): Promise<{ bytesRead: number }>;
  write(data: Uint8Array): Promise<unknown>;
  close(): Promise<void>;
}
interface Dirent {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}
interface NodeFs {
  open(path: string, flags: string, mode?: number): Promise<FileHandle>;
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]>;
  stat(path: string): Promise<{ size: number; mode: number; mtimeMs: number; isDirectory(): boolean }>;
}

let loaded: Promise<NodeFs> | undefined;

function fs(): Promise<NodeFs> {
  const name = 'node:fs/promises'; // a variable: bundlers for the browser leave it alone
  loaded ??= (import(name) as Promise<NodeFs>).catch((err: unknown) => {
    loaded = undefined;
    throw new Error('local paths need a runtime with node:fs (Node, Deno or Bun)', { cause: err });
  });
  return loaded;
}

const CHUNK = 1 << 20;

/** A file's bytes as a stream (read in 1 MiB chunks). */
export async function fileStream(path: string): Promise<ReadableStream<Uint8Array>> {
  const handle = await (await fs()).open(path, 'r');
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const buf = new Uint8Array(CHUNK);
      const { bytesRead } = await handle.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) {
        await handle.close();
        controller.close();
      } else controller.enqueue(buf.subarray(0, bytesRead));
    },
    async cancel() {
      await handle.close();
    },
  });
}

export async function fileSize(path: string): Promise<number> {
  return (await (await fs()).stat(path)).size;
}

export async function readLocalFile(path: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const c of iterate(await fileStream(path))) chunks.push(c);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Writes a stream to a file (parent directories created), replacing it. */
export async function writeLocalFile(
  path: string,
  data: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  mode = 0o644,
): Promise<void> {
  const f = await fs();
  const parent = path.replace(/[/\\][^/\\]*$/, '');
  if (parent && parent !== path) await f.mkdir(parent, { recursive: true });
  const handle = await f.open(path, 'w', mode);
  try {
    for await (const c of data instanceof ReadableStream ? iterate(data) : data) await handle.write(c);
  } finally {
    await handle.close();
  }
}

async function* iterate(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** A local directory as a tar stream: its files and subdirectories (symlinks and others skipped). */
export async function packDirectory(dir: string): Promise<ReadableStream<Uint8Array>> {
  const f = await fs();
  if (!(await f.stat(dir)).isDirectory()) throw new Error(`not a directory: ${dir}`);
  async function* walk(rel: string): AsyncGenerator<Uint8Array> {
    const entries = await f.readdir(rel ? `${dir}/${rel}` : dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      const st = await f.stat(`${dir}/${name}`);
      if (e.isDirectory()) {
        yield* tarHeader(name, 'directory', 0, st.mode, st.mtimeMs / 1000);
        yield* walk(name);
      } else if (e.isFile()) {
        yield* tarHeader(name, 'file', st.size, st.mode, st.mtimeMs / 1000);
        let sent = 0;
        for await (const c of iterate(await fileStream(`${dir}/${name}`))) {
          // A file that grew while packed: its header said st.size, so only that much is sent.
          const part = c.subarray(0, st.size - sent);
          sent += part.length;
          if (part.length) yield part;
        }
        if (sent !== st.size) throw new Error(`${dir}/${name} shrank while it was archived`);
        yield tarPadding(st.size);
      }
    }
  }
  const blocks = (async function* () {
    yield* walk('');
    yield TAR_END;
  })();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await blocks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await blocks.return(undefined);
    },
  });
}

/** Unpacks a tar stream into `dir` (created if missing); members that would land outside it are refused. */
export async function unpackInto(stream: ReadableStream<Uint8Array>, dir: string): Promise<string[]> {
  const f = await fs();
  await f.mkdir(dir, { recursive: true });
  const written: string[] = [];
  await readTar(stream, async (entry, data) => {
    const name = entry.name;
    if (name === '') return;
    if (!safeMemberName(name)) throw new Error(`tar member outside the target directory: ${entry.name}`);
    if (entry.type === 'directory') await f.mkdir(`${dir}/${name}`, { recursive: true });
    else if (entry.type === 'file') {
      await writeLocalFile(`${dir}/${name}`, data, entry.mode & 0o777 || 0o644);
      written.push(name);
    }
  });
  return written;
}
