// Claims this process is writing right now. The scheduler reads the informer cache; between
// choosing a VM and the cache showing the claim, another reconcile in this process could choose
// the same VM and lose the conditional write. Overlaying the claims in flight avoids that wasted
// round (kube-scheduler's "assume"). Correctness never depends on it: the conditional write of
// `VM.spec.sandbox` is what makes a double claim impossible, across processes too.
import type { VM } from '../../crds/index.ts';

export class ClaimsInFlight {
  readonly #byVm = new Map<string, string>();

  assume(vm: string, sandbox: string): void {
    this.#byVm.set(vm, sandbox);
  }

  forget(vm: string): void {
    this.#byVm.delete(vm);
  }

  /** The VMs as the scheduler should see them: claims in flight already written. */
  overlay(vms: VM[]): VM[] {
    if (this.#byVm.size === 0) return vms;
    return vms.map((vm) => {
      const sandbox = this.#byVm.get(vm.metadata.name);
      return sandbox === undefined || vm.spec.sandbox !== undefined
        ? vm
        : { ...vm, spec: { ...vm.spec, sandbox } };
    });
  }
}
