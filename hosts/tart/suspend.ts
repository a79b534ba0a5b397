// Pause and resume of a Mac VM (docs/api.md, Pause and resume; docs/mac.md): Tart's suspend.
//
// `tart suspend NAME` sends SIGUSR1 to the VM's `tart run`, which pauses the VM, saves its memory to
// `state.vzvmsave` in the VM's directory and exits 0 (cirruslabs/tart Commands/Suspend.swift and
// Run.swift); `tart get` then says `suspended`. The next `tart run` restores the saved state and the
// VM goes on where it was, with a new VNC server (a new line in the run log). Only a VM run with
// `--suspendable` can be saved: the run of any other VM fails the save and exits 1, taking the VM
// down. So the driver runs every VM suspendable and marks it so in its directory, and refuses to
// suspend a VM without the mark (one started by an earlier sandbay) instead of losing it.
import { DriverError } from '../driver.ts';
import { pollTartGet, tartLine, vmDirWord, type Mac } from './mac.ts';
import { tartError } from './tart-errors.ts';

/** In a VM's directory: its `tart run` has `--suspendable` (written by the driver at each run). */
export const SUSPENDABLE_FILE = 'sandbay-suspendable';
/**
 * How long Tart may take to save a VM's memory (its whole memory, up to 24 GiB, written to the
 * Mac's SSD) until `tart run` has exited. Not measured on a Mac: _no real Mac_.
 */
export const SUSPEND_TIMEOUT_S = 180;

/** Whether the VM's current run can be suspended (its directory has the mark). */
export async function isSuspendable(mac: Mac, name: string): Promise<boolean> {
  return (await mac.sh(`test -e ${vmDirWord(name)}/${SUSPENDABLE_FILE}`)).code === 0;
}

export function notSuspendable(name: string): DriverError {
  return new DriverError(
    'not_supported',
    `VM ${name} was started without --suspendable (by an earlier sandbay), so \`tart suspend\` would ` +
      'lose it: it can be paused once it has been started again',
    'tart suspend',
  );
}

/**
 * `tart suspend`, then waits until `tart get` says the VM is suspended (its run exited after saving).
 * A run that ended without saving leaves the VM stopped: that is an error naming it.
 */
export async function suspendVm(mac: Mac, name: string, timeoutS = SUSPEND_TIMEOUT_S): Promise<void> {
  const r = await mac.sh(
    `${tartLine(['suspend', name])} || exit $?\n` +
      pollTartGet(name, `*'"State" : "suspended"'*) exit 0 ;; *'"Running" : false'*) exit 75 ;;`, timeoutS),
    (timeoutS + 30) * 1000,
  );
  if (r.code === 0) return;
  if (r.code === 75) {
    throw new DriverError(
      'command_failed',
      `VM ${name} stopped instead of suspending: \`tart run\` failed to save it`,
      'tart suspend',
    );
  }
  if (r.code === 124) {
    throw new DriverError('timeout', `VM ${name} was not suspended within ${timeoutS} s`, 'tart suspend');
  }
  throw tartError('tart suspend', r.code, r.stderr, r.stdout);
}
