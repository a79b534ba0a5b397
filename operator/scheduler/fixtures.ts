// Builders for scheduler inputs, and a tiny in-memory fleet that applies choices and pool plans the
// way the reconcilers do (instantly). Used by the scheduler's tests and by operator tests that want a
// fleet without a store.
import {
  API_VERSION,
  IMAGES,
  warmProfile,
  type MacModel,
  type VM,
  type VmLayout,
  type VmPhase,
  type WarmSlot,
} from '../../crds/index.ts';
import { poolPlan, type PoolPlanOptions } from './pool-plan.ts';
import type { MiniView, SandboxUse, ScheduleChoice, ScheduleInput, ScheduleRequest } from './types.ts';

export function mac(
  name: string,
  model: MacModel = 'm4',
  layout: VmLayout = 'split',
  opts: { profile?: WarmSlot[]; down?: boolean; images?: MiniView['images']; vmSlots?: number } = {},
): MiniView {
  return {
    name,
    model,
    ...(opts.vmSlots !== undefined && { vmSlots: opts.vmSlots }),
    layout,
    warmProfile: opts.profile ?? warmProfile({ model, vmSlots: opts.vmSlots }, layout),
    images: opts.images ?? [
      { name: IMAGES.split.name, diskGiB: IMAGES.split.diskGiB },
      { name: IMAGES.whole.name, diskGiB: IMAGES.whole.diskGiB },
    ],
    down: opts.down ?? false,
  };
}

export interface VmFields {
  cpu: number;
  memoryGiB: number;
  image?: string;
  diskGiB?: number;
  phase?: VmPhase;
  sandbox?: string;
  /** status.sandbox: the sandbox that ran on it (a released VM keeps it until discarded). */
  ranSandbox?: string;
}

export function vm(name: string, mini: string, slot: number, f: VmFields): VM {
  return {
    apiVersion: API_VERSION,
    kind: 'VM',
    metadata: { name },
    spec: {
      mini,
      slot,
      cpu: f.cpu,
      memoryGiB: f.memoryGiB,
      image: f.image ?? IMAGES.split.name,
      diskGiB: f.diskGiB ?? IMAGES.split.diskGiB,
      ...(f.sandbox !== undefined && { sandbox: f.sandbox }),
    },
    status: {
      phase: f.phase ?? 'warm',
      ...((f.ranSandbox ?? f.sandbox) !== undefined && { sandbox: f.ranSandbox ?? f.sandbox }),
    },
  };
}

/** One VM per slot of the Mac's profile, named `<mini>-<slot>`, in the given phases (default warm). */
export function pool(mini: MiniView, phases: VmPhase[] = []): VM[] {
  return mini.warmProfile.map((slot, i) =>
    vm(`${mini.name}-${i}`, mini.name, i, { ...slot, phase: phases[i] ?? 'warm' }),
  );
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** A mutable fleet: the reservation's Macs, their VMs and sandboxes, changed as reconcilers would. */
export class Fleet {
  minis: MiniView[];
  vms: VM[] = [];
  sandboxes: SandboxUse[] = [];
  private clones = 0;

  constructor(minis: MiniView[]) {
    this.minis = minis;
  }

  input(request: ScheduleRequest): ScheduleInput {
    return { minis: this.minis, vms: this.vms, sandboxes: this.sandboxes, request };
  }

  /** What the sandbox reconciler does with a choice: stop the others aside, claim, (resize,) boot. */
  claim(choice: ScheduleChoice, sandbox: string): void {
    for (const name of choice.stopAside) {
      const other = this.find(name);
      if (other.status!.phase === 'warm') other.status!.phase = 'stopped';
    }
    const claimed = this.find(choice.vm);
    claimed.spec = {
      ...claimed.spec,
      sandbox,
      cpu: choice.cpu,
      memoryGiB: choice.memoryGiB,
      image: choice.image,
      diskGiB: choice.diskGiB,
    };
    claimed.status = { phase: 'occupied', sandbox };
    this.sandboxes.push({
      name: sandbox,
      mini: choice.mini,
      vm: choice.vm,
      cpu: choice.cpu,
      memoryGiB: choice.memoryGiB,
    });
  }

  /** Deleting a sandbox releases its VM: dirty until the pool discards it. */
  release(sandbox: string): void {
    this.sandboxes = this.sandboxes.filter((s) => s.name !== sandbox);
    for (const v of this.vms) {
      if (v.spec.sandbox !== sandbox) continue;
      const { sandbox: _released, ...spec } = v.spec;
      v.spec = spec;
    }
  }

  /**
   * Applies one pool plan for a Mac; clones stay `cloning` until `finishClones`. `pick` may reorder
   * or drop actions, as a reconciler interrupted halfway (or running them concurrently) would.
   */
  reconcilePool(miniName: string, opts: PoolPlanOptions = {}, pick: (n: number) => number[] = range): void {
    const mini = this.minis.find((m) => m.name === miniName)!;
    const plan = poolPlan(mini, this.vms, this.sandboxes, opts);
    mini.warmProfile = plan.profile;
    const actions: (() => void)[] = [
      ...plan.discard.map((name) => () => {
        this.vms = this.vms.filter((v) => v.metadata.name !== name);
      }),
      ...plan.stopAside.map((name) => () => {
        const v = this.find(name);
        if (v.status!.phase === 'warm') v.status!.phase = 'stopped';
      }),
      ...plan.clone.map((c) => () => {
        if (c.replaces) this.vms = this.vms.filter((v) => v.metadata.name !== c.replaces);
        const name = c.replaces ?? `${miniName}-c${++this.clones}`;
        this.vms.push(vm(name, miniName, c.slot, { ...c, phase: 'cloning' }));
      }),
      ...plan.returnToPool.map((name) => () => {
        this.find(name).status!.phase = 'warm';
      }),
    ];
    for (const i of pick(actions.length)) actions[i]?.();
  }

  /** Clones finish: each boots if the pool (asked again now) says it fits, else it is kept stopped. */
  finishClones(miniName: string): void {
    const mini = this.minis.find((m) => m.name === miniName)!;
    const plan = poolPlan(mini, this.vms, this.sandboxes);
    for (const v of this.vms) {
      if (v.spec.mini !== miniName || v.status?.phase !== 'cloning') continue;
      v.status.phase = plan.stopAside.includes(v.metadata.name) ? 'stopped' : 'warm';
    }
  }

  find(name: string): VM {
    const found = this.vms.find((v) => v.metadata.name === name);
    if (!found) throw new Error(`no VM ${name}`);
    return found;
  }
}
