import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAC_MODELS, type Rate } from '../crds/index.ts';
import { tempStore, type TempStore } from '../test/operator-fixtures.ts';
import { readRates, seedRates } from './seed.ts';

let t: TempStore;
beforeEach(async () => {
  t = await tempStore();
});
afterEach(async () => t.cleanup());

describe('rate seeds', () => {
  it('config/rates.yaml holds a Rate for every Mac model', async () => {
    const rates = await readRates();
    expect(rates.map((r) => r.spec.macModel).sort()).toEqual([...MAC_MODELS].sort());
    expect(rates.every((r) => r.metadata.name === r.spec.macModel && r.spec.centsPerHour > 0)).toBe(true);
  });

  it('seeds an empty store once, and never undoes an operator’s edit', async () => {
    expect((await seedRates(t.store)).sort()).toEqual([...MAC_MODELS].sort());
    const m4 = (await t.store.get<Rate>({ kind: 'Rate', name: 'm4' }))!;
    await t.store.update({ ...m4, spec: { ...m4.spec, centsPerHour: 1 } });
    await t.store.delete({ kind: 'Rate', name: 'm5-pro' });
    expect(await seedRates(t.store)).toEqual([]);
    expect((await t.store.get<Rate>({ kind: 'Rate', name: 'm4' }))!.spec.centsPerHour).toBe(1);
    expect(await t.store.get({ kind: 'Rate', name: 'm5-pro' })).toBeUndefined();
  });

  it('refuses a file that is not Rates, naming the document, and writes nothing', async () => {
    const file = path.join(t.dir, 'bad.yaml');
    await writeFile(
      file,
      'apiVersion: sandbay.io/v1alpha1\nkind: Rate\nmetadata: {name: m4}\nspec: {macModel: m9, centsPerHour: 5}\n',
    );
    await expect(seedRates(t.store, file)).rejects.toThrow(/document 1 is not a Rate/);
    expect((await t.store.list('Rate')).items).toHaveLength(0);
  });
});
