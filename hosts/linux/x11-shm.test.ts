// The MIT-SHM provider's read back on libuv's pool: what the X server wrote comes whole into the
// segment's memory, and a segment destroyed while a read is in flight keeps its descriptor until
// that read is done (a descriptor closed under it could be reused by another open mid-read).
import { existsSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ShmProvider } from './x11-shm.ts';

const SIZE = 1280 * 800 * 4;

/** What the X server does: write into the segment's file, which the provider's memory mirrors only after a read. */
function serverWrites(fd: number, byte: number): void {
  writeSync(fd, Buffer.alloc(SIZE, byte), 0, SIZE, 0);
}

describe('MIT-SHM provider', () => {
  it('reads back what was written into the segment, off the thread, and leaves the rest', async () => {
    const shm = new ShmProvider();
    const seg = shm.create(SIZE);
    serverWrites(seg.fd!, 7);
    // The package's own read back does nothing now: the memory is unchanged until readBack.
    shm.sync();
    expect(seg.buffer[0]).toBe(0);
    await shm.readBack(seg.buffer, SIZE / 2);
    expect(seg.buffer[0]).toBe(7);
    expect(seg.buffer[SIZE / 2 - 1]).toBe(7);
    expect(seg.buffer[SIZE / 2]).toBe(0);
    shm.destroyAll();
  });

  it('closes a segment destroyed under a read only once the read is done', async () => {
    const shm = new ShmProvider();
    const seg = shm.create(SIZE);
    const fd = seg.fd!;
    serverWrites(fd, 9);
    const reading = shm.readBack(seg.buffer, SIZE);
    shm.destroy(seg);
    expect(seg.fd).toBeNull();
    expect(existsSync(`/proc/self/fd/${fd}`)).toBe(true);
    await reading;
    expect(seg.buffer[SIZE - 1]).toBe(9);
    // Closed by the read's end.
    expect(existsSync(`/proc/self/fd/${fd}`)).toBe(false);
    await expect(shm.readBack(seg.buffer, SIZE)).rejects.toThrow('gone');
  });
});
