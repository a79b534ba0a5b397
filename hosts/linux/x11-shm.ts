// MIT-SHM segments for one X11 connection, as a provider of the `x11` package (the same scheme as
// its built-in one: an unlinked file on /dev/shm, handed to the server by file descriptor, read back
// with pread). Owning the provider lets the connection release every segment when it closes — the
// package's own detach needs a round trip that a dropped connection never completes, which would
// leak a descriptor and a screen's worth of /dev/shm per VM restart.
//
// The read back of a capture is not the package's (its `sync`, on the caller's thread, right after
// every ShmGetImage: ~4 MB copied on the server's thread per screenshot, 8.4% of the server's CPU
// under mixed load, bench/results/hardening.md) but `readBack`, on libuv's pool. That pool must hold
// nothing a tenant can block; this file is root's, made and unlinked here, on /dev/shm: a read of it
// never waits on a VM.
import { closeSync, ftruncateSync, openSync, read, unlinkSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { screenMemory } from './bgrx-simd.ts';

export interface ShmSegment {
  size: number;
  fd: number | null;
  buffer: Buffer;
  /** Reads of it in flight on libuv's pool: its descriptor is closed only once they are done. */
  reading?: number;
  /** Destroyed while a read was in flight: closed by the last read. */
  closing?: boolean;
}

const readAsync = promisify(read);

export class ShmProvider {
  readonly flavor = 'fd';
  readonly zeroCopy = false;
  /** Each live segment by its memory: a capture names the memory, `readBack` finds the segment. */
  readonly #live = new Map<Buffer, ShmSegment>();

  create(size: number): ShmSegment {
    if (!(size > 0)) throw new Error('segment size must be positive');
    const path = `/dev/shm/sandbay-x11-${process.pid}-${randomBytes(6).toString('hex')}`;
    const fd = openSync(path, 'w+', 0o600);
    try {
      ftruncateSync(fd, size);
    } finally {
      // Anonymous from here on: the memory lives as long as our descriptor or the server's mapping.
      unlinkSync(path);
    }
    // In a memory with room for the frames a capture becomes (bgrx-simd.ts converts in place).
    const seg: ShmSegment = { size, fd, buffer: screenMemory(size) };
    this.#live.set(seg.buffer, seg);
    return seg;
  }

  commit(seg: ShmSegment, offset = 0, length = seg.size - offset): void {
    if (length > 0 && seg.fd !== null) writeSync(seg.fd, seg.buffer, offset, length, offset);
  }

  /** The package's read back after a capture: left to `readBack` (see the top of this file). */
  sync(): void {}

  /**
   * Reads the first `length` bytes of the segment whose memory is `buffer` (what the X server just
   * wrote there) into that memory, off the caller's thread. Rejects once the segment is destroyed.
   */
  async readBack(buffer: Buffer, length: number): Promise<void> {
    const seg = this.#live.get(buffer);
    if (!seg || seg.fd === null) throw new Error('the MIT-SHM segment is gone');
    const fd = seg.fd;
    seg.reading = (seg.reading ?? 0) + 1;
    try {
      for (let done = 0; done < length;) {
        const { bytesRead } = await readAsync(fd, seg.buffer, done, length - done, done);
        if (bytesRead === 0) throw new Error('the MIT-SHM segment ended early');
        done += bytesRead;
      }
    } finally {
      seg.reading -= 1;
      // A descriptor closed under a read in flight could be reused by another open, and the read
      // would go on in that file: the last read closes it instead.
      if (seg.reading === 0 && seg.closing) closeSync(fd);
    }
  }

  destroy(seg: ShmSegment): void {
    this.#live.delete(seg.buffer);
    if (seg.fd === null) return;
    const fd = seg.fd;
    seg.fd = null;
    if ((seg.reading ?? 0) > 0) {
      seg.closing = true;
      return;
    }
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }

  /** Releases every segment still held (the connection is gone). */
  destroyAll(): void {
    for (const seg of [...this.#live.values()]) this.destroy(seg);
  }
}
