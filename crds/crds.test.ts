import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KINDS } from './index.ts';
import { crdFileName, crdManifest } from './crd-manifest.ts';
import { renderCrdYaml } from './crd-yaml.ts';

type Node = Record<string, unknown>;

/** Kubernetes' structural-schema rules that matter here: every node typed (or preserving unknown fields). */
function structuralViolations(node: Node, path: string): string[] {
  const problems: string[] = [];
  if (node.type === undefined && node['x-kubernetes-preserve-unknown-fields'] !== true)
    problems.push(`${path}: no type`);
  if (node.additionalProperties === false) problems.push(`${path}: additionalProperties false`);
  if (node.additionalProperties !== undefined && node.properties !== undefined) {
    problems.push(`${path}: both properties and additionalProperties`);
  }
  for (const [k, v] of Object.entries((node.properties as Record<string, Node>) ?? {})) {
    problems.push(...structuralViolations(v, `${path}.${k}`));
  }
  if (node.items) problems.push(...structuralViolations(node.items as Node, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    problems.push(...structuralViolations(node.additionalProperties as Node, `${path}{}`));
  }
  return problems;
}

/** Paths of schema properties without a description (`kubectl explain` would say `<no description>`). */
function undescribed(node: Node, path: string): string[] {
  const missing: string[] = [];
  for (const [k, v] of Object.entries((node.properties as Record<string, Node>) ?? {})) {
    if (typeof v.description !== 'string' || v.description.trim() === '') missing.push(`${path}.${k}`);
    missing.push(...undescribed(v, `${path}.${k}`));
  }
  if (node.items) missing.push(...undescribed(node.items as Node, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    missing.push(...undescribed(node.additionalProperties as Node, `${path}{}`));
  }
  return missing;
}

describe('CRDs', () => {
  for (const def of KINDS) {
    it(`crds/${crdFileName(def)} is up to date with the ${def.kind} schema (run \`npm run crds\`)`, async () => {
      const committed = await readFile(join(import.meta.dirname, crdFileName(def)), 'utf8');
      expect(committed).toBe(renderCrdYaml(crdManifest(def)));
    });

    it(`${def.kind} CRD is structural, has a status subresource, printer columns and short names`, async () => {
      const crd = parse(await readFile(join(import.meta.dirname, crdFileName(def)), 'utf8'));
      expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
      expect(crd.spec.scope).toBe(def.scope);
      expect(crd.spec.names.shortNames).toEqual(def.shortNames);
      const version = crd.spec.versions[0];
      expect(version.subresources).toEqual({ status: {} });
      expect(version.additionalPrinterColumns.length).toBeGreaterThan(def.printerColumns.length - 1);
      expect(structuralViolations(version.schema.openAPIV3Schema, def.kind)).toEqual([]);
    });

    it(`every field of ${def.kind} has a description, so \`kubectl explain\` explains it`, async () => {
      const crd = parse(await readFile(join(import.meta.dirname, crdFileName(def)), 'utf8'));
      expect(undescribed(crd.spec.versions[0].schema.openAPIV3Schema, def.kind)).toEqual([]);
    });
  }

  it('scopes follow DESIGN.md: fleet and accounts cluster-wide, account-owned kinds namespaced', () => {
    const scope = Object.fromEntries(KINDS.map((k) => [k.kind, k.scope]));
    expect(scope).toMatchObject({
      Mini: 'Cluster',
      VM: 'Cluster',
      Account: 'Cluster',
      Rate: 'Cluster',
      ApiKey: 'Cluster',
      Reservation: 'Namespaced',
      Sandbox: 'Namespaced',
      Snapshot: 'Namespaced',
      Task: 'Namespaced',
      Replay: 'Namespaced',
      IdempotencyRecord: 'Namespaced',
    });
  });
});
