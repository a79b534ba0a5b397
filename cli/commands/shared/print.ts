// How the CLI prints objects: kubectl-style aligned tables from the server's Table, YAML, JSON, and
// `describe` pages.
import { stringify } from 'yaml';
import type { Table, TableCell } from '../../../api/kube/table.ts';
import type { AnyResource, KindDefinition } from '../../../crds/index.ts';
import { humanDuration } from '../../../api/kube/table.ts';

export type Output = 'table' | 'wide' | 'yaml' | 'json' | 'name';

export interface TableFormat {
  wide: boolean;
  withNamespace: boolean;
  headers: boolean;
  /** Column widths to pad to at least, so that rows printed later (watch) line up with earlier ones. */
  widths?: number[];
}

/** Rows of a Table as text: upper-case headers, columns three spaces apart, like kubectl. */
export function formatTable(table: Table, opts: TableFormat): { lines: string[]; widths: number[] } {
  const shown = table.columnDefinitions
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => opts.wide || c.priority === 0);
  const rows = table.rows.map((row) => {
    const cells = shown.map(({ i }) => cellText(row.cells[i] ?? null));
    if (!opts.withNamespace) return cells;
    const meta = (row.object as { metadata?: { namespace?: string } } | undefined)?.metadata;
    return [meta?.namespace ?? '', ...cells];
  });
  const header = [
    ...(opts.withNamespace ? ['NAMESPACE'] : []),
    ...shown.map(({ c }) => c.name.toUpperCase()),
  ];
  const all = opts.headers ? [header, ...rows] : rows;
  const widths = header.map((_, col) =>
    Math.max(opts.widths?.[col] ?? 0, ...all.map((r) => (r[col] ?? '').length)),
  );
  const lines = all.map((r) =>
    r
      .map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col] ?? 0)))
      .join('   ')
      .trimEnd(),
  );
  return { lines, widths };
}

function cellText(cell: TableCell): string {
  return cell === null ? '' : String(cell);
}

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0 });
}

export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Several objects as one document, the way kubectl prints a list in YAML or JSON. */
export function asList(items: AnyResource[]): unknown {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
}

/** A human page about one object: identity, spec, status, conditions. */
export function describe(def: KindDefinition, obj: AnyResource, now = new Date()): string {
  const meta = obj.metadata;
  const pairs = (record: Record<string, string> | undefined) =>
    record && Object.keys(record).length > 0
      ? Object.entries(record)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n              ')
      : '<none>';
  const age = (t: string | undefined) =>
    t ? `${t} (${humanDuration(now.getTime() - Date.parse(t))} ago)` : '<none>';
  const status = (obj.status ?? {}) as { conditions?: unknown[]; observedGeneration?: number };
  const { conditions, ...rest } = status;
  const lines = [
    `Name:         ${meta.name}`,
    ...(def.scope === 'Namespaced' ? [`Namespace:    ${meta.namespace ?? ''}`] : []),
    `Kind:         ${def.kind}`,
    `Labels:       ${pairs(meta.labels)}`,
    `Annotations:  ${pairs(withoutLastApplied(meta.annotations))}`,
    `Created:      ${age(meta.creationTimestamp)}`,
    ...(meta.deletionTimestamp ? [`Deleting:     since ${meta.deletionTimestamp}`] : []),
    ...(meta.finalizers?.length ? [`Finalizers:   ${meta.finalizers.join(', ')}`] : []),
    `Generation:   ${meta.generation ?? ''}${status.observedGeneration !== undefined ? ` (observed ${status.observedGeneration})` : ''}`,
    `Spec:`,
    indent(toYaml(obj.spec ?? {})),
    `Status:`,
    Object.keys(rest).length > 0 ? indent(toYaml(rest)) : '  <none>',
  ];
  if (Array.isArray(conditions) && conditions.length > 0)
    lines.push('Conditions:', indent(toYaml(conditions)));
  return `${lines.join('\n').trimEnd()}\n`;
}

function withoutLastApplied(annotations: Record<string, string> | undefined) {
  if (!annotations) return undefined;
  const { 'kubectl.kubernetes.io/last-applied-configuration': _applied, ...rest } = annotations;
  return rest;
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}
