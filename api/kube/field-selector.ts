// Field selectors on list and watch. The API server supports only `metadata.name` and
// `metadata.namespace` for custom resources; kubectl uses `metadata.name=NAME` for `get NAME -w`
// and to wait for a deletion.
import type { AnyResource } from '../../crds/index.ts';
import { StoreError } from '../../store/store.ts';

interface Requirement {
  field: 'metadata.name' | 'metadata.namespace';
  equal: boolean;
  value: string;
}

export type FieldFilter = (obj: AnyResource) => boolean;

/** Parses `a=b,c!=d` into a predicate; unknown fields are a BadRequest, as on the API server. */
export function parseFieldSelector(selector: string | undefined): FieldFilter {
  if (selector === undefined || selector.trim() === '') return () => true;
  const requirements = selector.split(',').map(parseRequirement);
  return (obj) =>
    requirements.every((r) => {
      const actual = r.field === 'metadata.name' ? obj.metadata.name : (obj.metadata.namespace ?? '');
      return (actual === r.value) === r.equal;
    });
}

function parseRequirement(text: string): Requirement {
  const match = /^\s*([^!=\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(text);
  if (!match) throw new StoreError('BadRequest', `invalid field selector: "${text}"`);
  const [, field = '', op, value = ''] = match;
  if (field !== 'metadata.name' && field !== 'metadata.namespace') {
    throw new StoreError('BadRequest', `field label not supported: ${field}`);
  }
  return { field, equal: op !== '!=', value };
}
