import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.ts';
import { TerminalError } from './errors.ts';
import { WorkQueue, backoffDelay } from './workqueue.ts';
import { waitFor } from '../../test/support/wait.ts';

/** A promise with its resolver, to hold a reconcile open until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const until = (pred: () => boolean) => waitFor(pred, 'the queue to reach the state', 5_000);

describe('WorkQueue', () => {
  it('processes a key added many times while waiting only once', async () => {
    const seen: string[] = [];
    const hold = gate();
    const q = new WorkQueue({
      name: 't',
      concurrency: 1,
      process: async (key) => {
        seen.push(key);
        if (key === 'blocker') await hold.opened;
      },
    });
    q.add('blocker');
    for (let i = 0; i < 5; i++) q.add('a');
    expect(q.length).toBe(1);
    hold.open();
    await until(() => seen.length === 2);
    await q.whenIdle();
    expect(seen).toEqual(['blocker', 'a']);
  });

  it('never runs one key twice at once and runs it again when re-added mid-run', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const first = gate();
    const q = new WorkQueue({
      name: 't',
      concurrency: 4,
      process: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        runs++;
        if (runs === 1) await first.opened;
        running--;
      },
    });
    q.add('k');
    await until(() => runs === 1);
    q.add('k');
    q.add('k');
    expect(q.running).toBe(1);
    first.open();
    await until(() => runs === 2);
    await q.whenIdle();
    expect(maxRunning).toBe(1);
    expect(runs).toBe(2);
  });

  it('retries a failing key after exponential, capped per-key delays', async () => {
    const clock = new FakeClock();
    const attempts: number[] = [];
    const q = new WorkQueue({
      name: 't',
      clock,
      backoff: { baseMs: 100, maxMs: 400 },
      process: async () => {
        attempts.push(clock.now());
        if (attempts.length < 5) throw new Error('not yet');
      },
    });
    const t0 = clock.now();
    q.add('k');
    for (let n = 1; n < 5; n++) {
      await until(() => attempts.length === n && q.delayed === 1);
      clock.advance(clock.nextTimerAt()! - clock.now());
    }
    await until(() => attempts.length === 5);
    await q.whenIdle();
    expect(attempts.map((t) => t - t0)).toEqual([0, 100, 300, 700, 1100]);
    expect(q.failures('k')).toBe(0);
    expect(backoffDelay(10, { baseMs: 5, maxMs: 1000 })).toBe(1000);
  });

  it('keeps one key’s backoff from delaying another key', async () => {
    const clock = new FakeClock();
    const done: string[] = [];
    const q = new WorkQueue({
      name: 't',
      clock,
      backoff: { baseMs: 1_000, maxMs: 10_000 },
      process: async (key) => {
        if (key === 'bad') throw new Error('boom');
        done.push(key);
      },
    });
    q.add('bad');
    q.add('good');
    await until(() => done.length === 1 && q.delayed === 1);
    expect(q.failures('bad')).toBe(1);
    expect(q.failures('good')).toBe(0);
    await q.shutdown();
  });

  it('does not retry a terminal error', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const q = new WorkQueue({
      name: 't',
      clock,
      process: async () => {
        runs++;
        throw new TerminalError('bad input');
      },
    });
    q.add('k');
    await q.whenIdle();
    clock.advance(60_000);
    await q.whenIdle();
    expect(runs).toBe(1);
    expect(q.delayed).toBe(0);
  });

  it('runs a key again after the requeueAfter its reconcile returned', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    const q = new WorkQueue({
      name: 't',
      clock,
      process: async () => {
        at.push(clock.now());
        return at.length < 3 ? { requeueAfterMs: 30_000 } : {};
      },
    });
    const t0 = clock.now();
    q.add('k');
    await until(() => at.length === 1 && q.delayed === 1);
    clock.advance(29_999);
    await q.whenIdle();
    expect(at.length).toBe(1);
    clock.advance(1);
    await until(() => at.length === 2 && q.delayed === 1);
    clock.advance(30_000);
    await until(() => at.length === 3);
    await q.whenIdle();
    expect(at.map((t) => t - t0)).toEqual([0, 30_000, 60_000]);
    expect(q.delayed).toBe(0);
  });

  it('runs a key at the requeueAt deadline its reconcile returned, even when the clock moved during the run', async () => {
    // The reaper's race: a reconcile reads `now`, the clock moves past the deadline while it is
    // still in flight, and nothing moves the clock again. A deadline as a delay would be counted
    // from the moved clock and never fall due; as a time, it is already due and runs at once.
    const clock = new FakeClock();
    const t0 = clock.now();
    const seen: Record<string, number[]> = { at: [], after: [] };
    const hold = gate();
    const q = new WorkQueue({
      name: 't',
      clock,
      process: async (key) => {
        const now = clock.now();
        seen[key]!.push(now);
        if (seen[key]!.length > 1) return;
        await hold.opened;
        return key === 'at' ? { requeueAtMs: now + 1_000 } : { requeueAfterMs: now + 1_000 - now };
      },
    });
    q.add('at');
    q.add('after');
    await until(() => seen.at!.length === 1 && seen.after!.length === 1);
    clock.advance(5_000);
    hold.open();
    await until(() => seen.at!.length === 2);
    await q.whenIdle();
    expect(seen.at!.map((t) => t - t0)).toEqual([0, 5_000]);
    // The delay counted from the end of the run: still waiting for a clock that does not move.
    expect([seen.after!.length, q.delayed]).toEqual([1, 1]);
    clock.advance(1_000);
    await until(() => seen.after!.length === 2);
    expect(seen.after!.map((t) => t - t0)).toEqual([0, 6_000]);
  });

  it('keeps the earlier of two pending delays for one key', async () => {
    const clock = new FakeClock();
    let runs = 0;
    const q = new WorkQueue({ name: 't', clock, process: async () => void runs++ });
    q.addAfter('k', 5_000);
    q.addAfter('k', 1_000);
    q.addAfter('k', 9_000);
    clock.advance(1_000);
    await until(() => runs === 1);
    clock.advance(10_000);
    await q.whenIdle();
    expect(runs).toBe(1);
  });

  it('runs at most `concurrency` keys at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const hold = gate();
    const q = new WorkQueue({
      name: 't',
      concurrency: 3,
      process: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await hold.opened;
        running--;
      },
    });
    for (let i = 0; i < 10; i++) q.add(`k${i}`);
    await until(() => running === 3);
    expect(q.length).toBe(7);
    hold.open();
    await q.whenIdle();
    expect(maxRunning).toBe(3);
  });

  it('shuts down gracefully: lets runs in flight finish, drops the rest, accepts nothing new', async () => {
    const clock = new FakeClock();
    const finished: string[] = [];
    const hold = gate();
    const q = new WorkQueue({
      name: 't',
      concurrency: 1,
      clock,
      process: async (key) => {
        await hold.opened;
        finished.push(key);
      },
    });
    q.add('a');
    q.add('b');
    q.addAfter('c', 1_000);
    await until(() => q.running === 1);
    const stopped = q.shutdown();
    let resolved = false;
    void stopped.then(() => (resolved = true));
    q.add('d');
    await new Promise((resolve) => setImmediate(resolve));
    expect(resolved).toBe(false);
    hold.open();
    await stopped;
    clock.advance(5_000);
    await q.whenIdle();
    expect(finished).toEqual(['a']);
  });
});
