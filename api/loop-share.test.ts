// The loop share's rule, window by window, with the loop's utilization given: which key is held,
// when its connections are read again, and when its limit goes.
import { describe, expect, it } from 'vitest';
import { LoopShare, type HeldSocket } from './loop-share.ts';

class FakeSocket implements HeldSocket {
  paused = false;
  destroyed = false;
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
}

/** `n` requests of `key`, each answered on one of `sockets` in turn. */
function calls(share: LoopShare, key: string, n: number, sockets: FakeSocket[]): void {
  for (let i = 0; i < n; i++) share.started(key)(sockets[i % sockets.length]!);
}

const sockets = (n: number) => Array.from({ length: n }, () => new FakeSocket());

describe('the loop share', () => {
  it('never holds a key alone on the server, however busy the loop', () => {
    let holds = 0;
    const share = new LoopShare({ windowMs: 0, utilization: () => 1, onHold: () => holds++ });
    const conns = sockets(10);
    for (let w = 0; w < 50; w++) {
      calls(share, 'noisy', 500, conns);
      share.tick();
    }
    expect(holds).toBe(0);
    expect(conns.some((c) => c.paused)).toBe(false);
  });

  it('holds the heaviest of two keys while the loop is contended, never the other, and reads it again next window', () => {
    let busy = 1;
    const share = new LoopShare({ windowMs: 0, utilization: () => busy });
    const noisy = sockets(10);
    const quiet = sockets(1);
    // First window: both call; the contended loop gives the noisy key a limit of 2/3 of its 300.
    calls(share, 'noisy', 300, noisy);
    calls(share, 'quiet', 3, quiet);
    share.tick();
    calls(share, 'noisy', 199, noisy);
    expect(noisy.some((c) => c.paused)).toBe(false);
    calls(share, 'noisy', 1, noisy);
    // Its 200th answer spent the window's limit: that connection is not read until the next window.
    expect(noisy.filter((c) => c.paused)).toHaveLength(1);
    for (const c of noisy) share.started('noisy')(c);
    expect(noisy.every((c) => c.paused)).toBe(true);
    calls(share, 'quiet', 3, quiet);
    expect(quiet[0]!.paused).toBe(false);
    // The next window reads every held connection again (the limit is above their number).
    busy = 0.2;
    share.tick();
    expect(noisy.some((c) => c.paused)).toBe(false);
  });

  it('cuts the limit while the loop stays contended, raises it when there is room, and drops it once it no longer binds', () => {
    let busy = 1;
    const share = new LoopShare({ windowMs: 0, utilization: () => busy });
    const noisy = sockets(4);
    const quiet = sockets(1);
    const limitNow = (): number => {
      // How many answers the noisy key finishes before one of its connections is held.
      for (const c of noisy) c.resume();
      let n = 0;
      while (!noisy.some((c) => c.paused) && n < 10_000) {
        calls(share, 'noisy', 1, noisy);
        n++;
      }
      return n;
    };
    calls(share, 'noisy', 900, noisy);
    calls(share, 'quiet', 1, quiet);
    share.tick();
    const first = limitNow();
    expect(first).toBe(600);
    calls(share, 'quiet', 1, quiet);
    share.tick();
    const cut = limitNow();
    expect(cut).toBe(400);
    busy = 0.3;
    share.tick();
    expect(limitNow()).toBeGreaterThan(cut);
    // A limit that binds nothing for a second of windows is dropped: no hold after that.
    for (let w = 0; w < 25; w++) {
      calls(share, 'noisy', 1, noisy);
      share.tick();
    }
    for (const c of noisy) c.resume();
    calls(share, 'noisy', 5000, noisy);
    expect(noisy.some((c) => c.paused)).toBe(false);
  });

  it('does not read a held connection that closed meanwhile, and reads every held one again when the server closes', () => {
    const share = new LoopShare({ windowMs: 0, utilization: () => 1 });
    const noisy = sockets(3);
    calls(share, 'noisy', 30, noisy);
    calls(share, 'quiet', 1, sockets(1));
    share.tick();
    calls(share, 'noisy', 30, noisy);
    expect(noisy.every((c) => c.paused)).toBe(true);
    noisy[0]!.destroyed = true;
    share.tick();
    expect(noisy.map((c) => c.paused)).toEqual([true, false, false]);
    calls(share, 'noisy', 30, noisy.slice(1));
    expect(noisy.every((c) => c.paused)).toBe(true);
    share.close();
    expect(noisy.slice(1).every((c) => !c.paused)).toBe(true);
  });
});
