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

/** A queue that counts its runs, with its backoff (real-time) clock in the test's hands. */
function countingQueue() {
  const real = new FakeClock();
  let count = 0;
  const q = new WorkQueue({
    name: 't',
    backoffClock: real,
    process: async () => {
      count++;
    },
  });
  return { real, q, runs: () => count };
}

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

  it('coalesces a series of changes into one run when the window closes, on the backoff clock', async () => {
    const business = new FakeClock();
    const real = new FakeClock();
    const runs: number[] = [];
    const q = new WorkQueue({
      name: 't',
      clock: business,
      backoffClock: real,
      process: async () => {
        runs.push(real.now());
      },
    });
    const t0 = real.now();
    q.addCoalesced('k', 250);
    real.advance(100);
    q.addCoalesced('k', 250); // inside the window: no new timer, no earlier run
    business.advance(10_000); // the window is real time: business time does not close it
    let idle = false;
    void q.whenIdle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual([]);
    expect(q.coalescing).toBe(1);
    expect(real.pendingTimers()).toBe(1);
    expect(idle).toBe(false); // a change not acted on yet is work: not idle
    real.advance(150);
    await until(() => idle);
    expect(runs).toEqual([t0 + 250]);
    expect(q.coalescing).toBe(0);
    // A later change opens a new window.
    q.addCoalesced('k', 250);
    real.advance(250);
    await until(() => runs.length === 2);
    expect(runs[1]).toBe(t0 + 500);
  });

  it('closes a coalescing window when the key runs for another reason inside it', async () => {
    const { real, q, runs } = countingQueue();
    q.addCoalesced('k', 250);
    q.add('k'); // e.g. a direct request: this run reads every change so far
    await until(() => runs() === 1);
    await q.whenIdle();
    expect(real.pendingTimers()).toBe(0);
    real.advance(1_000);
    await q.whenIdle();
    expect(runs()).toBe(1);
  });

  it('keeps a requeue delay and a coalescing window of one key apart', async () => {
    const business = new FakeClock();
    const real = new FakeClock();
    let runs = 0;
    const q = new WorkQueue({
      name: 't',
      clock: business,
      backoffClock: real,
      process: async () => {
        runs++;
        return runs === 1 ? { requeueAfterMs: 3_600_000 } : undefined;
      },
    });
    q.add('k');
    await until(() => runs === 1 && q.delayed === 1);
    // A change after the run: its window must not replace the hour-long requeue, nor be replaced.
    q.addCoalesced('k', 250);
    real.advance(250);
    await until(() => runs === 2);
    expect(q.delayed).toBe(1);
    business.advance(3_600_000);
    await until(() => runs === 3);
  });

  it('drops open coalescing windows at shutdown', async () => {
    const { real, q, runs } = countingQueue();
    q.addCoalesced('k', 250);
    await q.shutdown();
    real.advance(1_000);
    q.addCoalesced('j', 250);
    expect(real.pendingTimers()).toBe(0);
    expect(runs()).toBe(0);
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
