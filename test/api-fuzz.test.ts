// Fuzzing every JSON body and query string of the customer API (fast-check): whatever arrives, the
// answer is never a 5xx, always JSON `{error, message}` when it is an error, and a 4xx changes
// nothing (no resource, no guest state). Sim fleet under the real operator.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyResource } from '../crds/index.ts';
import { seedAccount, startApiStack, type ApiStack } from './api-harness.ts';

let s: ApiStack;
let key: string;
let sb: string;
let rec: string;

interface Target {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: () => string;
  /** A valid body, mutated by the fuzzer; undefined: the endpoint takes no body. */
  body?: () => Record<string, unknown>;
  /** Known query fields and valid values, mutated by the fuzzer. */
  query?: Record<string, string>;
}

const T = (
  method: Target['method'],
  path: () => string,
  body?: () => Record<string, unknown>,
  query?: Record<string, string>,
): Target => ({
  method,
  path,
  ...(body && { body }),
  ...(query && { query }),
});
const on = (rest: string) => () => `/v1/sandboxes/${sb}${rest}`;

const TARGETS: Target[] = [
  T(
    'POST',
    () => '/v1/reservations',
    () => ({ hours: 24, mini_count: 1, mac_model: 'm4', vm_layout: 'split' }),
  ),
  T(
    'PATCH',
    () => `/v1/reservations/${reservationId}`,
    () => ({ hours: 24, vm_layout: 'split' }),
  ),
  T('GET', () => '/v1/platforms', undefined, { reservation_id: '' }),
  T(
    'POST',
    () => '/v1/sandboxes',
    () => ({ cpu: 2, memory_gib: 4, disk_gib: 64, ephemeral: true, snapshot: 'snap-x', reservation_id: '' }),
  ),
  T('GET', () => '/v1/sandboxes', undefined, { reservation_id: '' }),
  T('POST', on('/exec'), () => ({ command: 'true', timeout: 5, ax: false })),
  T('GET', on('/files'), undefined, { path: 'a.txt' }),
  T('GET', on('/files/archive'), undefined, { path: '.' }),
  T('POST', on('/mouse/click'), () => ({ x: 1, y: 2, button: 'left', double: false })),
  T('POST', on('/mouse/move'), () => ({ x: 1, y: 2 })),
  T('POST', on('/mouse/drag'), () => ({ startX: 1, startY: 1, endX: 2, endY: 2, button: 'left' })),
  T('POST', on('/mouse/scroll'), () => ({ x: 1, y: 2, direction: 'down', amount: 3 })),
  T('POST', on('/keyboard/type'), () => ({ text: 'hi', delay: 0 })),
  T('POST', on('/keyboard/press'), () => ({ key: 'a', modifiers: ['shift'] })),
  T('POST', on('/keyboard/hotkey'), () => ({ keys: 'ctrl+a' })),
  T('GET', on('/screenshot'), undefined, { show_cursor: 'false' }),
  T('GET', on('/screenshot/region'), undefined, { x: '0', y: '0', width: '4', height: '4' }),
  T('GET', on('/screenshot/compressed'), undefined, { format: 'jpeg', quality: '80', scale: '0.5' }),
  T('POST', on('/act'), () => ({
    action: { type: 'move', x: 1, y: 1 },
    screenshot_after: false,
    screenshot_delay_ms: 0,
  })),
  T('POST', on('/recording/start'), () => ({ name: 'n' })),
  T('POST', on('/recording/stop'), () => ({ id: rec })),
  T('POST', on('/snapshots'), () => ({ name: 'fuzz' })),
  T('GET', () => '/v1/snapshots', undefined, { sandbox_id: '' }),
  T('POST', on('/viewer-token')),
  T('POST', on('/keepalive')),
];
let reservationId: string;

/** Everything the API could change, without the fields that legitimately move on any request. */
async function state(): Promise<string> {
  const kinds = ['Account', 'ApiKey', 'Reservation', 'Sandbox', 'Snapshot', 'VM', 'Mini'];
  const all: unknown[] = [];
  for (const kind of kinds) {
    for (const o of (await s.f.store.list<AnyResource>(kind)).items) {
      const { resourceVersion: _rv, ...metadata } = o.metadata;
      const status = { ...(o.status as Record<string, unknown> | undefined) };
      delete status.lastActive;
      delete status.heartbeat;
      all.push({ kind, metadata, spec: o.spec, status });
    }
  }
  const guest = s.f.sim.host({ name: 'mini-1', address: s.f.addressOf('mini-1'), model: 'm4' });
  const vm = (await s.f.store.get<AnyResource & { status?: { vm?: string } }>({
    kind: 'Sandbox',
    namespace: 'fuzz',
    name: sb,
  }))!.status!.vm!;
  all.push(
    await guest.guest(vm).position(),
    (await guest.guest(vm).listRecordings()).map((r) => [r.id, r.state]),
  );
  return JSON.stringify(all);
}

