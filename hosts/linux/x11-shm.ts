// MIT-SHM segments for one X11 connection, as a provider of the `x11` package (the same scheme as
// its built-in one: an unlinked file on /dev/shm, handed to the server by file descriptor, read back
// with pread). Owning the provider lets the connection release every segment when it closes — the
// package's own detach needs a round trip that a dropped connection never completes, which would
// leak a descriptor and a screen's worth of /dev/shm per VM restart.
import { closeSync, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { screenMemory } from './bgrx-simd.ts';

export interface ShmSegment {
  size: number;
  fd: number | null;
  buffer: Buffer;
}

export class ShmProvider {
  readonly flavor = 'fd';
  readonly zeroCopy = false;
  readonly #live = new Set<ShmSegment>();

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
    this.#live.add(seg);
    return seg;
  }

  commit(seg: ShmSegment, offset = 0, length = seg.size - offset): void {
    if (length > 0 && seg.fd !== null) writeSync(seg.fd, seg.buffer, offset, length, offset);
  }

  sync(seg: ShmSegment, offset = 0, length = seg.size - offset): void {
    if (length > 0 && seg.fd !== null) readSync(seg.fd, seg.buffer, offset, length, offset);
  }

  destroy(seg: ShmSegment): void {
    this.#live.delete(seg);
    if (seg.fd === null) return;
    try {
      closeSync(seg.fd);
    } catch {
      // already closed
    }
    seg.fd = null;
  }

  /** Releases every segment still held (the connection is gone). */
  destroyAll(): void {
    for (const seg of [...this.#live]) this.destroy(seg);
  }
}
