// Content negotiation of the Kubernetes API: clients ask for plain objects (`application/json`), for a
// `Table` (kubectl get) or for metadata only (`PartialObjectMetadata`) through parameters of the Accept
// header, e.g. `application/json;as=Table;v=v1;g=meta.k8s.io, application/json`.

export type Rendering =
  | { as: 'Object' }
  | { as: 'Table'; apiVersion: string }
  | { as: 'PartialObjectMetadata'; apiVersion: string };

const META_VERSIONS = new Set(['v1', 'v1beta1']);

/** The first acceptable rendering in the client's order of preference; undefined when none is. */
export function negotiate(accept: string | undefined): Rendering | undefined {
  if (accept === undefined || accept.trim() === '') return { as: 'Object' };
  const ranges = accept
    .split(',')
    .map(parseMediaRange)
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q); // stable: equal q keeps the client's order
  for (const range of ranges) {
    const rendering = renderingFor(range);
    if (rendering) return rendering;
  }
  return undefined;
}

interface MediaRange {
  type: string;
  params: Map<string, string>;
  q: number;
}

function parseMediaRange(text: string): MediaRange {
  const [type = '', ...rest] = text.split(';').map((s) => s.trim());
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
  }
  const q = params.has('q') ? Number(params.get('q')) : 1;
  return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
}

function renderingFor(range: MediaRange): Rendering | undefined {
  if (!['application/json', 'application/*', '*/*'].includes(range.type)) return undefined;
  const as = range.params.get('as');
  if (as === undefined) return { as: 'Object' };
  const group = range.params.get('g');
  const version = range.params.get('v');
  if (group !== 'meta.k8s.io' || version === undefined || !META_VERSIONS.has(version)) return undefined;
  const apiVersion = `meta.k8s.io/${version}`;
  if (as === 'Table') return { as: 'Table', apiVersion };
  if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') {
    return { as: 'PartialObjectMetadata', apiVersion };
  }
  return undefined;
}
