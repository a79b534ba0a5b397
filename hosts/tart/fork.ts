// What the tart driver does for forks (docs/api.md, Fork).
//
// Fork: the source's guest flushes its writes (`sync`), then `tart clone` copies its VM directory
// (APFS clonefile: copy-on-write, near instant, whatever the disk's size) while it runs on; the clone
// gets a MAC address of its own (`--random-mac`: two VMs on one Mac's network must not share one)
// and the fork's size. The disk is as of the sync, what a power cut would leave; the clone boots
// cold. Tart keeps a suspended VM's MAC in its clones (so that the saved memory state restores) and
// only one of them could run at a time: memory is not forked.
import type { VmCreateSpec } from '../driver.ts';
import { shellQuote } from '../linux/ssh-client.ts';
import { vmDirWord, type Mac } from './mac.ts';
import { tartError } from './tart-errors.ts';

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
