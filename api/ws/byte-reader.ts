// Reads exact byte counts from a chunked source (a TCP socket's 'data', a WebSocket's 'message')
// during a handshake, then hands back what arrived beyond it so the relay can forward it.

export class ByteReader {
  #chunks: Buffer[] = [];
  #length = 0;
  #want: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | undefined;
  #error: Error | undefined;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    this.#serve();
  }

  /** The source ended or failed: a pending and every later read rejects. */
  fail(error: Error): void {
    this.#error ??= error;
    const want = this.#want;
    this.#want = undefined;
    want?.reject(this.#error);
  }

  read(n: number): Promise<Buffer> {
    if (this.#want) return Promise.reject(new Error('one read at a time'));
    return new Promise((resolve, reject) => {
      this.#want = { n, resolve, reject };
      this.#serve();
    });
  }

  async readU8(): Promise<number> {
    return (await this.read(1)).readUInt8(0);
  }

  async readU32(): Promise<number> {
    return (await this.read(4)).readUInt32BE(0);
  }

  /** Bytes received but not read; the reader is empty afterwards. */
  takeRest(): Buffer {
    const rest = Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#length = 0;
    return rest;
  }

  #serve(): void {
    const want = this.#want;
    if (!want) return;
    if (this.#length < want.n) {
      if (this.#error) this.fail(this.#error);
      return;
    }
    const all = Buffer.concat(this.#chunks);
    this.#chunks = all.length > want.n ? [all.subarray(want.n)] : [];
    this.#length = all.length - want.n;
    this.#want = undefined;
    want.resolve(all.subarray(0, want.n));
  }
}
