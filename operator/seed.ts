// Seeds the Rate resources of `config/rates.yaml` into a store that has none (a fresh data dir).
// Once any Rate exists the store is the truth: operator edits and deletions are never undone.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { Compile } from 'typebox/compile';
import { RateSchema, type Rate } from '../crds/index.ts';
import { isStoreError, type Store } from '../store/store.ts';

export const DEFAULT_RATES_FILE = fileURLToPath(new URL('../config/rates.yaml', import.meta.url));

const rateCheck = Compile(RateSchema);

/** Parses a multi-document YAML file of Rate resources; throws naming the first bad document. */
export async function readRates(file: string = DEFAULT_RATES_FILE): Promise<Rate[]> {
  const docs = parseAllDocuments(await readFile(file, 'utf8'));
  return docs.map((doc, i) => {
    if (doc.errors.length > 0) throw new Error(`${file}: document ${i + 1}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (!rateCheck.Check(value)) {
      const first = [...rateCheck.Errors(value)][0];
      throw new Error(`${file}: document ${i + 1} is not a Rate: ${first?.message ?? 'invalid'}`);
    }
    return value;
  });
}

/** Creates the seed Rates when the store holds none. Returns the names created. */
export async function seedRates(store: Store, file: string = DEFAULT_RATES_FILE): Promise<string[]> {
  const existing = await store.list('Rate');
  if (existing.items.length > 0) return [];
  const created: string[] = [];
  for (const rate of await readRates(file)) {
    try {
      await store.create(rate);
      created.push(rate.metadata.name);
    } catch (err) {
      if (!isStoreError(err, 'AlreadyExists')) throw err;
    }
  }
  return created;
}
