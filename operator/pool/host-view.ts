// What the pool knows of one host during a reconcile: its VMs as `listVms()` reported them, kept
// up to date as the reconcile starts, stops and deletes them, and the running total the invariant
// of behavior rule 6 is checked against before every start.
import type { Host, VmCreateSpec, VmInfo } from '../../hosts/driver.ts';

export interface Size {
  cpu: number;
  memoryGiB: number;
}

export class HostView {
  readonly host: Host;
  readonly capacity: Size;
  readonly #vms = new Map<string, VmInfo>();

  constructor(host: Host, capacity: Size, vms: VmInfo[]) {
    this.host = host;
    this.capacity = capacity;
    for (const vm of vms) this.#vms.set(vm.name, vm);
  }

  get(name: string): VmInfo | undefined {
    return this.#vms.get(name);
  }

  names(): string[] {
    return [...this.#vms.keys()];
  }

  /** What the running VMs hold now. */
  running(except?: string): Size {
    let cpu = 0;
    let memoryGiB = 0;
    for (const vm of this.#vms.values()) {
      if (vm.state !== 'running' || vm.name === except) continue;
      cpu += vm.cpu;
      memoryGiB += vm.memoryGiB;
    }
    return { cpu, memoryGiB };
  }

  /** True when `name` may run at `size` beside the other running VMs. */
  roomFor(name: string, size: Size): boolean {
    const used = this.running(name);
    return (
      used.cpu + size.cpu <= this.capacity.cpu && used.memoryGiB + size.memoryGiB <= this.capacity.memoryGiB
    );
  }

  set(info: VmInfo): void {
    this.#vms.set(info.name, info);
  }

  async start(name: string): Promise<VmInfo> {
    const info = await this.host.startVm(name);
    this.#vms.set(name, info);
    return info;
  }

  async stop(name: string): Promise<void> {
    const vm = this.#vms.get(name);
    if (vm?.state !== 'running') return;
    await this.host.stopVm(name);
    this.#vms.set(name, { ...vm, state: 'stopped' });
  }

  async remove(name: string): Promise<void> {
    await this.host.deleteVm(name);
    this.#vms.delete(name);
  }

  async resize(name: string, size: Size): Promise<void> {
    const vm = this.#vms.get(name);
    if (vm && vm.cpu === size.cpu && vm.memoryGiB === size.memoryGiB) return;
    await this.host.resizeVm(name, size);
    if (vm) this.#vms.set(name, { ...vm, ...size });
  }

  async clone(spec: VmCreateSpec): Promise<VmInfo> {
    const info = await this.host.createVm(spec);
    this.#vms.set(info.name, info);
    return info;
  }

  /** `spec.name` made anew with `source`'s disk (a VM of this host; Host.forkVm). */
  async fork(source: string, spec: VmCreateSpec): Promise<VmInfo> {
    const info = await this.host.forkVm(source, spec);
    this.#vms.set(info.name, info);
    return info;
  }
}
