// The lifecycle half of the linux driver: this machine as one "Mac" whose VMs are real Linux desktops.
//
// Consistency model: every operation on a VM runs under that VM's own lock (operations on one VM are
// serialized, different VMs proceed in parallel); creates additionally hold the host lock while they
// count and claim, so maxVms holds. The on-disk record of a VM is written after each state change,
// and the machine-wide slot claim is taken before anything else exists and released last, so a crash
// at any point leaves something the next start either adopts or sweeps (see `adopt.ts`).
import { IMAGES, macProfile } from '../../crds/mac-models.ts';
import { sameEgress, type EgressPolicy, type EgressSupport, type MacShape } from '../../crds/index.ts';
import {
  DriverError,
  type DeltaInfo,
  type Guest,
  type Host,
  type HostInfo,
  type VmCreateSpec,
  type VmInfo,
} from '../driver.ts';
import { adoptVms } from './adopt.ts';
import type { VmEntry } from './vm-entry.ts';
import { exportDelta, importDelta } from './delta.ts';
import { copyDisk } from './vm-fork.ts';
import { heldStill, pauseEntry, resumeEntry } from './vm-pause.ts';
import { Mutex, KeyedMutex } from './mutex.ts';
import type { ProcessTracker } from './runner.ts';
import { bootDesktop, powerOff, programPid, type DesktopProcess } from './vm-boot.ts';
import { claimSlot, destroyVmFiles, provisionVm, vmIsolation, type SetupContext } from './vm-setup.ts';
import { checkRoom, validateCreate, validateSize, vmInfo } from './vm-spec.ts';
import { vmRuntime } from './vm-runtime.ts';
import { saveRecord, stoppedRecord, type VmPaths, type VmRecord } from './vm-record.ts';
import { vmNamespaces, vmTempDirs } from './vm-mount-ns.ts';
import { DEFAULT_CPU_WEIGHT, type VmCgroup } from './cgroups.ts';
import { checkEgress } from './egress.ts';
import { putVmEgress, resumeVmDns, stopVmDns, type VmEgressContext } from './vm-egress.ts';

type GuestModule = typeof import('./guest.ts');

/**
 * A booting VM's CPU weight (the lowest): while it boots, the running VMs' processes win every
 * contended moment, so a pool's refill never sits in a tenant's exec (bench/client-view.ts: a fresh
 * sandbox's exec p99 19–40 ms → 8–13 ms on 2 cores). On an idle CPU the boot still gets it all.
 */
const BOOT_CPU_WEIGHT = 1;
/**
 * How long a boot yields at most: a busy neighbour would otherwise starve it for good. A desktop's
 * boot takes ~1.2 s on a quiet 2-core machine (bench/clone.ts), and a claimed sandbox's first calls
 * come in those seconds; past this a slow boot competes as any VM does.
 */
const BOOT_YIELD_MS = 3000;

export interface LinuxHostOptions {
  /** The Mac this host poses as: its model and, from its Mini, its VM slots (crds/mac-models.ts). */
  mac: MacShape;
  /** VMs the host may hold at once; default the Mac's slots (two unless its Mini sets `vmSlots`). */
  maxVms?: number;
  width: number;
  height: number;
  now: () => Date;
  log: (msg: string) => void;
  /** What the host enforces, from the operator's settings (egress.ts). */
  egress: EgressSupport;
  /** The resolvers the VMs' DNS answerers ask. */
  dnsUpstreams: string[];
}

export class LinuxHost implements Host {
  #ctx: SetupContext | undefined;
  readonly #opts: LinuxHostOptions;
  #mac: MacShape;
  readonly #tracker: ProcessTracker;
  readonly #vms = new Map<string, VmEntry>();
  readonly #vmLock = new KeyedMutex();
  readonly #hostLock = new Mutex();
  readonly #ready: Promise<void>;
  #guestModule: GuestModule | undefined;
  #guestLoadError: unknown;

