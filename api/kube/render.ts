// Objects and lists in the rendering the client negotiated (see negotiate.ts).
import { apiVersionOf, type AnyResource, type KindDefinition } from '../../crds/index.ts';
import type { Rendering } from './negotiate.ts';
import { partialObjectMetadata, toTable, type IncludeObject } from './table.ts';

export interface RenderOptions {
  rendering: Rendering;
  /** The `includeObject` query parameter of Table requests. */
  include: IncludeObject;
  now: Date;
}

export function includeObjectParam(value: unknown): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

export function renderObject(def: KindDefinition, obj: AnyResource, opts: RenderOptions): unknown {
  const { rendering } = opts;
  if (rendering.as === 'Table') {
    return toTable(def, [obj], {
      resourceVersion: obj.metadata.resourceVersion,
      include: opts.include,
      apiVersion: rendering.apiVersion,
      now: opts.now,
    });
  }
  if (rendering.as === 'PartialObjectMetadata') {
    return { ...partialObjectMetadata(obj), apiVersion: rendering.apiVersion };
  }
  return obj;
}

export function renderList(
  def: KindDefinition,
  items: AnyResource[],
  resourceVersion: string,
  opts: RenderOptions,
): unknown {
  const { rendering } = opts;
  if (rendering.as === 'Table') {
    return toTable(def, items, {
      resourceVersion,
      include: opts.include,
      apiVersion: rendering.apiVersion,
      now: opts.now,
    });
  }
  if (rendering.as === 'PartialObjectMetadata') {
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: rendering.apiVersion,
      metadata: { resourceVersion },
      items: items.map((o) => ({ ...partialObjectMetadata(o), apiVersion: rendering.apiVersion })),
    };
  }
  return { apiVersion: apiVersionOf(def), kind: `${def.kind}List`, metadata: { resourceVersion }, items };
}
