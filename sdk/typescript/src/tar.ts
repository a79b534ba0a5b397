// Tar archives as streams, for upload_dir/download_dir: the API takes and gives a directory as a tar
// archive (`PUT/GET …/files/archive`). Written with web streams only (no Node imports): ustar
// headers, with a PAX `path` record for a name longer than ustar holds; reading understands what the
// VM's GNU tar writes (ustar, GNU long names `L`, PAX `x`/`g`).

export interface TarEntry {
  /** Relative path inside the archive, `/`-separated; a directory's has no trailing `/`. */
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  mode: number;
  linkname: string;
}

const BLOCK = 512;
const enc = new TextEncoder();
const dec = new TextDecoder();

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function put(block: Uint8Array, at: number, text: string, width: number): void {
  block.set(enc.encode(text).subarray(0, width), at);
}

function headerBlock(name: string, size: number, typeflag: string, mode: number, mtimeS: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  put(block, 0, name, 100);
  put(block, 100, octal(mode & 0o7777, 8), 8);
  put(block, 108, octal(0, 8), 8);
  put(block, 116, octal(0, 8), 8);
  put(block, 124, octal(size, 12), 12);
  put(block, 136, octal(Math.floor(mtimeS), 12), 12);
  block.fill(0x20, 148, 156); // the checksum field counts as spaces while summing
  put(block, 156, typeflag, 1);
  put(block, 257, 'ustar\u000000', 8);
  let sum = 0;
  for (const b of block) sum += b;
  put(block, 148, sum.toString(8).padStart(6, '0') + '\0 ', 8);
  return block;
}

function padding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK);
}

/** The header (and, for a long name, the PAX record before it) of one entry. */
export function tarHeader(
  name: string,
  kind: 'file' | 'directory',
  size: number,
  mode: number,
  mtimeS: number,
): Uint8Array[] {
  const typeflag = kind === 'directory' ? '5' : '0';
  const full = kind === 'directory' ? `${name}/` : name;
  if (enc.encode(full).length <= 100) return [headerBlock(full, size, typeflag, mode, mtimeS)];
  // "<len> path=<name>\n", where <len> counts its own digits.
  const body = ` path=${full}\n`;
  let len = enc.encode(body).length + 1;
  while (String(len).length + enc.encode(body).length !== len) len++;
  const record = enc.encode(`${len}${body}`);
  return [
    headerBlock('PaxHeader', record.length, 'x', 0o644, mtimeS),
    record,
    padding(record.length),
    headerBlock(full.slice(0, 99), size, typeflag, mode, mtimeS),
  ];
}

export { padding as tarPadding };

/** The two zero blocks that end an archive. */
export const TAR_END = new Uint8Array(2 * BLOCK);

/** Reads exact byte counts from a stream, buffering what a chunk holds beyond them. */
class ByteReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buf: Uint8Array = new Uint8Array(0);

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  /** Up to `max` bytes (fewer only at the end of the stream: then an empty array). */
  async chunk(max: number): Promise<Uint8Array> {
    if (this.#buf.length === 0) {
      const { done, value } = await this.#reader.read();
      if (done) return new Uint8Array(0);
      this.#buf = value;
    }
    const out = this.#buf.subarray(0, max);
    this.#buf = this.#buf.subarray(out.length);
    return out;
  }

  async exactly(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    for (let got = 0; got < n;) {
      const c = await this.chunk(n - got);
      if (c.length === 0) throw new Error('tar: the archive ends inside an entry');
      out.set(c, got);
      got += c.length;
    }
    return out;
  }

  /**
   * The next `n` bytes as chunks. The iterator has no `return`: a consumer that stops early leaves
   * the rest for the next iteration (which is how unread entry bytes get skipped).
   */
  take(n: number): AsyncIterable<Uint8Array> {
    let left = n;
    const next = async (): Promise<IteratorResult<Uint8Array>> => {
      if (left === 0) return { done: true, value: undefined };
      const c = await this.chunk(left);
      if (c.length === 0) throw new Error('tar: the archive ends inside an entry');
      left -= c.length;
      return { done: false, value: c };
    };
    const iterator = { next };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

function field(block: Uint8Array, at: number, width: number): string {
  const raw = block.subarray(at, at + width);
  const end = raw.indexOf(0);
  return dec.decode(end === -1 ? raw : raw.subarray(0, end));
}

function num(block: Uint8Array, at: number, width: number): number {
  const text = field(block, at, width).trim();
  return text ? parseInt(text, 8) : 0;
}

function paxPath(record: Uint8Array): string | undefined {
  for (const line of dec.decode(record).split('\n')) {
    const m = /^\d+ path=(.*)$/s.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/**
 * Calls `onEntry` for each entry in order with a stream of its bytes, which `onEntry` must consume
 * (or ignore: unread bytes are skipped) before it returns.
 */
export async function readTar(
  stream: ReadableStream<Uint8Array>,
  onEntry: (entry: TarEntry, data: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
  const r = new ByteReader(stream);
  let longName: string | undefined;
  try {
    for (;;) {
      const first = await r.chunk(BLOCK);
      if (first.length === 0) return; // no end blocks: tolerated
      const block = first.length === BLOCK ? first : concat(first, await r.exactly(BLOCK - first.length));
      if (block.every((b) => b === 0)) return;
      const size = num(block, 124, 12);
      const typeflag = String.fromCharCode(block[156] ?? 0);
      const padded = size + ((BLOCK - (size % BLOCK)) % BLOCK);
      if (typeflag === 'L' || typeflag === 'x') {
        const data = await r.exactly(padded);
        longName = typeflag === 'L' ? field(data, 0, size) : (paxPath(data.subarray(0, size)) ?? longName);
        continue;
      }
      if (typeflag === 'g') {
        for await (const _ of r.take(padded));
        continue;
      }
      const prefix = field(block, 345, 155);
      const short = field(block, 0, 100);
      // GNU tar names members `./a.txt` when archiving `.`: the same member as `a.txt`, and `.` is the root.
      const raw = longName ?? (prefix ? `${prefix}/${short}` : short);
      const name = raw
        .replace(/^(\.\/)+/, '')
        .replace(/\/+$/, '')
        .replace(/^\.$/, '');
      longName = undefined;
      const type =
        typeflag === '0' || typeflag === '\0' || typeflag === '7'
          ? 'file'
          : typeflag === '5'
            ? 'directory'
            : typeflag === '2'
              ? 'symlink'
              : 'other';
      const entry: TarEntry = {
        name,
        type,
        size,
        mode: num(block, 100, 8),
        linkname: field(block, 157, 100),
      };
      const data = r.take(size);
      await onEntry(entry, data);
      for await (const _ of data); // whatever onEntry left unread
      for await (const _ of r.take(padded - size));
    }
  } finally {
    await r.cancel().catch(() => undefined);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** A tar member name that stays inside the target directory. */
export function safeMemberName(name: string): boolean {
  const parts = name.split('/');
  return name !== '' && !name.startsWith('/') && !parts.includes('..') && !/^[A-Za-z]:/.test(name);
}
