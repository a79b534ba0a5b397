// The buffers a VM connection reads into (Node's `onread`). A large read is handed on as it is, its
// buffer lent out until the WebSocket has passed the bytes to the kernel, then reused; a small read
// is copied out and its buffer read into again. So a 4 MB framebuffer update costs a few reads and a
// few WebSocket frames, and in a steady stream no copy and no allocation (allocating and copying a
// fresh megabyte per read cost ~30 % of the relay's CPU, much of it in the garbage collector).

/** Reads at least this large are lent out instead of copied. */
const LEND_MIN_BYTES = 64 * 1024;

export class ReadPool {
  readonly #bufferBytes: number;
  readonly #maxSpare: number;
  /** Free buffers; at most `maxSpare` are kept, so an idle connection holds little memory. */
  #spare: Buffer[] = [];
  /** The buffer the socket reads into next; undefined once it has been lent out. */
  #current: Buffer | undefined;

  constructor(bufferBytes: number, maxSpare: number) {
    this.#bufferBytes = bufferBytes;
    this.#maxSpare = maxSpare;
  }

  /** The buffer for the socket's next read (`onread.buffer`, called after every read). */
  next = (): Buffer => {
    this.#current ??= this.#spare.pop() ?? Buffer.allocUnsafe(this.#bufferBytes);
    return this.#current;
  };

  /**
   * The `n` bytes the socket just read into `buf`, and what to call once they are no longer needed
   * (then the buffer may be read into again). A holder that never calls it only costs an allocation.
   */
  take(n: number, buf: Buffer): { chunk: Buffer; release: () => void } {
    if (n < LEND_MIN_BYTES || buf !== this.#current) {
      return { chunk: Buffer.from(buf.subarray(0, n)), release: noop };
    }
    this.#current = undefined;
    let released = false;
    return {
      chunk: buf.subarray(0, n),
      release: () => {
        if (released) return;
        released = true;
        if (this.#spare.length < this.#maxSpare) this.#spare.push(buf);
      },
    };
  }
}

function noop(): void {}
