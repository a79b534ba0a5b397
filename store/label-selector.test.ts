import { describe, expect, it } from 'vitest';
import { parseLabelSelector } from './label-selector.ts';
import { isStoreError } from './store.ts';

const matches = (selector: string, labels?: Record<string, string>): boolean =>
  parseLabelSelector(selector).matches(labels);

describe('label selectors', () => {
  it('parses every operator into requirements', () => {
    expect(parseLabelSelector('a=1, b==2,c!=3,d in (x, y),e notin (z),f,!g').requirements).toEqual([
      { key: 'a', op: 'eq', values: ['1'] },
      { key: 'b', op: 'eq', values: ['2'] },
      { key: 'c', op: 'neq', values: ['3'] },
      { key: 'd', op: 'in', values: ['x', 'y'] },
      { key: 'e', op: 'notin', values: ['z'] },
      { key: 'f', op: 'exists', values: [] },
      { key: 'g', op: 'notexists', values: [] },
    ]);
  });

  it('matches as Kubernetes does: != and notin also match a missing label', () => {
    expect(matches('env=prod', { env: 'prod' })).toBe(true);
    expect(matches('env=prod', { env: 'dev' })).toBe(false);
    expect(matches('env!=prod', {})).toBe(true);
    expect(matches('env notin (prod,dev)', undefined)).toBe(true);
    expect(matches('env in (prod,dev)', undefined)).toBe(false);
    expect(matches('env', { env: '' })).toBe(true);
    expect(matches('!env', { env: '' })).toBe(false);
    expect(matches('env=', { env: '' })).toBe(true);
    expect(matches('', undefined)).toBe(true);
  });

  it('accepts prefixed keys', () => {
    expect(matches('sandbay.io/pool=warm', { 'sandbay.io/pool': 'warm' })).toBe(true);
  });

  it('does not treat inherited object properties as labels', () => {
    expect(matches('constructor', {})).toBe(false);
    expect(matches('toString!=x', {})).toBe(true);
  });

  it.each(['a in b', 'a in (b', ',a', 'a=b,', 'a b', '=b', 'a=b=c', 'Bad_/x=1', 'a=-x', '!', 'a ~ b'])(
    'refuses %j with BadRequest',
    (selector) => {
      let err: unknown;
      try {
        parseLabelSelector(selector);
      } catch (e) {
        err = e;
      }
      expect(isStoreError(err, 'BadRequest')).toBe(true);
    },
  );
});
