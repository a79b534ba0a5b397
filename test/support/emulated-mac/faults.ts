// Test-only fault knobs of an emulated Mac: files in `$SANDBAY_EMULATED_MAC/faults/` that a test
// creates and the emulated `tart` reads. Absent, the emulation keeps Tart's contract unchanged;
// present, they bend it only in ways a real Mac does: a `tart run` that never prints its VNC line
// (a VM stuck before Virtualization.framework starts its VNC server), and a `tart clone` that takes
// as long as the test wants (a large image on a slow disk), so that a Mac can be cut mid-clone.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FAULTS = {
  /** One `tart run` takes it (rename: exactly one) and never prints its VNC line. */
  withholdVncLine: 'withhold-vnc-line',
  /** While it exists, `tart clone` waits before the clone takes the VM's name. */
  holdClone: 'hold-clone',
  /** Written by a `tart clone` that waits on `hold-clone` (its pid), removed when it goes on. */
  cloneHeld: 'clone-held',
} as const;
export type Fault = (typeof FAULTS)[keyof typeof FAULTS];

/** `faults/<name>` of the Mac whose directory is `macDir`. */
export function faultFile(macDir: string, name: Fault): string {
  return join(macDir, 'faults', name);
}

/** Sets a knob (tests, from outside the Mac). */
export function setFault(macDir: string, name: Fault): void {
  mkdirSync(join(macDir, 'faults'), { recursive: true });
  writeFileSync(faultFile(macDir, name), '');
}

export function clearFault(macDir: string, name: Fault): void {
  rmSync(faultFile(macDir, name), { force: true });
}

/** The Mac the emulated `tart` runs on (its `SANDBAY_EMULATED_MAC`), if any. */
/**
 * This process's pid as the machine sees it: in a PID namespace of its own (an emulated VM's keeper)
 * NSpid leads with the machine's view.
 */
function machinePid(): number {
  const m = /^NSpid:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : process.pid;
}

function macDir(): string | undefined {
  return process.env.SANDBAY_EMULATED_MAC;
}

/**
 * Takes a one-shot knob: true for exactly one caller (the rename is atomic), which leaves
 * `<name>.taken-<pid>` behind as the record of who took it (`pid`: this process, or the one it
 * acts for, as a VM's keeper for its `tart run`).
 */
export function takeFault(name: Fault, pid = machinePid()): boolean {
  const dir = macDir();
  if (!dir || !existsSync(faultFile(dir, name))) return false;
  try {
    renameSync(faultFile(dir, name), `${faultFile(dir, name)}.taken-${pid}`);
    return true;
  } catch {
    return false; // another process took it first
  }
}

/** Waits while `hold-clone` exists, with `clone-held` saying so. */
export async function waitWhileCloneHeld(): Promise<void> {
  const dir = macDir();
  if (!dir || !existsSync(faultFile(dir, FAULTS.holdClone))) return;
  writeFileSync(faultFile(dir, FAULTS.cloneHeld), String(process.pid));
  try {
    while (existsSync(faultFile(dir, FAULTS.holdClone))) await new Promise((r) => setTimeout(r, 50));
  } finally {
    rmSync(faultFile(dir, FAULTS.cloneHeld), { force: true });
  }
}
