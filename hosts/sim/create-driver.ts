// The sim driver: in-memory Macs with realistic timings and state checks, for scale and fault tests
// of the operator. Never the default, and never behind a claim that something works on real hosts:
// its guests have no desktop, no VNC server and no sshd.
//
//   const sim = createSimDriver({ timings: { bootMs: 0 } });
//   const host = sim.host({ name: 'mini-1', address: '10.0.0.1', model: 'm4' });
//   sim.failHost('10.0.0.1');   // every call on it now throws DriverError 'unreachable'
//   sim.failNext('startVm');    // the next startVm anywhere throws 'command_failed'
import { IMAGES, type EgressPolicy } from '../../crds/index.ts';
import { DriverError, type Driver, type HostRef } from '../driver.ts';
import { Faults, type FailNextOptions, type SimOp } from './faults.ts';
import { SimHost } from './host.ts';
import {
  DEFAULT_TIMINGS,
  SIM_EGRESS,
  systemSimClock,
  type SimContext,
  type SimDriverOptions,
} from './options.ts';
import type { SimVm, SimVmState } from './vm.ts';

export interface SimVmView {
  name: string;
  image: string;
  cpu: number;
  memoryGiB: number;
  state: SimVmState;
  /** Running but frozen (pauseVm). */
  paused: boolean;
  ip?: string;
  /** Paths of the files written in the VM since its clone. */
  files: string[];
  cursor?: { x: number; y: number };
  typed?: string;
  inputEvents?: number;
  recordings: number;
  /** The egress policy in force while it runs (what the reconciler applied). */
  egress?: EgressPolicy;
}

export interface SimHostView {
  address: string;
  model: string;
  failed: boolean;
  vms: SimVmView[];
}

export interface SimControls {
  /** Every call on the host throws `unreachable` until recovered; `powerLoss` also stops its VMs. */
  failHost(address: string, opts?: { powerLoss?: boolean }): void;
  recoverHost(address: string): void;
  /** The next call of `op` (on `address`, or anywhere) throws a DriverError (`command_failed` by default). */
  failNext(op: SimOp, opts?: FailNextOptions): void;
  /** What a sim Mac holds right now, for tests; undefined until the driver has seen the address. */
  inspect(address: string): SimHostView | undefined;
  /** Addresses of the Macs the driver has seen. */
  addresses(): string[];
}

export type SimDriver = Driver & SimControls;

export function createSimDriver(opts: SimDriverOptions = {}): SimDriver {
  const clock = opts.clock ?? systemSimClock;
  const timings = { ...DEFAULT_TIMINGS, ...opts.timings };
  const faults = new Faults();
  const hosts = new Map<string, SimHost>();
  const pending = new Set<{ cancel(): void; reject(e: Error): void }>();
  let closed = false;
  let ids = 0;

  const ctx: SimContext = {
    clock,
    timings,
    faults,
    display: opts.display ?? { width: 1280, height: 800 },
    nextId: () => ++ids,
    isClosed: () => closed,
    wait(ms) {
      if (closed) return Promise.reject(closedError());
      if (!(ms > 0)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const entry = { cancel: () => timer.cancel(), reject };
        const timer = clock.setTimer(ms, () => {
          pending.delete(entry);
          resolve();
        });
        pending.add(entry);
      });
    },
  };

  return {
    kind: 'sim',
    host(ref: HostRef) {
      if (closed) throw closedError();
      let host = hosts.get(ref.address);
      if (!host) {
        const o = opts.hosts?.[ref.address] ?? {};
        const images = o.images ?? Object.values(IMAGES).map((i) => ({ name: i.name, diskGiB: i.diskGiB }));
        host = new SimHost(
          ref.address,
          o.model ?? ref.model,
          images,
          o.maxVms ?? 2,
          ctx,
          o.egress ?? SIM_EGRESS,
        );
        hosts.set(ref.address, host);
      }
      return host;
    },
    async close() {
      closed = true;
      for (const entry of pending) {
        entry.cancel();
        entry.reject(closedError());
      }
      pending.clear();
    },
    failHost(address, o = {}) {
      faults.failHost(address);
      if (o.powerLoss) hosts.get(address)?.powerLoss();
    },
    recoverHost: (address) => faults.recoverHost(address),
    failNext: (op, o) => faults.failNext(op, o),
    inspect(address) {
      const host = hosts.get(address);
      if (!host) return undefined;
      return { address, model: host.model, failed: faults.isFailed(address), vms: host.vms().map(viewOf) };
    },
    addresses: () => [...hosts.keys()],
  };
}

function viewOf(vm: SimVm): SimVmView {
  const g = vm.guest;
  return {
    name: vm.name,
    image: vm.image,
    cpu: vm.cpu,
    memoryGiB: vm.memoryGiB,
    state: vm.state,
    paused: vm.paused,
    ...(vm.ip !== undefined && { ip: vm.ip }),
    files: vm.disk ? [...vm.disk.files.keys()].sort() : [],
    ...(g && { cursor: { ...g.cursor }, typed: g.typed, inputEvents: g.inputEvents }),
    recordings: g?.recordings.size ?? 0,
    ...(vm.egress && { egress: { ...vm.egress, allow: [...vm.egress.allow] } }),
  };
}

function closedError(): DriverError {
  return new DriverError('unreachable', 'the sim driver is closed');
}
