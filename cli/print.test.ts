import { describe, expect, it } from 'vitest';
import { toTable } from '../api/kube/table.ts';
import { MiniKind, ReservationKind, type AnyResource } from '../crds/index.ts';
import { describe as describePage, formatTable } from './commands/shared/print.ts';

const now = new Date('2030-01-01T01:00:00Z');
const mini = (name: string, address: string, reservation?: string): AnyResource => ({
  apiVersion: 'sandbay.io/v1alpha1',
  kind: 'Mini',
  metadata: { name, creationTimestamp: '2030-01-01T00:00:00Z' },
  spec: { address, model: 'm4', driver: 'linux', schedulable: true },
  ...(reservation && { status: { reservation } }),
});
const table = toTable(MiniKind, [mini('a', '127.0.0.1', 'acme/r1'), mini('longer-name', '127.0.0.22')], {
  include: 'Metadata',
  apiVersion: 'meta.k8s.io/v1',
  now,
});

describe('formatTable', () => {
  it('aligns columns three spaces apart under upper-case headers, hiding wide columns', () => {
    const { lines } = formatTable(table, { wide: false, withNamespace: false, headers: true });
    expect(lines).toEqual([
      'NAME          ADDRESS      MODEL   DRIVER   PHASE   LAYOUT   AGE',
      'a             127.0.0.1    m4      linux                     60m',
      'longer-name   127.0.0.22   m4      linux                     60m',
    ]);
  });

  it('shows priority columns with -o wide, and a NAMESPACE column across namespaces', () => {
    const wide = formatTable(table, { wide: true, withNamespace: false, headers: true }).lines;
    expect(wide[0]).toContain('RESERVATION');
    expect(wide[1]).toContain('acme/r1');
    const r: AnyResource = {
      apiVersion: 'sandbay.io/v1alpha1',
      kind: 'Reservation',
      metadata: { name: 'r1', namespace: 'acme' },
      spec: { hours: 24, miniCount: 1, macModel: 'm4', vmLayout: 'split' },
    };
    const rt = toTable(ReservationKind, [r], { include: 'Metadata', apiVersion: 'meta.k8s.io/v1', now });
    const lines = formatTable(rt, { wide: false, withNamespace: true, headers: true }).lines;
    expect(lines[0]?.startsWith('NAMESPACE   NAME')).toBe(true);
    expect(lines[1]?.startsWith('acme        r1')).toBe(true);
  });

  it('pads later rows to the widths printed before (watch output stays aligned)', () => {
    const first = formatTable(table, { wide: false, withNamespace: false, headers: true });
    const one = toTable(MiniKind, [mini('b', '1.2.3.4')], {
      include: 'Metadata',
      apiVersion: 'meta.k8s.io/v1',
      now,
    });
    const { lines } = formatTable(one, {
      wide: false,
      withNamespace: false,
      headers: false,
      widths: first.widths,
    });
    expect(lines).toEqual(['b             1.2.3.4      m4      linux                     60m']);
  });
});

describe('describe', () => {
  it('shows identity, spec and status, without kubectl’s last-applied annotation', () => {
    const obj = mini('a', '127.0.0.1', 'acme/r1');
    obj.metadata.annotations = { 'kubectl.kubernetes.io/last-applied-configuration': '{}', note: 'x' };
    const page = describePage(MiniKind, obj, now);
    expect(page).toContain(
      'Name:         a\nKind:         Mini\nLabels:       <none>\nAnnotations:  note=x\n',
    );
    expect(page).toContain('Created:      2030-01-01T00:00:00Z (60m ago)');
    expect(page).toContain('Spec:\n  address: 127.0.0.1\n');
    expect(page).toContain('Status:\n  reservation: acme/r1\n');
  });
});
