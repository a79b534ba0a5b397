// The end of an exec's own output. sshd keeps an exec channel open until every process holding its
// stdout/stderr pipes has closed them, so an app the command started in the background (`xterm &`)
// would hold the call open for as long as it runs. Instead, the shell writes a marker on each stream
// as it exits (an EXIT trap, see ssh-client-exec.ts): everything before the marker is the command's
// output, in order, since a pipe keeps the order of writes; what background processes write after
// it is not part of the result. The marker is a random nonce per call, so output cannot fake it by
// accident; on stdout it carries the shell's exit status between two copies of the nonce.
import { randomBytes } from 'node:crypto';
import { OutputCapture } from './ssh-client.ts';

/** A fresh marker for one call: 32 hex characters. */
export function newMarker(): string {
  return randomBytes(16).toString('hex');
}

/** The shell's EXIT trap that writes `marker<status>marker` on stdout and `marker` on stderr. */
export function markerTrap(marker: string): string {
  return `trap 'printf "%s%d%s" ${marker} "$?" ${marker}; printf %s ${marker} >&2' EXIT`;
}

/**
 * One output stream of an exec: captured (or, with `sink`, handed on as it comes) up to the marker,
 * then (with `withStatus`) the status.
 */
export class MarkedStream {
  readonly capture = new OutputCapture();
  readonly #marker: Buffer;
  readonly #withStatus: boolean;
  readonly #emit: (chunk: Buffer) => void;
  /** Bytes not yet known not to start a marker. */
  #pending = Buffer.alloc(0);
  #state: 'output' | 'status' | 'done' = 'output';
  #statusText = '';
  /** The exit status the marker carried (stdout only), once `done`. */
  status: number | undefined;

  constructor(marker: string, withStatus: boolean, sink?: (chunk: Buffer) => void) {
    this.#marker = Buffer.from(marker, 'latin1');
    this.#withStatus = withStatus;
    this.#emit = sink ?? ((chunk) => this.capture.add(chunk));
  }

  get done(): boolean {
    return this.#state === 'done';
  }

  add(chunk: Buffer): void {
    if (this.#state === 'done') return;
    let buf = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = Buffer.alloc(0);
    if (this.#state === 'output') {
      const at = buf.indexOf(this.#marker);
      if (at < 0) {
        // The last bytes may be the start of a marker cut by the chunk boundary: held back (only
        // those that are, so that a stream hands on a prompt at once).
        const keep = this.#markerStartAtEnd(buf);
        if (buf.length > keep) this.#emit(buf.subarray(0, buf.length - keep));
        this.#pending = Buffer.from(buf.subarray(buf.length - keep));
        return;
      }
      if (at > 0) this.#emit(buf.subarray(0, at));
      buf = buf.subarray(at + this.#marker.length);
      if (!this.#withStatus) {
        this.#state = 'done';
        return;
      }
      this.#state = 'status';
    }
    // The status: digits up to the second marker (a few bytes, possibly split over chunks).
    this.#statusText += buf.toString('latin1');
    const end = this.#statusText.indexOf(this.#marker.toString('latin1'));
    if (end < 0) return;
    this.status = Number.parseInt(this.#statusText.slice(0, end), 10);
    this.#state = 'done';
  }

  /** How many of `buf`'s last bytes are the first bytes of the marker. */
  #markerStartAtEnd(buf: Buffer): number {
    for (let k = Math.min(buf.length, this.#marker.length - 1); k > 0; k--) {
      if (buf.subarray(buf.length - k).equals(this.#marker.subarray(0, k))) return k;
    }
    return 0;
  }

  /** The stream ended without a marker (the shell was killed or replaced): what was held back is output. */
  flush(): void {
    if (this.#state !== 'output') return;
    if (this.#pending.length > 0) this.#emit(this.#pending);
    this.#pending = Buffer.alloc(0);
  }
}
