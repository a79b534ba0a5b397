// The idle reaper: an ephemeral sandbox is destroyed after about two minutes without an HTTP
// request, SSH session or VNC connection. The API moves `status.lastActive` (throttled); before
// reaping, the guest's own last activity is asked too, in case the API's write was throttled away.
// The next look is a deadline (`requeueAtMs`), not a delay: `now` is read before the status write and
// the guest query, and the clock may move before the run ends (a delay would then land that late).
import type { Sandbox } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import type { ReconcileResult } from '../runtime/index.ts';
import { sandboxMachine } from './states.ts';
import { patchSandboxStatus, sandboxPhase, sandboxRef } from './status.ts';

function lastActiveMs(sb: Sandbox): number {
  const times = [
    sb.status?.lastActive,
    sb.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime,
  ]
    .map((t) => (t ? Date.parse(t) : NaN))
    .filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : NaN;
}

export async function reapIfIdle(ctx: OperatorContext, sb: Sandbox): Promise<ReconcileResult | void> {
  if (!sb.spec.ephemeral || sandboxPhase(sb) !== 'running') return;
  const now = ctx.clock.now();
  const idleTimeout = ctx.settings.idleTimeoutMs;
  const last = lastActiveMs(sb);
  if (Number.isNaN(last)) {
    await patchSandboxStatus(ctx, sb, undefined, { lastActive: new Date(now).toISOString() });
    return { requeueAtMs: now + idleTimeout };
  }
  if (now - last < idleTimeout) return { requeueAtMs: last + idleTimeout };

  const guestAt = await guestActivity(ctx, sb);
  if (guestAt !== undefined && now - guestAt < idleTimeout) {
    await patchSandboxStatus(ctx, sb, undefined, { lastActive: new Date(guestAt).toISOString() });
    return { requeueAtMs: guestAt + idleTimeout };
  }
  sandboxMachine.transition('running', 'idleTimeout');
  ctx.logger.info(
    { sandbox: `${sb.metadata.namespace}/${sb.metadata.name}`, idleMs: now - last },
    'idle: destroying',
  );
  await ctx.client.delete(sandboxRef(sb));
}

async function guestActivity(ctx: OperatorContext, sb: Sandbox): Promise<number | undefined> {
  const mini = sb.status?.mini ? ctx.informers.minis.get(sb.status.mini) : undefined;
  const vm = sb.status?.vm;
  if (!mini || !vm) return undefined;
  try {
    const at = await ctx.hosts.host(mini).guest(vm).lastActivity();
    return at?.getTime();
  } catch {
    // A guest that cannot say is judged by what the API recorded.
    return undefined;
  }
}
