// The Mini's RoomForVMs condition: False while the Mac itself refuses to start a VM that sandbay's
// own accounting has room for (on a Mac running Tart: a VM sandbay did not start holds one of the two
// slots Apple's licence allows), with the driver's message naming what runs there; True again after
// a pass in which the Mac refused nothing. Absent on a Mac that never refused.
import type { Mini } from '../../crds/index.ts';
import type { DriverError } from '../../hosts/driver.ts';
import { ConditionTypes, findCondition, Reasons, setCondition } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';

export async function reportRoom(
  ctx: OperatorContext,
  name: string,
  refused: DriverError | undefined,
): Promise<void> {
  const mini = ctx.informers.minis.get(name);
  if (!mini) return;
  const had = findCondition(mini.status?.conditions, ConditionTypes.RoomForVMs);
  if (!refused && had?.status !== 'False') return;
  const next = refused
    ? { status: 'False' as const, reason: Reasons.HostRefusedStart, message: refused.message }
    : { status: 'True' as const, reason: Reasons.HostStartsVMs };
  const { conditions, changed } = setCondition(
    mini.status?.conditions,
    { type: ConditionTypes.RoomForVMs, ...next },
    new Date(ctx.clock.now()),
  );
  if (!changed) return;
  if (refused) ctx.logger.warn({ mini: name, err: refused.message }, 'the Mac refused to start a VM');
  else ctx.logger.info({ mini: name }, 'the Mac starts VMs again');
  await ctx.client.patch<Mini>(
    { kind: 'Mini', name },
    { status: { conditions } },
    { subresource: 'status', resourceVersion: mini.metadata.resourceVersion! },
  );
}
