// Fuzz targets for every route of an HTTP listener. A route's target is made from what the app
// says about it (its path parameters; its query, headers and body schemas from the OpenAPI
// document, or from a short table for routes outside it) and from the world under test (ids that
// exist now, credentials). fast-check draws a plan (which ids, which credential, which values,
// broken how); the plan is turned into bytes when the case runs, against the world as it is then.
import fc from 'fast-check';
import { exchange, requestBytes, type Exchange, type RequestParts } from './http-exchange.ts';
import { routeName, type RouteInput, type RouteRef } from './route-list.ts';
import type { CaseOutcome, FuzzCase, FuzzTarget } from './runner.ts';
import { brokenValue, validValue } from './schema-values.ts';
import { answerProblem, refused, type ErrorShape } from './verdict.ts';

/** The world the requests go to: a listener, its ids and credentials now, and what may change. */
export interface HttpWorld {
  port: number;
  /** No answer past this is a hang. */
  deadlineMs: number;
  /** Ids that exist now for a path parameter of this name; undefined: the name is unknown. */
  params(name: string): string[] | undefined;
  /** Credential headers now; the first is the world's main one (drawn most often). */
  credentials(): [string, string][][];
  /** Real values for a route's body and query fields (ids), put over generated ones. */
  hints(route: string): { body?: Record<string, unknown>; query?: Record<string, string>; raw?: Buffer[] };
  errorShape(path: string): ErrorShape;
  /** Everything a request could change, as `what → content`. */
  state(opts: { keyed: boolean }): Promise<Map<string, string>>;
  /** After an accepted request: waits for what it started, puts back what the fixture needs. */
  settle(route: string, e: Exchange): Promise<void>;
  /**
   * A 5xx that the world decides, not the request (the sim's VMs have no sshd: a valid request for
   * SSH credentials answers 502 there). Documented per world; anything else is a failure.
   */
  worldFailure?(route: string, e: Exchange): boolean;
  /** Time a request asks the call to take (a wait action), added to the deadline. */
  askedMs?(route: string, body: unknown): number;
}

/** Strings put in the place of a path parameter. */
const NASTY_SEGMENTS = [
  '',
  '.',
  '..',
  '%2e%2e',
  '..%2f..%2fetc%2fpasswd',
  '%00',
  '%ZZ',
  'a'.repeat(5000),
  '%F0%9F%98%80',
  'sb-' + '0'.repeat(32),
  'SB-' + 'F'.repeat(32),
  ' ',
  '*',
  '?x=1',
  '%3Fx%3D1',
  '1e3',
  '-1',
  '00000000-0000-0000-0000-000000000000',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/yaml',
  '',
  '*/*',
  'application/jsonx',
];

/** Extra headers a client could send; each case adds a few. */
const EXTRA_HEADERS: [string, string][] = [
  ['Idempotency-Key', 'fuzz-key'],
  ['Idempotency-Key', ''],
  ['Idempotency-Key', 'k'.repeat(300)],
  ['Accept', 'application/yaml'],
  ['Accept', 'application/json;as=Table;v=v1;g=meta.k8s.io'],
  ['Accept', 'text/html'],
  ['Accept', '*/*;q=0'],
  ['Accept-Encoding', 'br, gzip, zstd'],
  ['Content-Encoding', 'gzip'],
  ['Expect', '100-continue'],
  ['X-Forwarded-For', '10.0.0.1, 127.0.0.1'],
  ['X-CSRF-Token', 'nope'],
  ['If-None-Match', '*'],
  ['Range', 'bytes=0-1'],
  ['Origin', 'http://evil.example'],
  ['Cookie', 'sandbay_session=garbage'],
  ['Cookie', 'a'.repeat(4000)],
  ['X-Huge', 'h'.repeat(20_000)],
  ['X-Request-Id', '../../x'],
  ['Upgrade', 'websocket'],
  ['Connection', 'keep-alive, Upgrade'],
  ['Transfer-Encoding', 'gzip'],
];

/** How a `framing` fault frames the body on the wire: each tries the server's HTTP parser. */
const FRAMINGS = ['chunked', 'no-length', 'short-then-close', 'long', 'double-length'] as const;
type Framing = 'length' | (typeof FRAMINGS)[number];

/**
 * What a case breaks: nothing (a valid request, to reach the handler and its checks past
 * validation), or one part of the request.
 */
