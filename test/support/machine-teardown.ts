// vitest globalSetup: when the whole run ends, the machine is left as it was found. Every suite
// cleans up what it made, but a suite that crashes (or a killed run) leaves VM users, home mounts
// and cgroups behind for the next run to trip on; the reset removes whatever no live process holds
// and whose data dir is gone, so suites of other runs going on at the same time keep their VMs (a
// crashed driver's, which a restarted one adopts, too). `sandbay host reset` takes all of them.
// Emulated Macs whose test process is gone go too (a killed tart test's namespaces and guest users),
// and test browsers' network namespaces that no process is in.
import { resetMachine } from '../../hosts/linux/machine-reset.ts';
import { sweepAbandonedBrowserNamespaces } from './browser-namespace.ts';
import { sweepAbandonedMacs } from './emulated-mac/macs.ts';

export default function setup(): () => Promise<void> {
  return async () => {
    if (process.getuid?.() !== 0) return; // the linux driver (and so its leftovers) needs root
    const r = await resetMachine({ abandonedOnly: true });
    const removed = r.users.length + r.mounts.length + r.cgroups.length + r.claims.length;
    if (removed > 0) {
      process.stderr.write(
        `machine reset after the run: ${r.users.length} VM users, ${r.mounts.length} mounts, ` +
          `${r.cgroups.length} cgroups, ${r.claims.length} stale claims removed\n`,
      );
    }
    const macs = await sweepAbandonedMacs();
    if (macs.length > 0)
      process.stderr.write(`machine reset after the run: ${macs.length} emulated Macs removed\n`);
    const browsers = sweepAbandonedBrowserNamespaces();
    if (browsers.length > 0)
      process.stderr.write(
        `machine reset after the run: ${browsers.length} test browser namespaces removed\n`,
      );
  };
}
