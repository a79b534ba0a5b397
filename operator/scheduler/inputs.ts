// Builds the scheduler's plain inputs from stored resources, so the API and the reconcilers read the
// same fields the same way.
import { DEFAULT_VM_LAYOUT, warmProfile, type Mini, type Sandbox } from '../../crds/index.ts';
import type { MiniView, SandboxUse } from './types.ts';

/** A Mini as the scheduler sees it: layout and warm profile in force (model defaults until set). */
export function miniView(mini: Mini): MiniView {
  const layout = mini.status?.layout ?? mini.spec.defaultLayout ?? DEFAULT_VM_LAYOUT;
  return {
    name: mini.metadata.name,
    model: mini.spec.model,
    layout,
    warmProfile: mini.status?.warmProfile ?? warmProfile(mini.spec.model, layout),
    images: mini.status?.images ?? [],
    down: mini.status?.phase === 'down',
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
