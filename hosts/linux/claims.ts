// Machine-wide claims, because VM users, loopback addresses and ports are machine-wide while several
// drivers (a server, test suites, benches) may run at once, each with its own data dir. A VM claims a
// slot N (user sbvmN, address 198.19.N.2) by atomically hard-linking a complete record to
// `<globalDir>/slots/N.json`; the link fails if the slot is taken. A claim whose owning process is
// gone (pid + start time + boot id) is stale and may be taken over, again atomically (rename).
import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export interface ClaimOwner {
  pid: number;
  /** Start time of `pid` in clock ticks since boot (/proc/PID/stat field 22): guards PID reuse. */
  pidStart: number;
  bootId: string;
}

export interface SlotClaim extends ClaimOwner {
  slot: number;
  dataDir: string;
  host: string;
  vm: string;
  /** Mount points of the VM, so that whoever reclaims a stale slot can unmount them. */
  mounts: string[];
  /** The driver's userPrefix (the slot's user is `<userPrefix><slot>`); absent in older claims: `sbvm`. */
  userPrefix?: string;
}

export function currentOwner(): ClaimOwner {
  return ownerOf(process.pid)!; // this process runs: its /proc entry is there
}

/** The claim owner record of a running process (undefined when no such process runs). */
export function ownerOf(pid: number): ClaimOwner | undefined {
  const pidStart = pidStartTime(pid);
  return pidStart === undefined ? undefined : { pid, pidStart, bootId: bootId() };
}

export function bootId(): string {
  return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
}

function pidStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return undefined;
  }
}

/** Whether the process that made a claim still runs (same boot, same PID, same start time). */
/** The user prefix of the driver that made `c`: a slot is swept and reset only by drivers of its prefix. */
export function claimPrefix(c: Pick<SlotClaim, 'userPrefix'>): string {
  return c.userPrefix ?? 'sbvm';
}

export function ownerAlive(o: ClaimOwner): boolean {
  return o.bootId === bootId() && pidStartTime(o.pid) === o.pidStart;
}

/** Atomically creates `file` holding `record`; false when it already exists. */
export function createExclusive(file: string, record: unknown): boolean {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 });
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/** Replaces `file`'s content atomically (for a claim we already hold). */
export function replaceFile(file: string, record: unknown): void {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 });
  renameSync(tmp, file);
}

export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Takes a stale claim file away from its dead owner: exactly one of several contenders gets the
 * record back (the rename), and only if it is still the stale record that was looked at.
 */
export function takeOver<T extends ClaimOwner>(file: string, seen: T): T | undefined {
  const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(file, aside);
  } catch {
    return undefined;
  }
  const got = readJson<T>(aside);
  if (!got || got.pid !== seen.pid || got.pidStart !== seen.pidStart || ownerAlive(got)) {
    // Someone re-claimed it in between: put it back untouched.
    renameSync(aside, file);
    return undefined;
  }
  unlinkSync(aside);
  return got;
}

export class SlotRegistry {
  readonly dir: string;
  readonly maxSlot: number;

  constructor(globalDir: string, maxSlot = 254) {
    this.dir = join(globalDir, 'slots');
    this.maxSlot = maxSlot;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
  }

  file(slot: number): string {
    return join(this.dir, `${slot}.json`);
  }

  read(slot: number): SlotClaim | undefined {
    return readJson<SlotClaim>(this.file(slot));
  }

  /** Every claim on the machine. */
  all(): SlotClaim[] {
    const out: SlotClaim[] = [];
    for (const n of readdirSync(this.dir)) {
      const m = /^(\d+)\.json$/.exec(n);
      if (!m) continue;
      const c = this.read(Number(m[1]));
      if (c) out.push(c);
    }
    return out;
  }

  /** Claims the lowest free slot; undefined when every slot is held. */
  claim(what: Omit<SlotClaim, 'slot' | keyof ClaimOwner>): SlotClaim | undefined {
    const owner = currentOwner();
    for (let slot = 1; slot <= this.maxSlot; slot++) {
      const record: SlotClaim = { ...what, ...owner, slot };
      if (createExclusive(this.file(slot), record)) return record;
    }
    return undefined;
  }

  /** Rewrites a claim we hold (new owner pid after adoption, new mounts). */
  update(claim: SlotClaim): SlotClaim {
    const next = { ...claim, ...currentOwner() };
    replaceFile(this.file(claim.slot), next);
    return next;
  }

  /** Releases a claim if it is still ours. */
  release(claim: SlotClaim): void {
    const cur = this.read(claim.slot);
    if (cur && cur.dataDir === claim.dataDir && cur.host === claim.host && cur.vm === claim.vm) {
      try {
        unlinkSync(this.file(claim.slot));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }

  /** Takes a stale claim off the books; the caller then cleans up what it names. */
  takeStale(claim: SlotClaim): SlotClaim | undefined {
    return takeOver(this.file(claim.slot), claim);
  }
}
