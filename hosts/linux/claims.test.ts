import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlotRegistry, bootId, currentOwner, ownerAlive, type SlotClaim } from './claims.ts';

let dir: string;
let slots: SlotRegistry;
const what = (vm: string) => ({ dataDir: '/data/x', host: 'h', vm, mounts: [] });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbay-claims-'));
  slots = new SlotRegistry(dir, 3);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('machine-wide slot claims', () => {
  it('hands out the lowest free slot, each once, until none is left', () => {
    expect([
      slots.claim(what('a'))?.slot,
      slots.claim(what('b'))?.slot,
      slots.claim(what('c'))?.slot,
    ]).toEqual([1, 2, 3]);
    expect(slots.claim(what('d'))).toBeUndefined();
    slots.release(slots.read(2)!);
    expect(slots.claim(what('e'))?.slot).toBe(2);
  });

  it('releases only a claim that is still the one released', () => {
    const a = slots.claim(what('a'))!;
    slots.release({ ...a, vm: 'someone-else' });
    expect(slots.read(1)?.vm).toBe('a');
  });

  it('knows a live owner from a dead one (PID reuse and reboots included)', () => {
    const me = currentOwner();
    expect(ownerAlive(me)).toBe(true);
    expect(ownerAlive({ ...me, pidStart: me.pidStart + 1 })).toBe(false);
    expect(ownerAlive({ ...me, bootId: 'another-boot' })).toBe(false);
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets exactly one taker have a stale claim, and none a live one', () => {
    const live = slots.claim(what('live'))!;
    expect(slots.takeStale(live)).toBeUndefined();
    expect(slots.read(1)).toEqual(live);
    const dead: SlotClaim = { ...what('dead'), slot: 2, pid: 1, pidStart: 1, bootId: 'gone' };
    writeFileSync(slots.file(2), JSON.stringify(dead));
    expect(slots.takeStale(dead)).toEqual(dead);
    expect(slots.takeStale(dead)).toBeUndefined();
    expect(() => readFileSync(slots.file(2))).toThrow();
    expect(slots.claim(what('next'))?.slot).toBe(2);
  });
});
