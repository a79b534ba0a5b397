// deploy/ renders with kustomize (the real kubectl) into objects that Kubernetes' own schemas accept
// (kubernetes-models validates each against the OpenAPI schema of its apiVersion and kind).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import * as models from 'kubernetes-models';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../crds/index.ts';

const DEPLOY = path.join(import.meta.dirname);

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

function render(): K8sObject[] {
  const yaml = execFileSync('kubectl', ['kustomize', DEPLOY], { encoding: 'utf8' });
  return parseAllDocuments(yaml).map((d) => d.toJSON() as K8sObject);
}

type ModelClass = new (data: unknown) => { validate(): void };

/** kubernetes-models' class for an apiVersion and kind, e.g. rbac.authorization.k8s.io/v1 ClusterRole. */
function modelOf(apiVersion: string, kind: string): ModelClass {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const groupKey = group === '' ? undefined : group!.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase());
  const byGroup = models as unknown as Record<string, Record<string, Record<string, ModelClass>>>;
  const versions = groupKey === undefined ? { [version!]: byGroup[version!] } : byGroup[groupKey];
  const cls = (versions?.[version!] as Record<string, ModelClass> | undefined)?.[kind];
  if (!cls) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return cls;
}

describe('deploy/ (kustomize)', () => {
  const objects = render();
  const find = (kind: string, name: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name);

  it('validates every rendered object against the Kubernetes schema of its kind', () => {
    expect(objects.length).toBeGreaterThan(20);
    for (const obj of objects) {
      const Model = modelOf(obj.apiVersion, obj.kind);
      expect(() => new Model(obj).validate(), `${obj.kind}/${obj.metadata.name}`).not.toThrow();
    }
  });

  it('uses a validator that refuses what the API server would refuse', () => {
    const deployment = structuredClone(find('Deployment', 'sandbay-api')!);
    (deployment.spec as { replicas: unknown }).replicas = 'two';
    expect(() => new (modelOf('apps/v1', 'Deployment'))(deployment).validate()).toThrow(/replicas/);
    const role = structuredClone(find('ClusterRole', 'sandbay-api')!);
    (role.rules as { verbs: unknown }[])[0]!.verbs = 'get';
    expect(() => new (modelOf(role.apiVersion, role.kind))(role).validate()).toThrow(/verbs/);
  });

  it('installs every CRD, a namespace, two API and two operator replicas with probes and disruption budgets', () => {
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name);
    expect(crds.sort()).toEqual(KINDS.map((k) => `${k.plural}.sandbay.io`).sort());
    expect(find('Namespace', 'sandbay-system')).toBeDefined();
    for (const name of ['sandbay-api', 'sandbay-operator']) {
      const d = find('Deployment', name) as K8sObject & {
        spec: {
          replicas: number;
          template: { spec: { serviceAccountName: string; containers: Record<string, unknown>[] } };
        };
      };
      expect(d.metadata.namespace).toBe('sandbay-system');
      expect(d.spec.replicas).toBe(2);
      expect(d.spec.template.spec.serviceAccountName).toBe(name);
      const [container] = d.spec.template.spec.containers;
      expect(container!.readinessProbe).toBeDefined();
      expect(container!.livenessProbe).toBeDefined();
      expect(container!.args).toContain('--store=kube');
      expect(find('PodDisruptionBudget', name)).toBeDefined();
    }
    expect(find('ConfigMap', 'sandbay-rates')?.data).toHaveProperty(['rates.yaml']);
  });
});
