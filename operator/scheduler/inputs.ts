// Builds the scheduler's plain inputs from stored resources: the one place the rules that the API
// (answering refusals at once) and the sandbox reconciler (binding) must agree on are written: the
// request from a sandbox's spec, the snapshot's base, which sandbox holds a place on a Mac, and the
// input over a set of Macs.
import {
  DEFAULT_VM_LAYOUT,
  macShape,
  warmProfile,
  type Mini,
  type Sandbox,
  type SandboxSpec,
  type Snapshot,
  type VM,
} from '../../crds/index.ts';
import { schedule } from './schedule.ts';
import { scheduleMany } from './schedule-many.ts';
import type {
  MiniView,
  SandboxUse,
  ScheduleChoice,
  ScheduleFailure,
  ScheduleInput,
  ScheduleRequest,
  ScheduleResult,
} from './types.ts';

/** The scheduler's request for a sandbox's size and pin (fields it omits: the scheduler's defaults). */
export function scheduleRequest(
  spec: Pick<SandboxSpec, 'cpu' | 'memoryGiB' | 'diskGiB' | 'host'>,
): ScheduleRequest {
  return {
    ...(spec.cpu !== undefined && { cpu: spec.cpu }),
    ...(spec.memoryGiB !== undefined && { memoryGiB: spec.memoryGiB }),
    ...(spec.diskGiB !== undefined && { diskGiB: spec.diskGiB }),
    ...(spec.host !== undefined && { host: spec.host }),
  };
}

/**
 * What a restore asks of the scheduler: the snapshot's base image and disk size. A snapshot that is
 * missing, being deleted or failed to capture does not exist (`not_found`); one still capturing is
 * `not_ready`.
 */
export function snapshotRequest(
  snapshot: Snapshot | undefined,
): NonNullable<ScheduleRequest['snapshot']> | 'not_found' | 'not_ready' {
  if (!snapshot || snapshot.metadata.deletionTimestamp || snapshot.status?.phase === 'failed')
    return 'not_found';
  const { phase, baseImage, diskGiB } = snapshot.status ?? {};
  if (phase !== 'ready' || baseImage === undefined || diskGiB === undefined) return 'not_ready';
  return { baseImage, diskGiB };
}

/**
 * What a fork asks (POST …/fork): the source's size, its image as the base the copied disk needs,
 * and the source's Mac preferred (the disk is copied there, not moved). `not_running` when the
 * source has no running VM to copy.
 */
export function forkRequest(source: Sandbox, sourceVm: VM | undefined): ScheduleRequest | 'not_running' {
  const { phase, mini, cpu, memoryGiB } = source.status ?? {};
  if (source.metadata.deletionTimestamp || phase !== 'running' || !sourceVm || mini === undefined)
    return 'not_running';
  return {
    cpu: cpu ?? sourceVm.spec.cpu,
    memoryGiB: memoryGiB ?? sourceVm.spec.memoryGiB,
    snapshot: { baseImage: sourceVm.spec.image, diskGiB: sourceVm.spec.diskGiB },
    near: mini,
  };
}

/**
 * A sandbox that holds its place on a Mac: booting, running or paused, not being deleted. A failed
 * one has released its VM; one being deleted still counts through its claimed VM until released.
 */
export function holdsPlace(sb: Sandbox): boolean {
  const phase = sb.status?.phase;
  return !sb.metadata.deletionTimestamp && (phase === 'booting' || phase === 'running' || phase === 'paused');
}

/**
 * The scheduler over these Macs, their VMs and the sandboxes placed on them. `exclude` is the
 * sandbox being placed (`namespace/name`): it does not count against itself.
 */
export function scheduleOn(
  minis: readonly Mini[],
  vms: readonly VM[],
  sandboxes: readonly Sandbox[],
  request: ScheduleRequest,
  exclude?: string,
): ScheduleResult {
  return schedule(inputOn(minis, vms, sandboxes, request, exclude));
}

/** `count` sandboxes of one request over these Macs (a fork into N): all placed, or the refusal. */
export function scheduleManyOn(
  minis: readonly Mini[],
  vms: readonly VM[],
  sandboxes: readonly Sandbox[],
  request: ScheduleRequest,
  count: number,
): ScheduleChoice[] | ScheduleFailure {
  return scheduleMany(inputOn(minis, vms, sandboxes, request), count);
}

function inputOn(
  minis: readonly Mini[],
  vms: readonly VM[],
  sandboxes: readonly Sandbox[],
  request: ScheduleRequest,
  exclude?: string,
): ScheduleInput {
  const names = new Set(minis.map((m) => m.metadata.name));
  const uses = sandboxes.flatMap((s): SandboxUse[] => {
    if (!holdsPlace(s) || `${s.metadata.namespace ?? ''}/${s.metadata.name}` === exclude) return [];
    const use = sandboxUse(s);
    return use && names.has(use.mini) ? [use] : [];
  });
  return {
    minis: minis.map(miniView),
    vms: vms.filter((vm) => names.has(vm.spec.mini)),
    sandboxes: uses,
    request,
  };
}

/** A Mini as the scheduler sees it: layout and warm profile in force (model defaults until set). */
export function miniView(mini: Mini): MiniView {
  const layout = mini.status?.layout ?? mini.spec.defaultLayout ?? DEFAULT_VM_LAYOUT;
  const mac = macShape(mini.spec);
  return {
    name: mini.metadata.name,
    model: mini.spec.model,
    ...(mac.vmSlots !== undefined && { vmSlots: mac.vmSlots }),
    layout,
    warmProfile: mini.status?.warmProfile ?? warmProfile(mac, layout),
    images: mini.status?.images ?? [],
    down: mini.status?.phase === 'down',
    address: mini.spec.address,
  };
}

/**
 * A sandbox that has been placed on a Mac, with the size it got (status), or the size it asked for
 * (spec) until the status says; undefined while it is not placed. Size fields it omitted and that the
 * status does not report yet count as 0: its claimed VM's size covers them (see `macLoad`).
 */
export function sandboxUse(sandbox: Sandbox): SandboxUse | undefined {
  const mini = sandbox.status?.mini;
  if (mini === undefined) return undefined;
  const vm = sandbox.status?.vm;
  return {
    name: `${sandbox.metadata.namespace ?? ''}/${sandbox.metadata.name}`,
    mini,
    ...(vm !== undefined && { vm }),
    cpu: sandbox.status?.cpu ?? sandbox.spec.cpu ?? 0,
    memoryGiB: sandbox.status?.memoryGiB ?? sandbox.spec.memoryGiB ?? 0,
  };
}
