// One sim Mac: VMs in memory with the state checks a real host makes. Operations on one VM are
// serialized (as Tart serializes them per VM); each takes its configured time on the driver's clock;
// a host marked failed answers nothing (`unreachable`), including an operation already waiting, which
// then has no effect. Running VMs never add up to more cores, memory or VMs than the Mac has.
import { MAC_PROFILES, type EgressPolicy, type EgressSupport, type MacModel } from '../../crds/index.ts';
import {
  DriverError,
  type DeltaInfo,
  type Guest,
  type Host,
  type HostImage,
  type HostInfo,
  type VmCreateSpec,
  type VmInfo,
} from '../driver.ts';
import { SimDisk } from './disk.ts';
import { readDelta, writeDelta } from './delta.ts';
import type { SimOp } from './faults.ts';
import { SimGuest } from './guest.ts';
import { stopAll } from './recordings.ts';
import type { SimContext } from './options.ts';
import { SimVm } from './vm.ts';

const NAME = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

export class SimHost implements Host {
  readonly address: string;
  readonly model: MacModel;
  readonly images: HostImage[];
  readonly maxVms: number;
  readonly ctx: SimContext;
  readonly egress: EgressSupport;
  readonly #vms = new Map<string, SimVm>();
  readonly #locks = new Map<string, Promise<unknown>>();
  #ipSeq = 0;
  /** When the host booted, as `sysctl kern.boottime` tells on a Mac: a reboot changes it. */
  #bootMs: number;

  constructor(
    address: string,
    model: MacModel,
    images: HostImage[],
    maxVms: number,
    ctx: SimContext,
    egress: EgressSupport,
  ) {
    this.address = address;
    this.egress = egress;
    this.model = model;
    this.images = images;
    this.maxVms = maxVms;
    this.ctx = ctx;
    this.#bootMs = ctx.clock.now();
  }

  async info(): Promise<HostInfo> {
    this.#enter('info');
    const p = MAC_PROFILES[this.model];
    const images = this.images.map((i) => ({ ...i }));
    return {
      model: this.model,
      cores: p.cores,
      memoryGiB: p.memoryGiB,
      diskGiB: p.diskGiB,
      images,
      maxVms: this.maxVms,
      bootedAt: new Date(this.#bootMs).toISOString(),
      egress: this.egress,
    };
  }

  async listVms(): Promise<VmInfo[]> {
    this.#enter('listVms');
    return [...this.#vms.values()].map((vm) => vm.info()).sort((a, b) => a.name.localeCompare(b.name));
  }

  async createVm(spec: VmCreateSpec): Promise<VmInfo> {
    this.#enter('createVm');
    this.#validateCreate(spec);
    return this.#lock(spec.name, async () => {
      await this.#discardOld(spec.name, 'createVm');
      await this.#wait(this.ctx.timings.cloneMs, 'createVm');
      const vm = new SimVm(spec.name, spec.image, spec.cpu, spec.memoryGiB);
      this.#vms.set(vm.name, vm);
      return vm.info();
    });
  }