/** A valid body with one change: a field replaced by anything, dropped, or an extra field added. */
function mutated(valid: Record<string, unknown>) {
  const fields = Object.keys(valid);
  return fc.oneof(
    fc
      .record({ field: fc.constantFrom(...fields), value: fc.jsonValue() })
      .map(({ field, value }) => ({ ...valid, [field]: value })),
    fc.constantFrom(...fields).map((field) => {
      const { [field]: _dropped, ...rest } = valid;
      return rest;
    }),
    fc
      .record({ extra: fc.string({ maxLength: 12 }), value: fc.jsonValue() })
      .map(({ extra, value }) => ({ ...valid, [extra]: value })),
  );
}

const RAW_BODIES = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 64 }),
  fc.constantFrom(
    '',
    '{',
    '{"__proto__":{"x":1}}',
    '{"constructor":{"prototype":{}}}',
    'null',
    '[]',
    '1e999',
    '"\\u0000"',
  ),
);

function queryOf(known: Record<string, string> | undefined) {
  const keys = [...Object.keys(known ?? {}), 'x'];
  return fc.dictionary(
    fc.constantFrom(...keys),
    fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom('-1', '0', '1e9', 'NaN', '../../etc/passwd', 'true', '%00'),
    ),
    { maxKeys: 4 },
  );
}

beforeAll(async () => {
  s = await startApiStack([{ name: 'mini-1' }, { name: 'mini-2' }]);
  key = await seedAccount(s.f.store, 'fuzz', 100_000_000);
  reservationId = (await s.reserve(key)).id;
  sb = (await s.call(key, 'POST', '/v1/sandboxes', {})).json().sandbox_id;
  rec = (await s.call(key, 'POST', `/v1/sandboxes/${sb}/recording/start`, {})).json().id;
  // One activity write now: the fake clock stands still, so later requests are throttled.
  await s.call(key, 'POST', `/v1/sandboxes/${sb}/keepalive`);
});
afterAll(async () => s?.cleanup());

describe('fuzzing bodies and queries', () => {
  it('never answers 5xx, answers errors as JSON, and changes nothing on a 4xx', async () => {
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const input = fc.record({
      target: fc.constantFrom(...TARGETS),
      body: fc.option(fc.oneof(RAW_BODIES, fc.constant(null)), { nil: undefined }),
      mutate: fc.boolean(),
      query: fc.boolean(),
      seed: fc.integer(),
    });
    await fc.assert(
      fc.asyncProperty(
        input.chain((i) =>
          fc.tuple(
            fc.constant(i),
            i.target.body ? mutated(i.target.body()) : fc.constant(undefined),
            queryOf(i.target.query),
          ),
        ),
        async ([i, mut, q]) => {
          const before = await state();
          let payload: string | undefined;
          if (i.target.body)
            payload = i.mutate && mut ? JSON.stringify(mut) : (i.body ?? JSON.stringify(i.target.body()));
          else if (i.body !== undefined && i.body !== null) payload = i.body;
          const qs =
            i.query || !i.target.body ? new URLSearchParams(q as Record<string, string>).toString() : '';
          const url = `${i.target.path()}${qs ? `${i.target.path().includes('?') ? '&' : '?'}${qs}` : ''}`;
          const r = await s.app.inject({
            method: i.target.method,
            url,
            headers: {
              authorization: `Bearer ${key}`,
              ...(payload !== undefined && { 'content-type': 'application/json' }),
            },
            ...(payload !== undefined && { payload }),
          });
          statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
          const what = `${i.target.method} ${url} ${payload ?? ''} → ${r.statusCode} ${r.body.slice(0, 160)}`;
          if (r.statusCode >= 500) failures.push(what);
          if (r.statusCode >= 400) {
            const err = r.json();
            if (typeof err.error !== 'string' || typeof err.message !== 'string')
              failures.push(`not JSON error: ${what}`);
            if ((await state()) !== before) failures.push(`state changed on ${what}`);
          }
          return failures.length === 0;
        },
      ),
      { numRuns: 400, seed: 20260105, endOnFailure: true },
    );
    expect(failures).toEqual([]);
    // The fuzzer reached the handlers too, not only the validator.
    const count = (lo: number, hi: number) =>
      [...statuses].filter(([c]) => c >= lo && c < hi).reduce((n, [, k]) => n + k, 0);
    expect(count(200, 300)).toBeGreaterThan(20);
    expect(count(400, 500)).toBeGreaterThan(100);
    if (process.env.FUZZ_STATS) console.log(Object.fromEntries(statuses));
  });
});
