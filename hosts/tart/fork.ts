// What the tart driver does for forks and pauses (docs/api.md, Fork; Pause and resume).
//
// Fork: the source's guest flushes its writes (`sync`), then `tart clone` copies its VM directory
// (APFS clonefile: copy-on-write, near instant, whatever the disk's size) while it runs on; the clone
// gets a MAC address of its own (`--random-mac`: two VMs on one Mac's network must not share one)
// and the fork's size. The disk is as of the sync, what a power cut would leave; the clone boots
// cold. Tart keeps a suspended VM's MAC in its clones (so that the saved memory state restores) and
// only one of them could run at a time: memory is not forked.
//
// Pause: `tart suspend` saves a VM's memory to disk and `tart run` restores it, but only for a VM
// started with `--suspendable`, and the driver starts its VMs without it (Tart's suspendable VMs
// give up audio and, before macOS 14, other devices). So the tart driver refuses pause by name.
import { DriverError, type VmCreateSpec } from '../driver.ts';
import { shellQuote } from '../linux/ssh-client.ts';
import { vmDirWord, type Mac } from './mac.ts';
import { tartError } from './tart-errors.ts';

/** Why a Mac's VMs cannot be paused (the API answers it with 501 `feature_not_supported`). */
export const PAUSE_UNSUPPORTED =
  'the tart driver starts VMs without --suspendable, and `tart suspend` (what a pause of a Mac VM is) needs it';

export function pauseUnsupported(): DriverError {
  return new DriverError('not_supported', PAUSE_UNSUPPORTED, 'tart suspend');
}

/**
 * Clones `source` (stopped, or running with its writes flushed) as `spec.name`, sized as asked with a
 * MAC address of its own, and records its image as createVm does (no pristine mark: it is not a
 * fresh clone a delta could be applied onto).
 */
export async function cloneForFork(
  mac: Mac,
  source: string,
  spec: VmCreateSpec,
  setArgs: string[],
  imageFile: string,
): Promise<void> {
  await mac.tart(['clone', source, spec.name], 600_000);
  await mac.tart(['set', spec.name, ...setArgs, '--random-mac']);
  const r = await mac.sh(`printf '%s\\n' ${shellQuote(spec.image)} > ${vmDirWord(spec.name)}/${imageFile}`);
  if (r.code !== 0) throw tartError('record image', r.code, r.stderr);
}