  /** The source's disk as it is once the copy's time has passed (the source held still meanwhile). */
  async forkVm(source: string, spec: VmCreateSpec): Promise<VmInfo> {
    this.#enter('forkVm');
    this.#validateCreate(spec);
    const from = this.#get(source);
    if (from.image !== spec.image) {
      throw new DriverError('invalid_argument', `VM ${source} runs ${from.image}, not ${spec.image}`);
    }
    return this.#lock(spec.name, () =>
      this.#lock(source, async () => {
        await this.#discardOld(spec.name, 'forkVm');
        await this.#wait(this.ctx.timings.forkMs, 'forkVm');
        const vm = new SimVm(spec.name, spec.image, spec.cpu, spec.memoryGiB);
        const disk = this.#get(source).disk?.copy();
        if (disk) vm.disk = disk;
        this.#vms.set(vm.name, vm);
        return vm.info();
      }),
    );
  }

  async pauseVm(name: string): Promise<void> {
    this.#enter('pauseVm');
    await this.#lock(name, async () => {
      const vm = this.#get(name);
      if (vm.state !== 'running') throw new DriverError('invalid_argument', `VM ${name} is not running`);
      if (vm.paused) return;
      await this.#wait(this.ctx.timings.pauseMs, 'pauseVm');
      vm.paused = true;
    });
  }

  async resumeVm(name: string): Promise<void> {
    this.#enter('resumeVm');
    await this.#lock(name, async () => {
      const vm = this.#get(name);
      if (!vm.paused) return;
      await this.#wait(this.ctx.timings.resumeMs, 'resumeVm');
      vm.paused = false;
    });
  }

  async resizeVm(name: string, size: { cpu: number; memoryGiB: number }): Promise<void> {
    this.#enter('resizeVm');
    this.#validateSize(size);
    await this.#lock(name, async () => {
      const vm = this.#get(name);
      if (vm.state !== 'stopped')
        throw new DriverError('invalid_argument', `VM ${name} must be stopped to resize`);
      await this.#wait(this.ctx.timings.resizeMs, 'resizeVm');
      vm.cpu = size.cpu;
      vm.memoryGiB = size.memoryGiB;
    });
  }

  async startVm(name: string): Promise<VmInfo> {
    this.#enter('startVm');
    return this.#lock(name, async () => {
      const vm = this.#get(name);
      if (vm.state === 'running') return vm.info();
      this.#checkRoom(vm);
      vm.state = 'starting';
      try {
        await this.#wait(this.ctx.timings.bootMs, 'startVm');
      } catch (e) {
        vm.state = 'stopped';
        throw e;
      }
      vm.state = 'running';
      vm.ip ??= this.#nextIp();
      vm.egress = { mode: this.egress.default, allow: [] };
      return vm.info();
    });
  }

  async setEgress(name: string, policy: EgressPolicy): Promise<void> {
    this.#enter('setEgress');
    if (!this.egress.modes.includes(policy.mode)) {
      throw new DriverError(
        'invalid_argument',
        `egress mode "${policy.mode}" is refused: ${this.egress.refusal}`,
      );
    }
    await this.#lock(name, async () => {
      const vm = this.#get(name);
      if (vm.state !== 'running') throw new DriverError('not_found', `VM ${name} is not running`);
      vm.egress = { mode: policy.mode, allow: [...policy.allow] };
    });
  }

  async stopVm(name: string): Promise<void> {
    this.#enter('stopVm');
    await this.#lock(name, async () => {
      const vm = this.#get(name);
      if (vm.state === 'stopped') return;
      vm.state = 'stopping';
      try {
        await this.#wait(this.ctx.timings.stopMs, 'stopVm');
      } catch (e) {
        vm.state = 'running';
        throw e;
      }
      this.#powerOff(vm);
    });
  }

  /** Idempotent, like the linux driver: deleting a VM that does not exist succeeds. */
  async deleteVm(name: string): Promise<void> {
    this.#enter('deleteVm');
    await this.#lock(name, async () => {
      const vm = this.#vms.get(name);
      if (!vm) return;
      await this.#wait(this.ctx.timings.deleteMs, 'deleteVm');
      this.#discard(vm);
    });
  }

  async exportDelta(name: string, file: string): Promise<DeltaInfo> {
    this.#enter('exportDelta');
    return this.#lock(name, async () => {
      const vm = this.#get(name);
      await this.#wait(this.ctx.timings.exportMs, 'exportDelta');
      return writeDelta(vm.disk, vm.image, file);
    });
  }

  async importDelta(name: string, file: string): Promise<void> {
    this.#enter('importDelta');
    await this.#lock(name, async () => {
      const vm = this.#get(name);
      if (vm.state !== 'stopped')
        throw new DriverError('invalid_argument', `VM ${name} must be stopped to import a delta`);
      const delta = await readDelta(file, vm.image);
      await this.#wait(this.ctx.timings.importMs, 'importDelta');
      vm.disk ??= new SimDisk();
      for (const dir of delta.dirs) vm.disk.mkdirp(dir);
      for (const [path, data] of delta.files) vm.disk.write(path, data);
    });
  }

  guest(name: string): Guest {
    if (this.ctx.isClosed()) throw new DriverError('unreachable', 'the sim driver is closed', 'guest');
    this.ctx.faults.throwIfUnreachable(this.address, 'guest');
    this.runningVm(name);
    return new SimGuest(this, name);
  }

  // ---- for the guest half and the driver's controls ----

  /** The running VM `name`; throws `not_found` otherwise, and `timeout` while it is paused (frozen). */
  runningVm(name: string): SimVm {
    const vm = this.#get(name);
    if (vm.state !== 'running') throw new DriverError('not_found', `VM ${name} is not running`);
    if (vm.paused) throw new DriverError('timeout', `VM ${name} is paused: nothing in it answers`);
    return vm;
  }

  /** A guest call: the host answers, no injected failure, the VM runs; marks activity. */
  enterGuest(name: string, op: SimOp): SimVm {
    this.#enter(op);
    const vm = this.runningVm(name);
    vm.lastActivityMs = this.ctx.clock.now();
    return vm;
  }

  /** Power loss: every VM stops at once, as after a host crash, and the host boots again. */
  powerLoss(): void {
    for (const vm of this.#vms.values()) this.#powerOff(vm);
    // A new boot time even when the (fake) clock has not moved: a reboot is what the probe sees.
    this.#bootMs = Math.max(this.ctx.clock.now(), this.#bootMs + 1000);
  }

  vm(name: string): SimVm | undefined {
    return this.#vms.get(name);
  }

  vms(): SimVm[] {
    return [...this.#vms.values()];
  }

  // ---- internals ----

  #enter(op: SimOp): void {
    if (this.ctx.isClosed()) throw new DriverError('unreachable', 'the sim driver is closed', op);
    this.ctx.faults.check(this.address, op);
  }

  /** Waits an operation's time; a host that failed meanwhile answers nothing. */
  async #wait(ms: number, op: SimOp): Promise<void> {
    await this.ctx.wait(ms);
    this.ctx.faults.throwIfUnreachable(this.address, op);
  }

  #get(name: string): SimVm {
    const vm = this.#vms.get(name);
    if (!vm) throw new DriverError('not_found', `no VM ${name} on host ${this.address}`);
    return vm;
  }

  #validateCreate(spec: VmCreateSpec): void {
    if (typeof spec.name !== 'string' || !NAME.test(spec.name)) {
      throw new DriverError(
        'invalid_argument',
        `bad VM name ${JSON.stringify(spec.name)}: lowercase letters, digits, '.', '-'`,
      );
    }
    if (!this.images.some((i) => i.name === spec.image)) {
      throw new DriverError('not_found', `image ${spec.image} is not on host ${this.address}`);
    }
    this.#validateSize(spec);
  }

  /** A VM of this name is thrown away before another takes the name (createVm, forkVm). */
  async #discardOld(name: string, op: SimOp): Promise<void> {
    const old = this.#vms.get(name);
    if (!old) return;
    await this.#wait(this.ctx.timings.deleteMs, op);
    this.#discard(old);
  }

  #validateSize(size: { cpu: number; memoryGiB: number }): void {
    const p = MAC_PROFILES[this.model];
    if (!Number.isInteger(size.cpu) || size.cpu < 1 || size.cpu > p.cores) {
      throw new DriverError(
        'invalid_argument',
        `cpu must be an integer from 1 to ${p.cores}, got ${size.cpu}`,
      );
    }
    if (!Number.isInteger(size.memoryGiB) || size.memoryGiB < 1 || size.memoryGiB > p.memoryGiB) {
      throw new DriverError(
        'invalid_argument',
        `memoryGiB must be an integer from 1 to ${p.memoryGiB}, got ${size.memoryGiB}`,
      );
    }
  }

  /** Running VMs never add up to more vCPU, memory or VMs than the Mac has. */
  #checkRoom(vm: SimVm): void {
    const p = MAC_PROFILES[this.model];
    let cpu = vm.cpu;
    let mem = vm.memoryGiB;
    let count = 1;
    for (const other of this.#vms.values()) {
      if (other === vm || !other.holdsResources) continue;
      cpu += other.cpu;
      mem += other.memoryGiB;
      count++;
    }
    if (count > this.maxVms) {
      throw new DriverError(
        'capacity',
        `starting ${vm.name} would run ${count} VMs; host ${this.address} runs at most ${this.maxVms}`,
      );
    }
    if (cpu > p.cores || mem > p.memoryGiB) {
      throw new DriverError(
        'capacity',
        `starting ${vm.name} would use ${cpu} of ${p.cores} cores and ${mem} of ${p.memoryGiB} GiB`,
      );
    }
  }

  #powerOff(vm: SimVm): void {
    vm.state = 'stopped';
    vm.egress = undefined;
    vm.paused = false;
    stopAll(vm.guest?.recordings, this.ctx.clock.now());
    vm.guest?.network.powerOff();
  }

  #discard(vm: SimVm): void {
    vm.state = 'stopped';
    vm.paused = false;
    vm.guest?.network.powerOff();
    this.#vms.delete(vm.name);
  }

  /** Tart's shared network hands out 192.168.64.x; the sim never connects to it. */
  #nextIp(): string {
    const n = this.#ipSeq++ % 250;
    return `192.168.64.${n + 2}`;
  }

  /** Serializes operations on one VM name. */
  #lock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(name) ?? Promise.resolve();
    const run = previous.then(fn);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#locks.set(name, tail);
    void tail.then(() => {
      if (this.#locks.get(name) === tail) this.#locks.delete(name);
    });
    return run;
  }
}
