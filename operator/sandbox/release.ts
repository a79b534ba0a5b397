// Releasing a sandbox's VM. The VM is first marked as used by the sandbox (status), then the claim
// is cleared (spec): from then on the VM is "dirty" to the scheduler and the pool (released but not
// yet re-cloned), so it is never handed to anyone else before a fresh clone replaces it.
import type { VM } from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';
import { BOOT_ANNOTATION } from './place.ts';

export async function releaseVm(ctx: OperatorContext, sandbox: string, vm: VM): Promise<void> {
  if (vm.spec.sandbox !== sandbox) return;
  let current = vm;
  const phase = vm.status?.phase;
  const marked = vm.status?.sandbox === sandbox && (phase === 'occupied' || phase === 'down');
  if (!marked) {
    current = await ctx.client.updateStatus<VM>({
      ...vm,
      status: { ...vm.status, sandbox, phase: phase === 'down' ? 'down' : 'occupied' },
    });
  }
  const { sandbox: _claim, snapshot: _snapshot, fork: _fork, ...spec } = current.spec;
  const { [BOOT_ANNOTATION]: _boot, ...annotations } = current.metadata.annotations ?? {};
  await ctx.client.update<VM>({ ...current, metadata: { ...current.metadata, annotations }, spec });
  ctx.enqueue.pool(vm.spec.mini);
}
