// Holding a linux VM still: its cgroup frozen (the freezer), so that none of its processes runs,
// forks or touches a file, its memory kept. A pause keeps it so until the resume (the record says
// so, for a restarted driver: adopt.ts); a read of its disk (a delta, a fork's copy) freezes it only
// for the read, and leaves a paused VM paused. Callers hold the VM's lock.
import { DriverError } from '../driver.ts';
import type { VmEntry } from './vm-entry.ts';
import { saveRecord } from './vm-record.ts';

/** Runs `work` with the VM frozen when it runs (a paused VM already is, and stays so). */
export async function heldStill<T>(e: VmEntry, work: () => Promise<T>): Promise<T> {
  const frozen = e.record.state === 'running' && !e.record.paused ? e.cgroup : undefined;
  await frozen?.freeze();
  try {
    return await work();
  } finally {
    frozen?.thaw();
  }
}

/** Freezes a running VM and drops the driver's connections to it (nothing would answer on them). */
export async function pauseEntry(e: VmEntry): Promise<void> {
  if (e.record.state !== 'running')
    throw new DriverError('invalid_argument', `VM ${e.record.name} is not running`);
  if (e.record.paused) return;
  await e.cgroup.freeze();
  e.guest?.abandon?.();
  e.record = { ...e.record, paused: true };
  saveRecord(e.paths, e.record);
}

export function resumeEntry(e: VmEntry): void {
  if (!e.record.paused) return;
  e.cgroup.thaw();
  const { paused: _paused, ...rest } = e.record;
  e.record = rest;
  saveRecord(e.paths, e.record);
}
