// RFC 6902 through applyJsonPatch: the RFC's Appendix A examples (as the public json-patch-tests
// suite carries them in spec_tests.json), a few of that suite's edge cases, and the guards this
// module adds (prototype keys, a move into its own child).
import { describe, expect, it } from 'vitest';
import { isStoreError } from '../../store/store.ts';
import { applyJsonPatch } from './json-patch.ts';

interface Case {
  comment: string;
  doc: unknown;
  patch: unknown[];
  /** The patched document; absent when the patch must fail. */
  expected?: unknown;
  /** Part of the error message when the patch must fail. */
  error?: RegExp;
}

const RFC_APPENDIX_A: Case[] = [
  {
    comment: 'A.1 adding an object member',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux' }],
    expected: { baz: 'qux', foo: 'bar' },
  },
  {
    comment: 'A.2 adding an array element',
    doc: { foo: ['bar', 'baz'] },
    patch: [{ op: 'add', path: '/foo/1', value: 'qux' }],
    expected: { foo: ['bar', 'qux', 'baz'] },
  },
  {
    comment: 'A.3 removing an object member',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'remove', path: '/baz' }],
    expected: { foo: 'bar' },
  },
  {
    comment: 'A.4 removing an array element',
    doc: { foo: ['bar', 'qux', 'baz'] },
    patch: [{ op: 'remove', path: '/foo/1' }],
    expected: { foo: ['bar', 'baz'] },
  },
  {
    comment: 'A.5 replacing a value',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'replace', path: '/baz', value: 'boo' }],
    expected: { baz: 'boo', foo: 'bar' },
  },
  {
    comment: 'A.6 moving a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    expected: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    comment: 'A.7 moving an array element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    expected: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    comment: 'A.8 testing a value: success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    expected: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  {
    comment: 'A.9 testing a value: error',
    doc: { baz: 'qux' },
    patch: [{ op: 'test', path: '/baz', value: 'bar' }],
    error: /test failed/,
  },
  {
    comment: 'A.10 adding a nested member object',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    expected: { foo: 'bar', child: { grandchild: {} } },
  },
  {
    comment: 'A.11 ignoring unrecognized elements',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    expected: { foo: 'bar', baz: 'qux' },
  },
  {
    comment: 'A.12 adding to a nonexistent target',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
    error: /no such path/,
  },
  // A.13 (a duplicate "op" member) cannot be written as a JavaScript object; JSON.parse keeps the last.
  {
    comment: 'A.14 ~ escape ordering',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: 10 }],
    expected: { '/': 9, '~1': 10 },
  },
  {
    comment: 'A.15 comparing strings and numbers',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: '10' }],
    error: /test failed/,
  },
  {
    comment: 'A.16 adding an array value',
    doc: { foo: ['bar'] },
    patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    expected: { foo: ['bar', ['abc', 'def']] },
  },
];

const EDGE_CASES: Case[] = [
  {
    comment: 'replacing the whole document',
    doc: { foo: 1, baz: [{ qux: 'hello' }] },
    patch: [{ op: 'replace', path: '', value: { baz: 'qux' } }],
    expected: { baz: 'qux' },
  },
  {
    comment: 'adding at the root replaces the document',
    doc: { foo: 1 },
    patch: [{ op: 'add', path: '', value: [1, 2] }],
    expected: [1, 2],
  },
  {
    comment: 'an index equal to the length appends; one past it fails',
    doc: { foo: [1] },
    patch: [{ op: 'add', path: '/foo/1', value: 2 }],
    expected: { foo: [1, 2] },
  },
  {
    comment: 'an index past the end',
    doc: { foo: [1] },
    patch: [{ op: 'add', path: '/foo/3', value: 2 }],
    error: /no such path/,
  },
  {
    comment: 'an index with a leading zero',
    doc: { foo: [1, 2] },
    patch: [{ op: 'remove', path: '/foo/01' }],
    error: /no such path|invalid JSON patch/,
  },
  {
    comment: 'removing a missing member',
    doc: { foo: 1 },
    patch: [{ op: 'remove', path: '/bar' }],
    error: /no such path/,
  },
  {
    comment: 'test compares arrays and objects deeply',
    doc: { foo: [1, { a: 'b' }] },
    patch: [{ op: 'test', path: '/foo', value: [1, { a: 'b' }] }],
    expected: { foo: [1, { a: 'b' }] },
  },
  {
    comment: 'copy makes an independent value',
    doc: { a: { b: 1 } },
    patch: [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'replace', path: '/c/b', value: 2 },
    ],
    expected: { a: { b: 1 }, c: { b: 2 } },
  },
  {
    comment: 'move into its own child',
    doc: { a: { b: {} } },
    patch: [{ op: 'move', from: '/a', path: '/a/b/c' }],
    error: /into its own child/,
  },
  {
    comment: 'move onto itself is allowed (RFC 6902 4.4 forbids only a proper prefix)',
    doc: { a: 1 },
    patch: [{ op: 'move', from: '/a', path: '/a' }],
    expected: { a: 1 },
  },
  {
    comment: 'a failed operation applies nothing of the patch',
    doc: { a: 1 },
    patch: [
      { op: 'add', path: '/b', value: 2 },
      { op: 'remove', path: '/zz' },
    ],
    error: /no such path/,
  },
  {
    comment: 'an unknown op',
    doc: { a: 1 },
    patch: [{ op: 'frob', path: '/a' }],
    error: /invalid JSON patch operation/,
  },
];

const PROTOTYPE_KEYS: Case[] = [
  '/__proto__/polluted',
  '/constructor/prototype/polluted',
  '/a/prototype',
].flatMap((path) => [
  { comment: `add at ${path}`, doc: { a: {} }, patch: [{ op: 'add', path, value: 1 }], error: /refused/ },
  {
    comment: `copy from ${path}`,
    doc: { a: {} },
    patch: [{ op: 'copy', from: path, path: '/b' }],
    error: /refused/,
  },
]);

describe('applyJsonPatch', () => {
  for (const c of [...RFC_APPENDIX_A, ...EDGE_CASES, ...PROTOTYPE_KEYS]) {
    it(c.comment, () => {
      const before = structuredClone(c.doc);
      if (c.error) {
        let thrown: unknown;
        try {
          applyJsonPatch(c.doc, c.patch);
        } catch (err) {
          thrown = err;
        }
        expect(isStoreError(thrown, 'BadRequest'), String(thrown)).toBe(true);
        expect((thrown as Error).message).toMatch(c.error);
      } else {
        expect(applyJsonPatch(c.doc, c.patch)).toEqual(c.expected);
      }
      expect(c.doc, 'the input is untouched').toEqual(before);
    });
  }

  it('never reaches Object.prototype', () => {
    expect(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/x', value: 1 }])).toThrow();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('answers a patch that is not an array', () => {
    expect(() => applyJsonPatch({}, { op: 'add' })).toThrow(/must be an array/);
  });
});
