import { describe, expect, it } from 'vitest';
import type { AnyResource } from '../../crds/index.ts';
import { parseFieldSelector } from './field-selector.ts';
import { applyJsonPatch } from './json-patch.ts';
import { negotiate } from './negotiate.ts';
import { humanDuration, jsonPathValue, tableRow } from './table.ts';
import { ReservationKind } from '../../crds/index.ts';

describe('negotiate', () => {
  it('picks the first rendering the client accepts', () => {
    expect(negotiate(undefined)).toEqual({ as: 'Object' });
    expect(negotiate('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toEqual({
      as: 'Table',
      apiVersion: 'meta.k8s.io/v1',
    });
    expect(negotiate('application/json;as=Table;v=v9;g=meta.k8s.io, application/json')).toEqual({
      as: 'Object',
    });
    expect(negotiate('application/vnd.kubernetes.protobuf, */*')).toEqual({ as: 'Object' });
    expect(negotiate('application/json;q=0.5, application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toEqual({
      as: 'Table',
      apiVersion: 'meta.k8s.io/v1beta1',
    });
    expect(negotiate('application/vnd.kubernetes.protobuf')).toBeUndefined();
  });
});

describe('humanDuration', () => {
  it('prints ages the way kubectl does', () => {
    const s = 1000;
    expect(humanDuration(-5 * s)).toBe('<invalid>');
    expect(humanDuration(0)).toBe('0s');
    expect(humanDuration(119 * s)).toBe('119s');
    expect(humanDuration(200 * s)).toBe('3m20s');
    expect(humanDuration(600 * s)).toBe('10m');
    expect(humanDuration(5 * 3600 * s + 60 * s)).toBe('5h1m');
    expect(humanDuration(30 * 3600 * s)).toBe('30h');
    expect(humanDuration(52 * 3600 * s)).toBe('2d4h');
    expect(humanDuration(100 * 86400 * s)).toBe('100d');
    expect(humanDuration((3 * 365 + 2) * 86400 * s)).toBe('3y2d');
    expect(humanDuration(9 * 365 * 86400 * s)).toBe('9y');
  });
});

describe('date columns', () => {
  it('print a future time as how far ahead it is (a reservation End), a past one as an age', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const reservation = {
      apiVersion: 'sandbay.io/v1alpha1',
      kind: 'Reservation',
      metadata: { name: 'r', namespace: 'a', creationTimestamp: '2025-12-31T23:59:00Z' },
      spec: { hours: 24, miniCount: 1, macModel: 'm4', vmLayout: 'split' },
      status: { endAt: '2026-01-02T00:00:00Z' },
    } as AnyResource;
    const cells = tableRow(ReservationKind, reservation, 'None', now).cells;
    expect(cells).toContain('in 24h');
    expect(cells.at(-1)).toBe('60s');
  });
});

describe('jsonPathValue', () => {
  it('follows dotted paths and indexes, undefined when a step is missing', () => {
    const obj = { spec: { a: { b: 3 } }, status: { list: ['x', 'y'] } };
    expect(jsonPathValue(obj, '.spec.a.b')).toBe(3);
    expect(jsonPathValue(obj, '.status.list[1]')).toBe('y');
    expect(jsonPathValue(obj, '.status.missing.deeper')).toBeUndefined();
  });
});

describe('parseFieldSelector', () => {
  const obj = (name: string, namespace?: string) =>
    ({ metadata: { name, ...(namespace && { namespace }) } }) as AnyResource;
  it('matches metadata.name and metadata.namespace with =, == and !=', () => {
    expect(parseFieldSelector('metadata.name=a')(obj('a'))).toBe(true);
    expect(parseFieldSelector('metadata.name==a')(obj('b'))).toBe(false);
    expect(parseFieldSelector('metadata.name!=a,metadata.namespace=n')(obj('b', 'n'))).toBe(true);
    expect(parseFieldSelector('')(obj('x'))).toBe(true);
  });
  it('refuses other fields and malformed requirements', () => {
    expect(() => parseFieldSelector('spec.x=1')).toThrow(/field label not supported/);
    expect(() => parseFieldSelector('metadata.name')).toThrow(/invalid field selector/);
  });
});

describe('applyJsonPatch', () => {
  const doc = { a: { b: [1, 2] }, c: 'x' };
  it('applies add, remove, replace, move, copy and test without touching the input', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'add', path: '/a/b/0', value: 0 },
      { op: 'remove', path: '/a/b/1' },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e~1f' },
      { op: 'test', path: '/e~1f', value: 'y' },
    ]);
    expect(out).toEqual({ a: { b: [0, 2, 3] }, c: 'y', 'e/f': 'y' });
    expect(doc).toEqual({ a: { b: [1, 2] }, c: 'x' });
  });
  it('fails on a missing path, a failed test or a malformed operation', () => {
    expect(() => applyJsonPatch(doc, [{ op: 'remove', path: '/zz' }])).toThrow(/no such path/);
    expect(() => applyJsonPatch(doc, [{ op: 'replace', path: '/a/b/5', value: 1 }])).toThrow(/no such path/);
    expect(() => applyJsonPatch(doc, [{ op: 'test', path: '/c', value: 'nope' }])).toThrow(/test failed/);
    expect(() => applyJsonPatch(doc, [{ op: 'frob', path: '/c' }])).toThrow(/invalid JSON patch operation/);
    expect(() => applyJsonPatch(doc, { op: 'add' })).toThrow(/must be an array/);
  });
});