  constructor(ctx: Promise<SetupContext>, tracker: ProcessTracker, opts: LinuxHostOptions) {
    this.#tracker = tracker;
    this.#opts = opts;
    this.#mac = opts.mac;
    this.#ready = ctx.then((c) => {
      this.#ctx = c;
      return this.#start();
    });
    // A failed start is reported by every call; it must not also be an unhandled rejection.
    this.#ready.catch(() => undefined);
  }

  /** Machine and driver settings; only read after the host is ready. */
  get ctx(): SetupContext {
    if (!this.#ctx) throw new DriverError('unreachable', 'linux host is still starting');
    return this.#ctx;
  }

  async #start(): Promise<void> {
    await this.#loadGuest();
    for (const entry of await adoptVms(this.ctx, this.#tracker, this.#opts.log)) {
      this.#vms.set(entry.record.name, entry);
      if (entry.record.state !== 'running') continue;
      this.#running(entry);
      // The policy's rules outlived the process in the VM's namespace; its DNS answerer did not.
      const policy = entry.record.egress;
      if (policy)
        await resumeVmDns(this.#egressCtx(entry), entry, policy).catch((e: unknown) =>
          this.#opts.log(String(e)),
        );
    }
  }

  async #loadGuest(): Promise<void> {
    if (this.#guestModule) return;
    try {
      this.#guestModule = await import('./guest.ts');
    } catch (e) {
      this.#guestLoadError = e;
    }
  }

  #profile() {
    return macProfile(this.#mac);
  }

  #maxVms(): number {
    return this.#opts.maxVms ?? this.#mac.vmSlots ?? 2;
  }

  /** The Mini was edited (its model or VM slots): the next call counts with the new shape. */
  reshape(mac: MacShape): void {
    this.#mac = mac;
  }

  async info(): Promise<HostInfo> {
    await this.#ready;
    const p = this.#profile();
    return {
      model: this.#mac.model,
      cores: p.cores,
      memoryGiB: p.memoryGiB,
      diskGiB: p.diskGiB,
      images: Object.values(IMAGES).map((i) => ({ name: i.name, diskGiB: i.diskGiB })),
      maxVms: this.#maxVms(),
      egress: this.#opts.egress,
    };
  }

  async listVms(): Promise<VmInfo[]> {
    await this.#ready;
    return [...this.#vms.values()].map((e) => vmInfo(e.record)).sort((a, b) => a.name.localeCompare(b.name));
  }

  async createVm(spec: VmCreateSpec): Promise<VmInfo> {
    await this.#ready;
    const diskGiB = validateCreate(spec, this.#profile());
    return this.#vmLock.run(spec.name, () =>
      this.#hostLock.run(async () => {
        const old = this.#vms.get(spec.name);
        if (old) await this.#destroy(old);
        if (this.#vms.size >= this.#maxVms()) {
          throw new DriverError('capacity', `host has its maximum of ${this.#maxVms()} VMs`);
        }
        const claim = await claimSlot(this.ctx, spec.name);
        try {
          const made = await provisionVm(this.ctx, { ...spec, diskGiB }, claim);
          this.#vms.set(spec.name, { ...made, procs: {}, stopping: false });
          return vmInfo(made.record);
        } catch (e) {
          this.ctx.slots.release(claim);
          throw e;
        }
      }),
    );
  }

  async resizeVm(name: string, size: { cpu: number; memoryGiB: number }): Promise<void> {
    await this.#ready;
    validateSize(size, this.#profile());
    await this.#vmLock.run(name, async () => {
      const e = this.#get(name);
      if (e.record.state !== 'stopped')
        throw new DriverError('invalid_argument', `VM ${name} must be stopped to resize`);
      e.cgroup.setLimits({ cpu: size.cpu, memoryGiB: size.memoryGiB, pidsMax: this.ctx.pidsMax });
      e.record = { ...e.record, cpu: size.cpu, memoryGiB: size.memoryGiB };
      saveRecord(e.paths, e.record);
    });
  }

  async startVm(name: string): Promise<VmInfo> {
    await this.#ready;
    return this.#vmLock.run(name, async () => {
      const e = this.#get(name);
      if (e.record.state === 'running') return vmInfo(e.record);
      // Checked and claimed in one synchronous step, so that concurrent boots cannot overbook.
      const busy = [...this.#vms.values()].filter(
        (o) => o !== e && (o.record.state === 'running' || o.booting),
      );
      checkRoom(
        e.record,
        busy.map((o) => o.record),
        this.#profile(),
      );
      e.booting = true;
      // A boot yields the CPU to the VMs already running (BOOT_CPU_WEIGHT): their calls come first.
      e.cgroup.setCpuWeight(BOOT_CPU_WEIGHT);
      const yielding = setTimeout(() => {
        try {
          e.cgroup.setCpuWeight(DEFAULT_CPU_WEIGHT);
        } catch {
          // The boot failed and its VM is going: nothing to give back.
        }
      }, BOOT_YIELD_MS);
      const isolation = vmIsolation(this.ctx, e.record.slot);
      // A VM made by a driver before VMs had namespaces kept a loopback address: it moves to its link's.
      e.record = { ...e.record, ip: isolation.link.vmIp };
      const booted = await bootDesktop(
        this.#tracker,
        e.record,
        e.paths,
        e.cgroup,
        this.#opts,
        {},
        isolation,
      ).finally(() => {
        clearTimeout(yielding);
        e.booting = false;
        e.cgroup.setCpuWeight(DEFAULT_CPU_WEIGHT);
      });
      e.procs = booted.procs;
      const pids = Object.fromEntries(Object.entries(booted.procs).map(([k, p]) => [k, p.pid]));
      e.record = {
        ...e.record,
        state: 'running',
        display: booted.display,
        xSocket: booted.socket,
        pids,
        xCookie: booted.cookie.toString('hex'),
      };
      saveRecord(e.paths, e.record);
      this.#running(e);
      try {
        await putVmEgress(this.#egressCtx(e), e, { mode: this.#opts.egress.default, allow: [] });
      } catch (err) {
        await this.#stop(e);
        throw err;
      }
      return vmInfo(e.record);
    });
  }

  async setEgress(name: string, policy: EgressPolicy): Promise<void> {
    await this.#ready;
    checkEgress(this.#opts.egress, policy);
    await this.#vmLock.run(name, async () => {
      const e = this.#get(name);
      if (e.record.state !== 'running') throw new DriverError('not_found', `VM ${name} is not running`);
      if (!sameEgress(e.record.egress, policy)) await putVmEgress(this.#egressCtx(e), e, policy);
    });
  }

  #egressCtx(e: VmEntry): VmEgressContext {
    return {
      link: vmIsolation(this.ctx, e.record.slot).link,
      upstreams: this.#opts.dnsUpstreams,
      log: this.#opts.log,
    };
  }

  /** Marks a VM as up: its runtime for the guest half, and a watch on its processes. */
  #running(e: VmEntry): void {
    const r = e.record;
    e.runtime = vmRuntime(
      r,
      e.paths,
      e.cgroup.path,
      this.#opts,
      {
        touch: () => {
          e.lastActivity = this.#opts.now();
        },
        lastActivity: () => e.lastActivity,
      },
      e.procs.init && {
        ...vmNamespaces(e.procs.init.pid, vmIsolation(this.ctx, r.slot).link.netnsPath),
        tmpDir: vmTempDirs(e.paths.disk).tmp,
      },
    );
    // A desktop process that dies on its own takes the VM down, as a crashed VM would be.
    for (const proc of Object.values(e.procs)) {
      void proc.exited.then(() => {
        if (e.stopping || !Object.values(e.procs).includes(proc) || this.#vms.get(r.name) !== e) return;
        this.#opts.log(
          `linux host ${this.ctx.hostName}: VM ${r.name}: ${proc.label} exited (${proc.reason || 'no message'}); stopping the VM`,
        );
        void this.stopVm(r.name).catch((err: unknown) =>
          this.#opts.log(`VM ${r.name}: stop after crash failed: ${String(err)}`),
        );
      });
    }
  }

  async stopVm(name: string): Promise<void> {
    await this.#ready;
    await this.#vmLock.run(name, () => this.#stop(this.#get(name)));
  }

  async #stop(e: VmEntry): Promise<void> {
    e.stopping = true;
    try {
      await this.#closeGuest(e);
      await stopVmDns(e);
      await powerOff(this.#target(e));
      e.procs = {};
      e.record = stoppedRecord(e.record);
      saveRecord(e.paths, e.record);
    } finally {
      e.stopping = false;
    }
  }

  /** Idempotent: deleting a VM that does not exist succeeds. */
  async deleteVm(name: string): Promise<void> {
    await this.#ready;
    await this.#vmLock.run(name, async () => {
      const e = this.#vms.get(name);
      if (e) await this.#destroy(e);
    });
  }

  async #destroy(e: VmEntry): Promise<void> {
    e.stopping = true;
    await this.#closeGuest(e);
    await stopVmDns(e);
    const { record, paths, cgroup } = e;
    await powerOff(this.#target(e), () =>
      destroyVmFiles(this.ctx, { slot: record.slot, home: record.home, cgroup, paths }),
    );
    this.ctx.slots.release(e.claim);
    this.#vms.delete(record.name);
  }

  async #closeGuest(e: VmEntry): Promise<void> {
    const guest = e.guest;
    e.guest = undefined;
    e.runtime = undefined;
    await guest
      ?.close?.()
      .catch((err: unknown) => this.#opts.log(`VM ${e.record.name}: guest close: ${String(err)}`));
  }

  #target(e: VmEntry) {
    return {
      cgroup: e.cgroup,
      uid: e.record.uid,
      procs: Object.values(e.procs),
      runtimeDir: e.paths.runtimeDir,
      xTmpDir: e.paths.xTmpDir,
      isolation: vmIsolation(this.ctx, e.record.slot),
    };
  }

  /**
   * A running VM is frozen (its cgroup) while its delta is read: the archive is the disk at one
   * instant, and no process of the tenant can swap a file for a link or a FIFO between the look at
   * a name and its read (the archiver runs as root, in this process).
   */
  async exportDelta(name: string, file: string): Promise<DeltaInfo> {
    await this.#ready;
    return this.#vmLock.run(name, async () => {
      const e = this.#get(name);
      return heldStill(e, () =>
        exportDelta(
          { disk: e.paths.disk, lower: e.record.lower, merged: e.record.home },
          e.record.image,
          file,
        ),
      );
    });
  }

  /**
   * A fresh VM (createVm) whose disk is a copy of the source's upper dir, made with the source held
   * still (vm-fork.ts). A failed copy leaves no VM of that name.
   */
  async forkVm(source: string, spec: VmCreateSpec): Promise<VmInfo> {
    await this.#ready;
    const from = this.#get(source);
    if (from.record.image !== spec.image) {
      throw new DriverError('invalid_argument', `VM ${source} runs ${from.record.image}, not ${spec.image}`);
    }
    const info = await this.createVm(spec);
    try {
      await this.#vmLock.run(spec.name, () =>
        this.#vmLock.run(source, async () => {
          const src = this.#get(source);
          const { record: r, paths } = this.#get(spec.name);
          const to = {
            lower: r.lower,
            disk: paths.disk,
            home: r.home,
            sizeGiB: r.diskGiB,
            uid: r.uid,
            gid: r.gid,
          };
          await heldStill(src, () => copyDisk(src.paths.disk, to));
        }),
      );
    } catch (e) {
      await this.deleteVm(spec.name).catch(() => undefined);
      throw e;
    }
    return info;
  }

  /** The VM's cgroup frozen: no CPU, memory kept (vm-pause.ts). */
  async pauseVm(name: string): Promise<void> {
    await this.#ready;
    await this.#vmLock.run(name, () => pauseEntry(this.#get(name)));
  }

  async resumeVm(name: string): Promise<void> {
    await this.#ready;
    await this.#vmLock.run(name, () => resumeEntry(this.#get(name)));
  }

  async importDelta(name: string, file: string): Promise<void> {
    await this.#ready;
    await this.#vmLock.run(name, async () => {
      const e = this.#get(name);
      if (e.record.state !== 'stopped')
        throw new DriverError('invalid_argument', `VM ${name} must be stopped to import a delta`);
      await importDelta(file, e.record.image, e.record.home, e.record.uid, e.record.gid);
    });
  }

  guest(name: string): Guest {
    const e = this.#vms.get(name);
    if (!e) throw new DriverError('not_found', `no VM ${name} on host ${this.ctx.hostName}`);
    if (e.record.state !== 'running' || !e.runtime)
      throw new DriverError('not_found', `VM ${name} is not running`);
    if (!e.guest) {
      if (!this.#guestModule) {
        throw new DriverError(
          'command_failed',
          `linux guest module failed to load: ${String(this.#guestLoadError)}`,
        );
      }
      e.guest = new this.#guestModule.LinuxGuest(e.runtime);
    }
    return e.guest;
  }

  #get(name: string): VmEntry {
    const e = this.#vms.get(name);
    if (!e) throw new DriverError('not_found', `no VM ${name} on host ${this.ctx.hostName}`);
    return e;
  }

  /**
   * Powers every VM off (and with `discard`, deletes it); used by the driver's close(). A VM still
   * booting (a pool clone under way) is cut short first: its processes are killed, so its boot fails
   * at once and lets go of the VM, instead of the stop waiting out a boot of several seconds (a
   * server's stop is bounded, api/shutdown.ts).
   */
  async shutdown(discard: boolean): Promise<void> {
    try {
      await this.#ready;
    } catch {
      return;
    }
    for (const e of this.#vms.values()) if (e.booting) void e.cgroup.killAll().catch(() => undefined);
    await Promise.all(
      [...this.#vms.keys()].map((name) =>
        this.#vmLock.run(name, async () => {
          const e = this.#vms.get(name);
          if (!e) return;
          if (discard) await this.#destroy(e);
          else await this.#stop(e);
        }),
      ),
    );
  }

  /** Where a VM's parts live and the PIDs of its desktop programs (tests, benches, diagnostics). */
  describe(name: string): {
    record: VmRecord;
    paths: VmPaths;
    cgroup: VmCgroup;
    procs: Partial<Record<DesktopProcess, number>>;
    pids: number[];
  } {
    const e = this.#get(name);
    const procs = Object.fromEntries(
      Object.entries(e.procs).map(([k, p]) => [k, programPid(k as DesktopProcess, p.pid)]),
    );
    return { record: e.record, paths: e.paths, cgroup: e.cgroup, procs, pids: Object.values(procs) };
  }
}
