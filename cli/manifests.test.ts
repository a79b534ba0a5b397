import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kindNamed, readManifests } from './commands/shared/resources.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-manifests-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const mini = (name: string) =>
  `apiVersion: sandbay.io/v1alpha1\nkind: Mini\nmetadata:\n  name: ${name}\nspec:\n  address: 127.0.0.1\n  model: m4\n  driver: linux\n`;

describe('readManifests', () => {
  it('reads every document of a file, skipping empty ones, and List items', async () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n  - ${mini('c').trimEnd().replaceAll('\n', '\n    ')}\n`;
    await writeFile(join(dir, 'all.yaml'), `${mini('a')}---\n---\n${mini('b')}---\n${list}`);
    const names = readManifests(join(dir, 'all.yaml')).map((m) => m.obj.metadata.name);
    expect(names).toEqual(['a', 'b', 'c']);
  });

  it('reads the YAML and JSON files of a directory in name order', async () => {
    await writeFile(join(dir, '2.yml'), mini('two'));
    await writeFile(
      join(dir, '1.json'),
      JSON.stringify({ apiVersion: 'sandbay.io/v1alpha1', kind: 'Mini', metadata: { name: 'one' } }),
    );
    await writeFile(join(dir, 'notes.txt'), 'not a manifest');
    expect(readManifests(dir).map((m) => m.obj.metadata.name)).toEqual(['one', 'two']);
  });

  it('gives namespaced objects the -n namespace, and refuses them without one', async () => {
    const rsv = 'apiVersion: sandbay.io/v1alpha1\nkind: Reservation\nmetadata:\n  name: r1\nspec: {}\n';
    await writeFile(join(dir, 'r.yaml'), rsv);
    expect(readManifests(join(dir, 'r.yaml'), 'acme')[0]?.obj.metadata.namespace).toBe('acme');
    expect(() => readManifests(join(dir, 'r.yaml'))).toThrow(/reservation\/r1 needs a namespace/);
  });

  it('refuses other API groups, unknown kinds, nameless objects, bad YAML and missing paths', async () => {
    const cases: [string, RegExp][] = [
      ['apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n', /apiVersion "v1", expected sandbay.io\/v1alpha1/],
      ['apiVersion: sandbay.io/v1alpha1\nkind: Widget\nmetadata:\n  name: w\n', /resource type "Widget"/],
      ['apiVersion: sandbay.io/v1alpha1\nkind: Mini\nspec: {}\n', /needs metadata.name/],
      ['kind: [unclosed\n', /bad\.yaml: /],
    ];
    for (const [text, error] of cases) {
      await writeFile(join(dir, 'bad.yaml'), text);
      expect(() => readManifests(join(dir, 'bad.yaml'))).toThrow(error);
    }
    expect(() => readManifests(join(dir, 'nope.yaml'))).toThrow(/does not exist/);
  });
});

describe('kindNamed', () => {
  it('finds kinds by plural, singular, short or kind name, with or without the group', () => {
    for (const name of ['minis', 'mini', 'Mini', 'minis.sandbay.io'])
      expect(kindNamed(name).kind).toBe('Mini');
    expect(kindNamed('sb').kind).toBe('Sandbox');
    expect(() => kindNamed('pods')).toThrow('the server doesn\'t have a resource type "pods"');
  });
});
