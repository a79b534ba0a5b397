// Writes a Mini's host state: down when probes fail, back up (capacity, images, heartbeat, phase)
// when it answers. Every write carries the resourceVersion it was computed from, so it never
// overwrites a binding the reservation reconciler made in between (that write conflicts and the
// probe retries on fresh data).
import { DEFAULT_VM_LAYOUT, macShape, warmProfile, type Mini, type MiniStatus } from '../../crds/index.ts';
import type { HostInfo } from '../../hosts/driver.ts';
import { ConditionTypes, Reasons, setCondition } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import type { ProbeFailure } from './probe-failure.ts';
import { miniMachine, type MiniPhase } from './states.ts';

function phaseOf(mini: Mini): MiniPhase {
  return mini.status?.phase ?? 'pending';
}

async function patchStatus(ctx: OperatorContext, mini: Mini, status: Partial<MiniStatus>): Promise<void> {
  await ctx.client.patch<Mini>(
    { kind: 'Mini', name: mini.metadata.name },
    { status },
    { subresource: 'status', resourceVersion: mini.metadata.resourceVersion! },
  );
}

/** A probe failed often enough: the host is down, Reachable and Ready False with the failure's reason. */
export async function markMiniDown(
  ctx: OperatorContext,
  mini: Mini,
  failure: ProbeFailure,
): Promise<boolean> {
  const now = new Date(ctx.clock.now());
  const { message } = failure;
  const reachable = setCondition(
    mini.status?.conditions,
    { type: ConditionTypes.Reachable, status: 'False', reason: failure.reason, message },
    now,
  );
  const cond = setCondition(
    reachable.conditions,
    { type: ConditionTypes.Ready, status: 'False', reason: failure.reason, message },
    now,
  );
  const from = phaseOf(mini);
  const phase = from === 'down' ? 'down' : miniMachine.transition(from, 'unreachable');
  if (phase === from && !reachable.changed && !cond.changed) return false;
  ctx.logger.warn({ mini: mini.metadata.name, reason: failure.reason, message }, 'host marked down');
  await patchStatus(ctx, mini, { phase, conditions: cond.conditions });
  return true;
}

/** Records a successful probe. Returns true when the host came back from down (or first answered). */
export async function markMiniUp(ctx: OperatorContext, mini: Mini, info: HostInfo): Promise<boolean> {
  const now = ctx.clock.now();
  const s = mini.status ?? {};
  const from = phaseOf(mini);
  const event =
    from === 'pending'
      ? 'registered'
      : from === 'down'
        ? s.reservation
          ? 'answeredReserved'
          : 'answered'
        : undefined;
  const phase = event ? miniMachine.transition(from, event) : from;
  const layout = s.layout ?? mini.spec.defaultLayout ?? DEFAULT_VM_LAYOUT;
  const capacity = { cores: info.cores, memoryGiB: info.memoryGiB, diskGiB: info.diskGiB };
  const images = info.images.map((i) => ({ name: i.name, diskGiB: i.diskGiB }));
  const reachable = setCondition(
    s.conditions,
    { type: ConditionTypes.Reachable, status: 'True', reason: Reasons.HostAnswered },
    new Date(now),
  );
  const ready = setCondition(
    reachable.conditions,
    { type: ConditionTypes.Ready, status: 'True', reason: Reasons.HostAnswered },
    new Date(now),
  );
  const cond = { conditions: ready.conditions, changed: reachable.changed || ready.changed };
  const heartbeatStale = !s.heartbeat || now - Date.parse(s.heartbeat) >= ctx.settings.heartbeatWriteMs;
  const changed =
    phase !== from ||
    cond.changed ||
    s.layout === undefined ||
    s.warmProfile === undefined ||
    JSON.stringify(s.capacity) !== JSON.stringify(capacity) ||
    JSON.stringify(s.images) !== JSON.stringify(images) ||
    JSON.stringify(s.egress) !== JSON.stringify(info.egress);
  if (!changed && !heartbeatStale) return false;
  await patchStatus(ctx, mini, {
    phase,
    capacity,
    images,
    heartbeat: new Date(now).toISOString(),
    layout,
    warmProfile: s.warmProfile ?? warmProfile(macShape(mini.spec), layout),
    conditions: cond.conditions,
    // What the host enforces of sandboxes' egress policies (null: nothing, its driver reports none).
    egress: info.egress ?? (null as never),
  });
  if (event) ctx.logger.info({ mini: mini.metadata.name, phase }, 'host answers');
  return event !== undefined;
}
