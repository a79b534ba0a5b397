// VM status writes of the pool. Each is a conditional write (the resourceVersion the decision was
// made on): a claim written meanwhile by the sandbox reconciler makes it conflict, and the pool
// looks again instead of stopping or re-cloning a VM that has just been handed to a sandbox.
import type { VM, VMStatus } from '../../crds/index.ts';
import { ConditionTypes, setCondition, type ConditionInput } from '../conditions.ts';
import type { OperatorContext } from '../context.ts';
import { vmMachine, type VmEvent, type VmState } from './states.ts';

export function vmPhase(vm: VM): VmState {
  return vm.status?.phase ?? 'cloning';
}

/** Replaces the VM's status (fields not given are dropped), moving its phase through `event`. */
export async function writeVmStatus(
  ctx: OperatorContext,
  vm: VM,
  event: VmEvent | undefined,
  status: Omit<VMStatus, 'phase' | 'conditions'> & { phase?: VMStatus['phase'] },
  condition?: ConditionInput,
  keepConditions = true,
): Promise<VM> {
  const from = vmPhase(vm);
  const to: VmState = event ? vmMachine.transition(from, event) : (status.phase ?? from);
  if (to === 'gone') throw new Error(`VM ${vm.metadata.name}: ${event} leads to gone; delete the VM instead`);
  const phase = to;
  let conditions = keepConditions ? vm.status?.conditions : undefined;
  if (condition) conditions = setCondition(conditions, condition, new Date(ctx.clock.now())).conditions;
  const next: VMStatus = { ...status, phase, ...(conditions && conditions.length > 0 && { conditions }) };
  if (JSON.stringify(next) === JSON.stringify(vm.status ?? {})) return vm;
  return ctx.client.updateStatus<VM>({ ...vm, status: next });
}

export function bootedCondition(
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message?: string,
): ConditionInput {
  return { type: ConditionTypes.Booted, status, reason, ...(message !== undefined && { message }) };
}
