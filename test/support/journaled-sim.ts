// A sim driver whose Macs outlive the process that drives them, as real Macs outlive a crash of the
// control plane: after every host operation that changes a VM (whether it succeeded or failed) the
// state of every sim Mac is written to a journal file (write + rename) before the operator hears
// back; opening the driver replays the journal into a fresh sim (each VM cloned again, booted if it
// was running). A host never knows less than the store says it did; it may know more (an operation
// that finished just before a kill), which is what the operator must reconcile. Used by the crash
// test (one process restarted) and the Kubernetes-mode test (a new leader opens it on takeover).
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Driver, Host, HostRef } from '../../hosts/driver.ts';
import { createSimDriver } from '../../hosts/sim/index.ts';

export const SIM_TIMINGS = {
  cloneMs: 15,
  bootMs: 25,
  resizeMs: 5,
  stopMs: 10,
  deleteMs: 10,
  exportMs: 10,
  importMs: 10,
};
const MUTATING = new Set(['createVm', 'resizeVm', 'startVm', 'stopVm', 'deleteVm', 'importDelta']);

interface JournalVm {
  name: string;
  image: string;
  cpu: number;
  memoryGiB: number;
  state: string;
}
type Journal = Record<string, { ref: HostRef; vms: JournalVm[] }>;

export type JournaledSim = Driver & {
  addresses(): string[];
  inspect: ReturnType<typeof createSimDriver>['inspect'];
};

export async function journaledSim(
  file: string,
): Promise<Driver & { addresses(): string[]; inspect: ReturnType<typeof createSimDriver>['inspect'] }> {
  const sim = createSimDriver({ timings: SIM_TIMINGS });
  const refs = new Map<string, HostRef>();
  const save = () => {
    const journal: Journal = {};
    for (const [address, ref] of refs) {
      const vms = sim.inspect(address)?.vms ?? [];
      journal[address] = {
        ref,
        vms: vms.map(({ name, image, cpu, memoryGiB, state }) => ({ name, image, cpu, memoryGiB, state })),
      };
    }
    writeFileSync(`${file}.tmp`, JSON.stringify(journal));
    renameSync(`${file}.tmp`, file);
  };
  if (existsSync(file)) {
    const journal = JSON.parse(readFileSync(file, 'utf8')) as Journal;
    for (const { ref, vms } of Object.values(journal)) {
      refs.set(ref.address, ref);
      const host = sim.host(ref);
      for (const vm of vms) await host.createVm(vm);
      // Only a completed start counts: `starting` had not answered yet, `stopping` had not finished.
      for (const vm of vms)
        if (vm.state === 'running' || vm.state === 'stopping') await host.startVm(vm.name);
    }
  }
  const wrap = (host: Host): Host =>
    new Proxy(host, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const fn = value as (...args: unknown[]) => unknown;
        if (!MUTATING.has(String(prop))) return fn.bind(target);
        return async (...args: unknown[]) => {
          try {
            return await fn.apply(target, args);
          } finally {
            save();
          }
        };
      },
    });
  return {
    kind: 'sim',
    host(ref) {
      const fresh = !refs.has(ref.address);
      refs.set(ref.address, ref);
      const host = wrap(sim.host(ref));
      if (fresh) save();
      return host;
    },
    close: () => sim.close(),
    addresses: () => sim.addresses(),
    inspect: (address) => sim.inspect(address),
  };
}
