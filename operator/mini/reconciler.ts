// The Mini reconciler: probes each host (`info()`), records capacity, images and heartbeat, and
// marks it down after consecutive failed probes. It holds no other state: whether a host is down
// is in the store, and the pool and sandbox reconcilers act on that.
import type { ReconcileFn } from '../runtime/index.ts';
import type { OperatorContext } from '../context.ts';
import { withTimeout } from './hosts.ts';
import { markMiniDown, markMiniUp } from './host-state.ts';
import { probeFailure } from './probe-failure.ts';

export function miniReconciler(ctx: OperatorContext): ReconcileFn {
  // Consecutive failed probes per host. Lost on restart, which only delays marking down by a probe.
  const failures = new Map<string, number>();
  // Each host's last boot time as its driver reported it (tart: kern.boottime). Lost on restart,
  // where the pool looks at every host anyway.
  const bootedAt = new Map<string, string>();
  return async (name) => {
    const mini = ctx.informers.minis.get(name);
    if (!mini) {
      failures.delete(name);
      bootedAt.delete(name);
      ctx.hosts.forget(name);
      return;
    }
    if (mini.metadata.deletionTimestamp) return;
    const { heartbeatMs, probeRetryMs, probeTimeoutMs, downAfterFailures } = ctx.settings;
    let info;
    try {
      info = await withTimeout(ctx.hosts.host(mini).info(), probeTimeoutMs, `host ${name}`);
    } catch (err) {
      const n = (failures.get(name) ?? 0) + 1;
      failures.set(name, n);
      const failure = probeFailure(err);
      if (n >= downAfterFailures) await markMiniDown(ctx, mini, failure);
      else ctx.logger.info({ mini: name, failures: n, err: failure.message }, 'host probe failed');
      return { requeueAfterMs: probeRetryMs };
    }
    await markMiniUp(ctx, mini, info);
    // A host that missed a probe, or booted since the last one, may have lost its VMs (gone, or
    // stopped on disk): the pool looks at once rather than at the next status write.
    const rebooted = info.bootedAt !== undefined && bootedAt.get(name) !== info.bootedAt;
    if (info.bootedAt !== undefined) bootedAt.set(name, info.bootedAt);
    if (failures.delete(name) || rebooted) ctx.enqueue.pool(name);
    return { requeueAfterMs: heartbeatMs };
  };
}
