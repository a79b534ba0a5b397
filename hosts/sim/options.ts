// Options of the sim driver: its clock, how long each host operation takes, and per-address host
// overrides. Defaults are small but shaped like a real Mac (boot is the slow part, resize is quick).
import type { EgressSupport, MacModel } from '../../crds/index.ts';
import type { HostImage } from '../driver.ts';
import type { Faults } from './faults.ts';

/** The operator's Clock shape (operator/runtime/clock.ts), so its FakeClock drives the sim too. */
export interface SimClock {
  now(): number;
  setTimer(delayMs: number, fn: () => void): { cancel(): void };
}

export interface SimTimings {
  cloneMs: number;
  bootMs: number;
  resizeMs: number;
  stopMs: number;
  deleteMs: number;
  exportMs: number;
  importMs: number;
  /** Copying a VM's disk for a fork (the source held still meanwhile). */
  forkMs: number;
  pauseMs: number;
  resumeMs: number;
}

export const DEFAULT_TIMINGS: SimTimings = {
  cloneMs: 300,
  bootMs: 800,
  resizeMs: 50,
  stopMs: 200,
  deleteMs: 100,
  exportMs: 400,
  importMs: 400,
  // Measured on the linux driver (bench/README.md): a desktop's disk copied in tens of ms, the
  // freezer's freeze and thaw in a few.
  forkMs: 60,
  pauseMs: 10,
  resumeMs: 5,
};

export interface SimHostOverride {
  /** Hardware model of the Mac at this address, whatever the HostRef says. */
  model?: MacModel;
  /** Images on the host (default: the 26.2 generation, split and whole). */
  images?: HostImage[];
  /** VMs the host runs at once (default 2, the macOS guest limit per host). */
  maxVms?: number;
  /** The egress policies the host enforces (default SIM_EGRESS: every mode, offline by default). */
  egress?: EgressSupport;
}

/** A sim Mac enforces every policy (it only records them); a VM is offline until its sandbox asks. */
export const SIM_EGRESS: EgressSupport = { default: 'none', modes: ['none', 'all', 'allow'], domains: true };

export interface SimDriverOptions {
  clock?: SimClock;
  timings?: Partial<SimTimings>;
  /** Per-address overrides. */
  hosts?: Record<string, SimHostOverride>;
  /** Guest screen size (default 1280×800). */
  display?: { width: number; height: number };
}

export const systemSimClock: SimClock = {
  now: () => Date.now(),
  setTimer(delayMs, fn) {
    const handle = setTimeout(fn, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};

/** What every host of one driver shares. */
export interface SimContext {
  clock: SimClock;
  timings: SimTimings;
  faults: Faults;
  display: { width: number; height: number };
  /** Waits on the clock; rejects with `unreachable` if the driver closes meanwhile. */
  wait(ms: number): Promise<void>;
  nextId(): number;
  isClosed(): boolean;
}
