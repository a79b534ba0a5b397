// Checks deploy/'s RBAC against the calls processes really made (the embedded API server's audit log,
// api/kube/audit.ts): every call must be allowed by its process's roles, and every rule must be used,
// except rules for code paths the calling test does not exercise, which are named here with the code
// that makes them.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { AuditEntry } from '../../api/kube/audit.ts';

type Component = 'api' | 'operator';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

const ROLES: Record<Component, string[]> = {
  api: ['ClusterRole/sandbay-api', 'Role/sandbay-api-lease'],
  operator: ['ClusterRole/sandbay-operator', 'Role/sandbay-operator-lease'],
};

/**
 * Grants the kube-mode test does not exercise, as `component verb group/resource` patterns (`*`
 * matches anything), each with the code that needs it.
 */
export const NOT_EXERCISED: Record<string, string> = {
  'api * sandbay.io/*':
    "the API process's admin listener serves the Kubernetes API for every sandbay kind (api/kube), passing each verb to the store",
  'operator * sandbay.io/snapshots*': 'the snapshot reconciler (operator/snapshot)',
  'operator * sandbay.io/replays*': 'the replay reconciler (operator/replay)',
  'operator * sandbay.io/tasks*': 'the replay reconciler writes task results (operator/replay)',
  'operator * sandbay.io/evaluation*':
    'evaluation runs and their attempts (operator/evaluation/run), past the informers',
  'operator create sandbay.io/apikeys':
    "an evaluation attempt's agent key (operator/evaluation/run/agent.ts)",
  'operator delete sandbay.io/apikeys': 'the agent key goes when its attempt is graded or ends',
  'operator get sandbay.io/blobs':
    'a setup step or replay that downloads an uploaded blob (operator/evaluation/blob-source.ts)',
  'operator create sandbay.io/sandboxes': 'a replay runs in a fresh sandbox (operator/replay)',
  'operator delete sandbay.io/sandboxes':
    'reservation expiry and the idle reaper (operator/reservation, operator/sandbox)',
  'operator delete sandbay.io/vms': 'the pool discards dirty and surplus VMs (operator/pool)',
};

function excused(id: string): boolean {
  return Object.keys(NOT_EXERCISED).some((pattern) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\/]/g, '\\$&').replace(/\*/g, '.*')}$`).test(id),
  );
}

function rulesOf(component: Component): Rule[] {
  const yaml = execFileSync('kubectl', ['kustomize', path.join(import.meta.dirname, '..', '..', 'deploy')], {
    encoding: 'utf8',
  });
  const objects = parseAllDocuments(yaml).map(
    (d) => d.toJSON() as { kind: string; metadata: { name: string }; rules?: Rule[] },
  );
  return ROLES[component].flatMap((id) => {
    const role = objects.find((o) => `${o.kind}/${o.metadata.name}` === id);
    if (!role) throw new Error(`deploy/ has no ${id}`);
    return role.rules ?? [];
  });
}

const resourceOf = (e: AuditEntry) => (e.subresource ? `${e.resource}/${e.subresource}` : e.resource);

function allows(rule: Rule, e: AuditEntry): boolean {
  return (
    rule.apiGroups.includes(e.apiGroup) &&
    rule.resources.includes(resourceOf(e)) &&
    rule.verbs.includes(e.verb) &&
    (rule.resourceNames === undefined || (e.name !== undefined && rule.resourceNames.includes(e.name)))
  );
}

export function checkRbac(
  entries: AuditEntry[],
  callers: Map<string, Component>,
): { denied: string[]; unused: string[]; allowedUnused: string[]; calls: string[] } {
  const denied = new Set<string>();
  const used = new Set<string>();
  const calls = new Set<string>();
  for (const component of ['api', 'operator'] as const) {
    const rules = rulesOf(component);
    const made = entries.filter((e) => callers.get(e.user) === component);
    for (const e of made) {
      const rule = rules.find((r) => allows(r, e));
      const id = `${component} ${e.verb} ${e.apiGroup}/${resourceOf(e)}`;
      calls.add(id);
      if (!rule) denied.add(id);
      else used.add(id);
    }
    for (const rule of rules) {
      for (const group of rule.apiGroups)
        for (const resource of rule.resources)
          for (const verb of rule.verbs) {
            const id = `${component} ${verb} ${group}/${resource}`;
            if (!used.has(id)) used.add(`unused:${id}`);
          }
    }
  }
  const unused = [...used].filter((u) => u.startsWith('unused:')).map((u) => u.slice(7));
  return {
    denied: [...denied].sort(),
    unused: unused.sort(),
    allowedUnused: unused.filter(excused).sort(),
    calls: [...calls].sort(),
  };
}
