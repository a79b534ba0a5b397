import { describe, expect, it } from 'vitest';
import { ReadPool } from './read-pool.ts';

describe('ReadPool', () => {
  it('copies a small read out and reads into the same buffer again', () => {
    const pool = new ReadPool(1024 * 1024, 1);
    const buf = pool.next();
    buf.write('hello');
    const { chunk, release } = pool.take(5, buf);
    expect(chunk.toString()).toBe('hello');
    expect(chunk.buffer).not.toBe(buf.buffer);
    release();
    expect(pool.next()).toBe(buf);
  });

  it('lends a large read without a copy and reuses its buffer once released', () => {
    const pool = new ReadPool(1024 * 1024, 1);
    const buf = pool.next();
    const { chunk, release } = pool.take(512 * 1024, buf);
    expect(chunk.buffer).toBe(buf.buffer);
    expect(chunk).toHaveLength(512 * 1024);
    const second = pool.next();
    expect(second).not.toBe(buf); // still lent out: never read into
    pool.take(700 * 1024, second); // lent too
    release();
    release(); // twice is once
    expect(pool.next()).toBe(buf);
  });

  it('keeps at most the configured number of spare buffers', () => {
    const pool = new ReadPool(128 * 1024, 1);
    const lent = [0, 1, 2].map(() => pool.take(128 * 1024, pool.next()));
    const mine = new Set(lent.map((l) => l.chunk.buffer));
    for (const l of lent) l.release();
    const spare = pool.next();
    expect(mine.has(spare.buffer)).toBe(true); // the one spare kept
    pool.take(128 * 1024, spare);
    expect(mine.has(pool.next().buffer)).toBe(false); // the other two were let go
  });
});