const FAULTS = [
  'none',
  'none',
  'none',
  'param',
  'credential',
  'query',
  'body',
  'body',
  'headers',
  'framing',
] as const;
type Fault = (typeof FAULTS)[number];

interface Plan {
  fault: Fault;
  params: { pick: number; nasty: string; raw: boolean }[];
  /** Which parameter a `param` fault breaks. */
  broken: number;
  credential: number;
  query: { valid: unknown; broken: unknown; extra: [string, string][]; useHints: boolean };
  body: {
    mode: 'broken' | 'junk' | 'bytes' | 'none' | 'wrong-type';
    valid: unknown;
    broken: unknown;
    junk: string;
    bytes: Uint8Array;
    type: string;
    useHints: boolean;
  };
  headers: [string, string][];
  framing: Framing;
}

/** Path parameter names of a route, in order (`*` for a wildcard). */
export function paramsOf(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z0-9_]+)|\*/g)].map((m) => m[1] ?? '*');
}

const JUNK_BODIES = [
  '',
  '{',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  'null',
  '[]',
  '1e999',
  '"\\u0000"',
  '\ufeff{}',
  '{"a":'.repeat(5000),
  'a: &a [*a, *a]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b]',
];

function planOf(route: RouteRef, input: RouteInput): fc.Arbitrary<Plan> {
  const params = paramsOf(route.url).map(() =>
    fc.record({
      pick: fc.nat(),
      nasty: fc.oneof(fc.constantFrom(...NASTY_SEGMENTS), fc.string({ maxLength: 30 })),
      raw: fc.boolean(),
    }),
  );
  const queryModel: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of Object.entries(input.query ?? {})) queryModel[name] = validValue(schema);
  const validQuery = fc.record(queryModel, { requiredKeys: input.requiredQuery ?? [] });
  const validBody = input.bodySchema ? validValue(input.bodySchema) : fc.constant(undefined);
  const hinted = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false));
  return fc.record({
    fault: fc.constantFrom(...FAULTS),
    params: fc.tuple(...params),
    broken: fc.nat(),
    credential: fc.nat(),
    query: validQuery.chain((valid) =>
      fc.record({
        valid: fc.constant(valid),
        broken: brokenValue(undefined, valid),
        extra: fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom(...Object.keys(input.query ?? {}), 'x', 'watch', '__proto__'),
              fc.string(),
            ),
            fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('-1', '1e9', 'NaN', '%00', 'true', '[]')),
          ),
          { minLength: 1, maxLength: 2 },
        ),
        useHints: hinted,
      }),
    ),
    body: validBody.chain((valid) =>
      fc.record({
        mode: input.bodySchema
          ? fc.constantFrom(
              'broken' as const,
              'broken' as const,
              'broken' as const,
              'junk' as const,
              'none' as const,
              'wrong-type' as const,
            )
          : input.bodyTypes?.length
            ? fc.constantFrom('bytes' as const, 'junk' as const, 'none' as const, 'wrong-type' as const)
            : fc.constantFrom('junk' as const, 'bytes' as const),
        valid: fc.constant(valid),
        broken: input.bodySchema ? brokenValue(input.bodySchema, valid) : fc.constant(undefined),
        junk: fc.oneof(
          fc.string({ maxLength: 64 }),
          fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
          fc.constantFrom(...JUNK_BODIES),
        ),
        bytes: fc.uint8Array({ maxLength: 2048 }),
        type: fc.constantFrom(...CONTENT_TYPES),
        useHints: hinted,
      }),
    ),
    headers: fc.array(fc.constantFrom(...EXTRA_HEADERS), { minLength: 1, maxLength: 2 }),
    framing: fc.constantFrom(...FRAMINGS),
  });
}

