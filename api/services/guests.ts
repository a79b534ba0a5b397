// The data plane: control calls on a running sandbox go straight to its VM through the host driver
// of the Mac it runs on (`drivers[mini.spec.driver].host(mini).guest(vm)`), not through resources.
import type { Sandbox } from '../../crds/index.ts';
import { DriverError, type Guest } from '../../hosts/driver.ts';
import { withDeadlines } from '../../hosts/guest-deadlines.ts';
import { hostRef } from '../../operator/mini/hosts.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './context.ts';

/** 409 `sandbox_paused` while the sandbox is paused, or being paused or resumed (its VM frozen, or about to be). */
export function refusePaused(sandbox: Sandbox): void {
  const phase = sandbox.status?.phase;
  if (phase !== 'paused' && !(phase === 'running' && sandbox.spec.paused === true)) return;
  const doing = phase === 'paused' ? (sandbox.spec.paused ? 'paused' : 'being resumed') : 'being paused';
  throw new ApiError(
    'sandbox_paused',
    `The sandbox is ${doing}: resume it first (POST /v1/sandboxes/${sandbox.metadata.name}/resume).`,
  );
}

/**
 * Refuses a call on a sandbox that is not running: `sandbox_paused` (refusePaused), or 409
 * `sandbox_not_running` in any other phase and while it is being deleted.
 */
export function requireRunning(sandbox: Sandbox): void {
  if (sandbox.metadata.deletionTimestamp)
    throw new ApiError('sandbox_not_running', 'The sandbox is being deleted.');
  refusePaused(sandbox);
  const phase = sandbox.status?.phase;
  if (phase !== 'running') throw new ApiError('sandbox_not_running', `The sandbox is ${phase ?? 'pending'}.`);
}

export async function guestOf(ctx: ApiContext, sandbox: Sandbox): Promise<Guest> {
  requireRunning(sandbox);
  const { mini: miniName, vm } = sandbox.status ?? {};
  if (!miniName || !vm) throw new ApiError('sandbox_not_running', 'The sandbox is not placed yet.');
  const mini = await ctx.reads.mini(miniName);
  const driver = mini ? ctx.drivers[mini.spec.driver] : undefined;
  if (!mini || !driver)
    throw new ApiError('guest_unreachable', 'The Mac running this sandbox is not reachable.');
  const host = driver.host(hostRef(mini));
  // Every call on it has a deadline (hosts/guest-deadlines.ts): a tenant's VM can stop answering.
  return withDeadlines(host.guest(vm));
}

/** The guest of the account's sandbox named `sandboxId` (sandbox_not_found when it is gone). */
export async function guestOfId(ctx: ApiContext, account: string, sandboxId: string): Promise<Guest> {
  const sandbox = await ctx.store.get<Sandbox>({ kind: 'Sandbox', namespace: account, name: sandboxId });
  if (!sandbox) throw new ApiError('sandbox_not_found');
  return guestOf(ctx, sandbox);
}

/**
 * The VM's VNC or SSH endpoint. A VM without one (the sim driver's) is a VM the proxy cannot reach:
 * 502, not the 404 a missing file would be.
 */
export async function endpointOf<T>(what: 'VNC' | 'SSH', get: () => Promise<T>): Promise<T> {
  try {
    return await get();
  } catch (err) {
    if (err instanceof DriverError && err.code === 'not_found') {
      throw new ApiError('guest_unreachable', `The sandbox VM has no ${what} server: ${err.message}`);
    }
    throw err;
  }
}
