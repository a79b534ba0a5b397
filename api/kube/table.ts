// The `Table` rendering of objects (meta.k8s.io/v1), which kubectl asks for to print `get` output:
// a Name column, the kind's printer columns and Age, with server-side formatting like the API server
// does for custom resources (dates as human durations, absent values as null).
import type { AnyResource, KindDefinition, PrinterColumn } from '../../crds/index.ts';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export type TableCell = string | number | boolean | null;

export interface TableRow {
  cells: TableCell[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** What a row carries besides its cells (the `includeObject` query parameter). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function columnDefinitions(def: KindDefinition): TableColumnDefinition[] {
  return [
    {
      name: 'Name',
      type: 'string',
      format: 'name',
      description: 'Name must be unique within a namespace.',
      priority: 0,
    },
    ...def.printerColumns.map((c) => ({
      name: c.name,
      type: c.type === 'date' ? 'date' : c.type,
      format: '',
      description: `${c.jsonPath} of the ${def.kind}`,
      priority: c.priority ?? 0,
    })),
    {
      name: 'Age',
      type: 'date',
      format: '',
      description: 'Time since the object was created.',
      priority: 0,
    },
  ];
}

export function tableRow(def: KindDefinition, obj: AnyResource, include: IncludeObject, now: Date): TableRow {
  const cells: TableCell[] = [
    obj.metadata.name,
    ...def.printerColumns.map((c) => cell(c, jsonPathValue(obj, c.jsonPath), now)),
    humanAge(obj.metadata.creationTimestamp, now),
  ];
  if (include === 'None') return { cells };
  return { cells, object: include === 'Object' ? obj : partialObjectMetadata(obj) };
}

export function toTable(
  def: KindDefinition,
  objects: AnyResource[],
  opts: { resourceVersion?: string; include: IncludeObject; apiVersion: string; now: Date },
): Table {
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: opts.resourceVersion === undefined ? {} : { resourceVersion: opts.resourceVersion },
    columnDefinitions: columnDefinitions(def),
    rows: objects.map((o) => tableRow(def, o, opts.include, opts.now)),
  };
}

/** The metadata-only form of an object that Table rows and metadata clients use. */
export function partialObjectMetadata(obj: AnyResource) {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

function cell(column: PrinterColumn, value: unknown, now: Date): TableCell {
  if (value === undefined || value === null) return null;
  if (column.type === 'date') return typeof value === 'string' ? humanAge(value, now) : null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/**
 * The value at a simple JSONPath (`.spec.address`, `.status.artifact.bytes`, `.spec.items[0]`), which is
 * all the printer columns use; undefined when any step is missing.
 */
export function jsonPathValue(obj: unknown, path: string): unknown {
  const steps = path.replace(/^\$?\.?/, '').match(/[^.[\]]+|\[\d+\]/g) ?? [];
  let value: unknown = obj;
  for (const step of steps) {
    if (value === null || typeof value !== 'object') return undefined;
    const key = step.startsWith('[') ? Number(step.slice(1, -1)) : step;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

function humanAge(timestamp: string | undefined, now: Date): string | null {
  if (timestamp === undefined) return null;
  const then = Date.parse(timestamp);
  if (Number.isNaN(then)) return null;
  // Kubernetes prints `<invalid>` for a future time; a reservation's End is always ahead, so say when.
  const ahead = then - now.getTime();
  return ahead > 1000 ? `in ${humanDuration(ahead)}` : humanDuration(-ahead);
}

/** A duration the way kubectl prints ages (`45s`, `3m20s`, `5h`, `2d4h`, `3y`): the API server's rules. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}
