import { describe, expect, it } from 'vitest';
import type { AnyResource } from '../crds/index.ts';
import { isStoreError, type StoreError } from './store.ts';
import Type from 'typebox';
import Value from 'typebox/value';
import { STORE_KINDS } from '../crds/index.ts';
import { defaulterOf, resolveKind, validateResource } from './validation.ts';

const API = 'sandbay.io/v1alpha1';

function invalid(obj: unknown): StoreError {
  const def = resolveKind((obj as AnyResource).kind);
  try {
    validateResource(def, obj as AnyResource);
  } catch (err) {
    if (isStoreError(err, 'Invalid')) return err;
    throw err;
  }
  throw new Error('expected Invalid');
}

describe('resource validation', () => {
  it("refuses VM slots on a Mini whose driver is not linux, naming the field (a kind's cross-field rules)", () => {
    const mini = (driver: string) => ({
      apiVersion: API,
      kind: 'Mini',
      metadata: { name: 'm1' },
      spec: { address: '10.0.0.1', model: 'm4', driver, vmSlots: 8 },
    });
    expect(invalid(mini('tart')).message).toContain(
      'spec.vmSlots: applies to the linux driver only, not tart',
    );
    expect(() => validateResource(resolveKind('Mini'), mini('linux') as AnyResource)).not.toThrow();
  });

  it('applies schema defaults in place before checking', () => {
    const obj: AnyResource = {
      apiVersion: API,
      kind: 'Sandbox',
      metadata: { name: 'sb-a', namespace: 'acct' },
      spec: { reservation: 'r' },
    };
    validateResource(resolveKind('Sandbox'), obj);
    expect(obj.spec).toEqual({ reservation: 'r', ephemeral: false });
  });

  it("sets each kind's defaults exactly as Value.Default does, and falls back to it for schemas it cannot compile", () => {
    const shapes: unknown[] = [
      {},
      { spec: {} },
      { spec: { ephemeral: true, revoked: true, schedulable: false } },
      { spec: { ephemeral: undefined } },
      { spec: null },
      { spec: [] },
      { spec: 'x' },
      { metadata: { name: 'a' }, spec: { cpu: 4 }, status: { phase: 'running' } },
    ];
    const nested = Type.Object({
      a: Type.Array(Type.Object({ b: Type.Boolean({ default: true }) })),
      c: Type.Object({ d: Type.Integer({ default: 3 }), e: Type.Optional(Type.String({ default: 'x' })) }),
      f: Type.Union([Type.Object({ g: Type.Boolean({ default: false }) }), Type.String()]),
    });
    const cases = [
      ...STORE_KINDS.map((k) => ({ name: k.kind, schema: k.schema })),
      { name: 'nested', schema: nested },
      { name: 'plain', schema: Type.Object({ c: Type.Object({ d: Type.Integer({ default: 3 }) }) }) },
    ];
    for (const { name, schema } of cases) {
      for (const shape of [...shapes, { a: [{}, { b: false }], c: {}, f: {} }, { c: { e: 'y' } }]) {
        const expected = Value.Default(schema, structuredClone(shape));
        const actual = structuredClone(shape);
        defaulterOf(schema)?.(actual);
        expect(actual, `${name} ${JSON.stringify(shape)}`).toEqual(expected);
      }
    }
    expect(defaulterOf(resolveKind('VM').schema)).toBeUndefined();
  });

  it('checks kinds that declare no default as strictly (their defaults step is skipped)', () => {
    const spec = { mini: 'm', slot: 0, cpu: 4, memoryGiB: 8, image: 'base', diskGiB: 64 };
    const vm = { apiVersion: API, kind: 'VM', metadata: { name: 'vm-a' }, spec } as AnyResource;
    const before = structuredClone(vm);
    validateResource(resolveKind('VM'), vm);
    expect(vm).toEqual(before);
    const err = invalid({ ...vm, spec: { ...spec, slot: 'one', bogus: 1 } });
    expect(err.details!.map((d) => d.path)).toEqual(expect.arrayContaining(['spec.slot']));
  });

  it('names each field in the message and the details', () => {
    const err = invalid({
      apiVersion: 'v1',
      kind: 'Sandbox',
      metadata: { name: 'Not_A_Name', namespace: 'acct', finalizers: [3] },
      spec: { cpu: 1, extra: true, reservation: '' },
      status: { phase: 'exploded' },
    });
    expect(err.details).toEqual(
      expect.arrayContaining([
        { path: 'apiVersion', message: 'must be "sandbay.io/v1alpha1"' },
        { path: 'metadata.finalizers[0]', message: 'must be string' },
        { path: 'spec.reservation', message: 'must not have fewer than 1 characters' },
        { path: 'spec.cpu', message: 'must be >= 2' },
        { path: 'spec.extra', message: 'unknown field' },
        {
          path: 'status.phase',
          message: 'must be one of: pending, booting, running, paused, completing, failed',
        },
      ]),
    );
    expect(err.details.map((d) => d.path)).toContain('metadata.name');
    expect(err.details.filter((d) => d.path === 'spec.extra')).toHaveLength(1);
    expect(err.message).toMatch(/^Sandbox "acct\/Not_A_Name" is invalid: /);
    expect(err.message).toContain('spec.cpu: must be >= 2');
  });

  it('checks namespaces and label syntax', () => {
    const err = invalid({
      apiVersion: API,
      kind: 'Task',
      metadata: { name: 't', namespace: 'Bad NS', labels: { 'ok-key': 'bad value!', '-bad': 'x' } },
      spec: { instruction: 'x' },
    });
    expect(err.details.map((d) => d.path).sort()).toEqual([
      'metadata.labels.-bad',
      'metadata.labels.ok-key',
      'metadata.namespace',
    ]);
  });

  it('resolves kinds by any name and refuses unknown ones with BadRequest', () => {
    expect(resolveKind('vms').kind).toBe('VM');
    expect(resolveKind('SB').kind).toBe('Sandbox');
    expect(() => resolveKind('Pod')).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });
});
