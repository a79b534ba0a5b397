// Sandboxes that work the operator carries out (a replay, an evaluation attempt) runs in: owned by
// that work (deleting it deletes the sandbox), in its reservation, not ephemeral (nobody sends API
// requests to it, and the idle reaper must not take it).
import { API_VERSION, type AnyResource, type OwnerReference, type Sandbox } from '../../crds/index.ts';
import { isStoreError } from '../../store/store.ts';
import type { OperatorContext } from '../context.ts';

/** The RESERVATION_LABEL the API puts on sandboxes, so that listings filter alike. */
const RESERVATION_LABEL = 'sandbay.io/reservation';

/** A controller owner reference to `owner` (its kind's reconciler is the one that acts on it). */
export function controllerRef(owner: AnyResource): OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid!,
    controller: true,
  };
}

/** Writes the named sandbox for `owner` (already written: nothing to do) and has it placed. */
export async function createOwnedSandbox(
  ctx: OperatorContext,
  owner: AnyResource,
  reservation: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<void> {
  const ns = owner.metadata.namespace!;
  try {
    await ctx.client.create<Sandbox>({
      apiVersion: API_VERSION,
      kind: 'Sandbox',
      metadata: {
        name,
        namespace: ns,
        labels: { [RESERVATION_LABEL]: reservation, ...labels },
        ownerReferences: [controllerRef(owner)],
      },
      spec: { reservation, ephemeral: false },
    });
    ctx.enqueue.sandbox(`${ns}/${name}`);
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
  }
}
