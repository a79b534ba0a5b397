// Which kind, namespace and object a Kubernetes API path names, checked against the kind's scope.
import { apiVersionOf, STORE_KINDS, type KindDefinition } from '../../crds/index.ts';
import { resourceNotFound, StatusError } from './status.ts';

export interface PathParams {
  plural: string;
  namespace?: string;
  name?: string;
}

export interface Target {
  def: KindDefinition;
  /** Set for namespaced kinds, except on an all-namespaces list. */
  namespace?: string;
  name?: string;
}

/** `group/version/plural` → kind, for every kind the API serves (sandbay's and Lease). */
const byPath = new Map(STORE_KINDS.map((k) => [`${apiVersionOf(k)}/${k.plural}`, k]));

/**
 * The target of a request. Cluster kinds live only outside `namespaces/NS/`; namespaced kinds live
 * only inside it, except that they may be listed (and watched) across all namespaces.
 */
export function resolveTarget(params: PathParams, allNamespacesAllowed: boolean, apiVersion: string): Target {
  const def = byPath.get(`${apiVersion}/${params.plural}`);
  if (!def) throw new StatusError(resourceNotFound());
  const inNamespace = params.namespace !== undefined;
  if (def.scope === 'Cluster' && inNamespace) throw new StatusError(resourceNotFound());
  if (def.scope === 'Namespaced' && !inNamespace && !allNamespacesAllowed) {
    throw new StatusError(resourceNotFound());
  }
  return {
    def,
    ...(params.namespace !== undefined && { namespace: params.namespace }),
    ...(params.name !== undefined && { name: params.name }),
  };
}