/** The value a plan's `valid` body or query draws, with the world's real ids put over it. */
function withHints(value: unknown, hints: Record<string, unknown> | undefined, use: boolean): unknown {
  if (!use || !hints || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  return { ...value, ...hints };
}

function queryString(value: unknown, extra: [string, string][]): string {
  const q = new URLSearchParams();
  if (value && typeof value === 'object' && !Array.isArray(value))
    for (const [k, v] of Object.entries(value))
      if (v !== undefined) q.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  for (const [k, v] of extra) q.append(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The request a plan makes now, in the world as it is. */
function materialize(
  route: RouteRef,
  input: RouteInput,
  plan: Plan,
  world: HttpWorld,
): { parts: RequestParts; framing: Framing; keyed: boolean } {
  const names = paramsOf(route.url);
  const brokenParam = names.length ? plan.broken % names.length : -1;
  let i = 0;
  const path = route.url.replace(/:([A-Za-z0-9_]+)|\*/g, () => {
    const at = i++;
    const p = plan.params[at]!;
    const pool = world.params(names[at]!) ?? [];
    if ((plan.fault === 'param' && at === brokenParam) || pool.length === 0)
      return p.raw ? p.nasty : encodeURIComponent(p.nasty);
    return encodeURIComponent(pool[p.pick % pool.length]!);
  });
  const hints = world.hints(
    routeName({ method: route.method === 'HEAD' ? 'GET' : route.method, url: route.url }),
  );
  const q = plan.query;
  const query =
    plan.fault === 'query'
      ? queryString(q.broken, q.extra)
      : queryString(withHints(q.valid, hints.query, q.useHints), []);
  // The world's main credential; a credential fault draws any other, valid or not.
  const creds = world.credentials();
  const credential = plan.fault === 'credential' ? 1 + (plan.credential % (creds.length - 1)) : 0;
  const headers: [string, string][] = [...creds[credential]!];
  const b = plan.body;
  const usual = input.bodyTypes?.[0];
  let body: Buffer | undefined;
  let type = usual;
  if (plan.fault !== 'body') {
    if (input.bodySchema)
      body = Buffer.from(JSON.stringify(withHints(b.valid ?? {}, hints.body, b.useHints)));
    else if (usual) {
      const raw = hints.raw ?? [];
      body = b.useHints && raw.length ? raw[b.bytes.length % raw.length]! : Buffer.from(b.bytes);
    }
  } else if (b.mode === 'broken') body = Buffer.from(JSON.stringify(b.broken) ?? 'null');
  else if (b.mode === 'junk') body = Buffer.from(b.junk);
  else if (b.mode === 'bytes') body = Buffer.from(b.bytes);
  else if (b.mode === 'wrong-type') {
    body = Buffer.from(JSON.stringify(b.valid ?? {}));
    type = b.type;
  }
  if (body) headers.push(['Content-Type', type ?? 'application/json']);
  if (plan.fault === 'headers') headers.push(...plan.headers);
  const keyed = headers.some(([k]) => k.toLowerCase() === 'idempotency-key');
  return {
    parts: { method: route.method, path: path + query, headers, body },
    framing: plan.fault === 'framing' ? plan.framing : 'length',
    keyed,
  };
}

/**
 * The bytes on the wire for a framing; `end`: half-close after them. Node's server drops the
 * answer to a request whose client half-closed: after a complete request (`no-length` sends one,
 * its body read as the next request) nothing is known of what it did; an incomplete one
 * (`short-then-close`) must have done nothing.
 */
function wire(parts: RequestParts, framing: Framing): { bytes: Buffer; end: boolean } {
  const body = parts.body === undefined ? undefined : Buffer.from(parts.body);
  switch (framing) {
    case 'length':
      return { bytes: requestBytes(parts), end: false };
    case 'chunked': {
      const chunked = body
        ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])
        : Buffer.from('0\r\n\r\n');
      return {
        bytes: requestBytes({
          ...parts,
          headers: [...(parts.headers ?? []), ['Transfer-Encoding', 'chunked']],
          body: chunked,
          noContentLength: true,
        }),
        end: false,
      };
    }
    case 'no-length':
      return { bytes: requestBytes({ ...parts, noContentLength: true }), end: true };
    case 'short-then-close':
      return {
        bytes: requestBytes({
          ...parts,
          headers: [...(parts.headers ?? []), ['Content-Length', String((body?.length ?? 0) + 10)]],
        }),
        end: true,
      };
    case 'long':
      return {
        bytes: requestBytes({
          ...parts,
          headers: [
            ...(parts.headers ?? []),
            ['Content-Length', String(Math.max(0, (body?.length ?? 0) - 1))],
          ],
        }),
        end: false,
      };
    case 'double-length':
      return {
        bytes: requestBytes({
          ...parts,
          headers: [
            ...(parts.headers ?? []),
            ['Content-Length', '0'],
            ['Content-Length', String(body?.length ?? 1)],
          ],
        }),
        end: false,
      };
  }
}

function printable(bytes: Buffer): string {
  const text = bytes.toString('latin1');
  const shown = text.length > 6000 ? `${text.slice(0, 6000)}… (${text.length} bytes)` : text;
  return JSON.stringify(shown);
}

/** Runs one request and checks its answer and what it changed. */
async function runCase(
  route: RouteRef,
  input: RouteInput,
  plan: Plan,
  world: HttpWorld,
  known: { state: Map<string, string> | undefined },
): Promise<CaseOutcome> {
  const { parts, framing, keyed } = materialize(route, input, plan, world);
  const { bytes, end } = wire(parts, framing);
  const before = (known.state ??= await world.state({ keyed: false }));
  known.state = undefined;
  const e = await exchange(world.port, bytes, {
    deadlineMs: world.deadlineMs + (world.askedMs?.(routeName(route), jsonOf(parts.body)) ?? 0),
    end,
    method: route.method,
    watch: /watch/.test(parts.path),
  });
  const problems: string[] = [];
  const problem = answerProblem(e, route.method, world.errorShape(parts.path));
  if (problem && !world.worldFailure?.(routeName(route), e)) problems.push(problem);
  const leftAfterRequest = e.kind === 'closed' && framing === 'no-length';
  if (refused(e) && !leftAfterRequest) {
    const after = await world.state({ keyed });
    const changed = diff(keyed ? withoutRecords(before) : before, after);
    if (changed.length)
      problems.push(
        `refused (${outcomeOf(e)}) but changed ${changed.join(', ')}${firstChange(before, after)}`,
      );
    else if (!keyed) known.state = after;
  } else {
    await world.settle(routeName(route), e);
  }
  const summary =
    e.kind === 'answer'
      ? ` → ${e.status} ${e.body.subarray(0, 200).toString('utf8')}`
      : ` → ${e.kind}${e.kind === 'closed' && e.error ? ` (${e.error})` : ''}`;
  return { ms: e.ms, outcome: outcomeOf(e), problems, sent: printable(bytes) + summary };
}

function jsonOf(body: RequestParts['body']): unknown {
  try {
    return body === undefined ? undefined : JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

export function outcomeOf(e: Exchange): string {
  return e.kind === 'answer' ? String(e.status) : e.kind;
}

/** The state without idempotency records, which a keyed refusal may write (spec, Idempotency-Key rule 2). */
function withoutRecords(state: Map<string, string>): Map<string, string> {
  return new Map([...state].filter(([k]) => !k.startsWith('IdempotencyRecord/')));
}

/** The first changed key's content before and after, shortened around where they differ. */
function firstChange(a: Map<string, string>, b: Map<string, string>): string {
  const key = [...a.keys()].find((k) => b.has(k) && b.get(k) !== a.get(k));
  if (!key) return '';
  const [x, y] = [a.get(key)!, b.get(key)!];
  let at = 0;
  while (at < x.length && x[at] === y[at]) at++;
  const around = (t: string) => t.slice(Math.max(0, at - 80), at + 120);
  return `\n    ${key} before: …${around(x)}…\n    after: …${around(y)}…`;
}

/** Keys whose content differs (added, removed or changed). */
export function diff(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v) out.push(b.has(k) ? `~${k}` : `-${k}`);
  for (const k of b.keys()) if (!a.has(k)) out.push(`+${k}`);
  return out.slice(0, 10);
}

/**
 * One target per route. `inputOf` says what a route takes (undefined: the route has no fuzz target,
 * which `missingTargets` reports).
 */
export function httpTargets(
  routes: RouteRef[],
  inputOf: (route: RouteRef) => RouteInput | undefined,
  world: HttpWorld,
): FuzzTarget[] {
  // The state before a case is the state after the last one, unless that one was accepted.
  const known: { state: Map<string, string> | undefined } = { state: undefined };
  return routes.map((route) => {
    const input = inputOf(route) ?? {};
    return {
      name: routeName(route),
      cases: planOf(route, input).map((plan): FuzzCase => ({
        run: () => runCase(route, input, plan, world, known),
        [fc.toStringMethod]: () => `${routeName(route)} ${JSON.stringify(plan).slice(0, 400)}`,
      })),
    };
  });
}

/** Routes the fuzzer cannot reach: no input description, or a path parameter with no known ids. */
export function missingTargets(
  routes: RouteRef[],
  inputOf: (route: RouteRef) => RouteInput | undefined,
  world: Pick<HttpWorld, 'params'>,
): string[] {
  const out: string[] = [];
  for (const r of routes) {
    if (!inputOf(r)) out.push(`${routeName(r)}: no input description`);
    for (const p of paramsOf(r.url))
      if (world.params(p) === undefined) out.push(`${routeName(r)}: no ids for path parameter "${p}"`);
  }
  return out;
}
