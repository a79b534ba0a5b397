import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KINDS } from '../../crds/index.ts';
import { GV, openKubeFixture, type KubeFixture } from './testing.ts';

let fx: KubeFixture;
beforeEach(async () => {
  fx = await openKubeFixture();
});
afterEach(() => fx.close());

const get = (url: string) => fx.app.inject({ method: 'GET', url, headers: fx.headers }).then((r) => r.json());

describe('discovery', () => {
  it('lists the sandbay.io group (and coordination.k8s.io for Leases) with preferred versions', async () => {
    expect(await get('/api')).toMatchObject({ kind: 'APIVersions', versions: [] });
    const groups = await get('/apis');
    expect(groups).toMatchObject({
      kind: 'APIGroupList',
      groups: [{ name: 'sandbay.io' }, { name: 'coordination.k8s.io' }],
    });
    expect(await get('/apis/coordination.k8s.io/v1')).toMatchObject({
      kind: 'APIResourceList',
      resources: [{ name: 'leases', kind: 'Lease', namespaced: true }],
    });
    expect(await get('/apis/sandbay.io')).toMatchObject({
      kind: 'APIGroup',
      preferredVersion: { groupVersion: 'sandbay.io/v1alpha1', version: 'v1alpha1' },
    });
  });

  it('lists every kind with verbs, short names, scope and a status subresource', async () => {
    const list = await get(GV);
    expect(list).toMatchObject({ kind: 'APIResourceList', groupVersion: 'sandbay.io/v1alpha1' });
    const byName = new Map(list.resources.map((r: { name: string }) => [r.name, r]));
    for (const def of KINDS) {
      expect(byName.get(def.plural)).toMatchObject({
        kind: def.kind,
        singularName: def.singular,
        namespaced: def.scope === 'Namespaced',
        shortNames: def.shortNames,
        verbs: expect.arrayContaining(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']),
      });
      expect(byName.get(`${def.plural}/status`)).toMatchObject({
        kind: def.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
  });

  it('reports a Kubernetes-style version', async () => {
    expect(await get('/version')).toMatchObject({
      major: '1',
      minor: expect.any(String),
      gitVersion: expect.stringMatching(/^v1\./),
    });
  });
});

describe('OpenAPI', () => {
  it('serves v3 for the group: PATCH takes fieldValidation and no strategic merge patch', async () => {
    const root = await get('/openapi/v3');
    const url = root.paths['apis/sandbay.io/v1alpha1'].serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/sandbay.io\/v1alpha1\?hash=/);
    const doc = await get(url);
    const item = doc.paths['/apis/sandbay.io/v1alpha1/namespaces/{namespace}/sandboxes/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'sandbay.io',
      version: 'v1alpha1',
      kind: 'Sandbox',
    });
    expect(item.patch.parameters.map((p: { name: string }) => p.name)).toContain('fieldValidation');
    expect(Object.keys(item.patch.requestBody.content)).not.toContain(
      'application/strategic-merge-patch+json',
    );
  });

  it('turns the TypeBox schemas into OpenAPI 3.0 schemas', async () => {
    const root = await get('/openapi/v3');
    const doc = await get(root.paths['apis/sandbay.io/v1alpha1'].serverRelativeURL);
    const miniSchema = doc.components.schemas['io.sandbay.v1alpha1.Mini'];
    expect(miniSchema['x-kubernetes-group-version-kind']).toEqual([
      { group: 'sandbay.io', version: 'v1alpha1', kind: 'Mini' },
    ]);
    expect(miniSchema.properties.kind).toEqual({
      type: 'string',
      enum: ['Mini'],
      description: 'Always `Mini`.',
    });
    expect(miniSchema.properties.spec.properties.model).toEqual({
      type: 'string',
      enum: ['m4', 'm4-pro', 'm5-pro'],
      description: 'user: the hardware model; decides capacity and warm profiles.',
    });
    expect(miniSchema.properties.metadata.properties.labels).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(JSON.stringify(doc)).not.toMatch(/"const"|patternProperties/);
  });

  it('answers /openapi/v2 with a 404 Status (kubectl then uses v3)', async () => {
    const res = await fx.app.inject({ method: 'GET', url: '/openapi/v2', headers: fx.headers });
    expect(res.statusCode).toBe(404);
    expect(res.json().kind).toBe('Status');
  });
});
