import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './merge-patch.ts';

describe('JSON merge patch (RFC 7386)', () => {
  // RFC 7386, Appendix A.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('patches %j with %j into %j', (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });

  it('modifies neither argument and shares nothing with them', () => {
    const target = { spec: { a: { deep: 1 } }, keep: { x: 1 } };
    const patch = { spec: { b: { deep: 2 } } };
    const result = applyMergePatch(target, patch) as typeof target & typeof patch;
    result.keep.x = 9;
    result.spec.b.deep = 9;
    expect(target).toEqual({ spec: { a: { deep: 1 } }, keep: { x: 1 } });
    expect(patch).toEqual({ spec: { b: { deep: 2 } } });
  });

  it('keeps a __proto__ key as data instead of changing the prototype', () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
