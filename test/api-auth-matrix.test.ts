// The auth matrix: every endpoint of the customer API × every kind of caller → the exact status.
// Sim fleet under the real operator; the WebSocket endpoints over a real listener.
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey } from '../crds/index.ts';
import { apiKeyName, sha256Hex } from '../api/keys.ts';
import { seedAccount, seedKey, startApiStack, waitFor, type ApiStack } from './api-harness.ts';

type Caller =
  'none' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'admin' | 'other' | 'account' | 'reservation';
const CALLERS: Caller[] = [
  'none',
  'malformed',
  'unknown',
  'revoked',
  'expired',
  'admin',
  'other',
  'account',
  'reservation',
];

interface Ids {
  sb: string;
  res: string;
  rec: string;
  snap: string;
}

interface Row {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (ids: Ids) => string;
  body?: unknown;
  contentType?: string;
  /** Status for the account key, the reservation key, and another account's key. */
  expect: [number, number, number];
  /** Destructive rows get a fresh target for each caller that may act. */
  fresh?: (caller: 'account' | 'reservation') => Promise<Partial<Ids>>;
  /** Public: every caller gets expect[0], with or without a key. */
  public?: boolean;
}

let s: ApiStack;
const headers: Record<Caller, Record<string, string>> = {} as Record<Caller, Record<string, string>>;
let ids: Ids;
let archive: Buffer;

async function newSandbox(key: string): Promise<string> {
  const r = await s.call(key, 'POST', '/v1/sandboxes', {});
  if (r.statusCode !== 201) throw new Error(`sandbox: ${r.statusCode} ${r.body}`);
  return r.json().sandbox_id;
}

beforeAll(async () => {
  s = await startApiStack(Array.from({ length: 4 }, (_, i) => ({ name: `mini-${i + 1}` })));
  const acme = await seedAccount(s.f.store, 'acme', 100_000_000);
  // An expired reservation key, expired for real: bought, then its end_at passed.
  const past = await s.reserve(acme);
  s.f.clock.advance(25 * 3_600_000);
  await waitFor(
    async () => (await s.call(acme, 'GET', `/v1/reservations/${past.id}`)).json().status === 'completed',
    'the first reservation to complete',
  );
  const current = await s.reserve(acme, { mini_count: 2 });
  const other = await seedAccount(s.f.store, 'other', 100_000_000);
  await s.reserve(other);
  const revoked = await seedKey(s.f.store, { kind: 'account', account: 'acme' });
  const k = (await s.f.store.get<ApiKey>({ kind: 'ApiKey', name: apiKeyName(sha256Hex(revoked)) }))!;
  await s.f.store.update<ApiKey>({ ...k, spec: { ...k.spec, revoked: true } });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  Object.assign(headers, {
    none: {},
    malformed: { authorization: `Token ${acme}` },
    unknown: bearer('sbk_00000000000000000000000000000000'),
    revoked: bearer(revoked),
    expired: bearer(past.key),
    admin: bearer(await seedKey(s.f.store, { kind: 'admin' })),
    other: bearer(other),
    account: bearer(acme),
    reservation: bearer(current.key),
  });

  const sb = await newSandbox(acme);
  await s.call(acme, 'PUT', `/v1/sandboxes/${sb}/files?path=dir/a.txt`, 'a', {
    'content-type': 'text/plain',
  });
  archive = (await s.call(acme, 'GET', `/v1/sandboxes/${sb}/files/archive?path=dir`)).rawPayload;
  const rec = (await s.call(acme, 'POST', `/v1/sandboxes/${sb}/recording/start`, {})).json().id;
  await s.call(acme, 'POST', `/v1/sandboxes/${sb}/recording/stop`, { id: rec });
  const snap = (await s.call(acme, 'POST', `/v1/sandboxes/${sb}/snapshots`, { name: 'base' })).json().version;
  ids = { sb, res: current.id, rec, snap };
});
afterAll(async () => s?.cleanup());

const freshSandbox = async () => ({ sb: await newSandbox(headers.account.authorization!.slice(7)) });
/** A recording in progress (one at a time per VM: any other still running is stopped first). */
const freshRecording = async () => {
  const key = headers.account.authorization!.slice(7);
  const list = (await s.call(key, 'GET', `/v1/sandboxes/${ids.sb}/recordings`)).json() as {
    id: string;
    state: string;
  }[];
  for (const r of list.filter((x) => x.state === 'recording')) {
    await s.call(key, 'POST', `/v1/sandboxes/${ids.sb}/recording/stop`, { id: r.id });
  }
  return {
    rec: (await s.call(key, 'POST', `/v1/sandboxes/${ids.sb}/recording/start`, {})).json().id as string,
  };
};
const freshSnapshot = async () => ({
  snap: (
    await s.call(headers.account.authorization!.slice(7), 'POST', `/v1/sandboxes/${ids.sb}/snapshots`, {
      name: 'x',
    })
  ).json().version,
});

const sbp = (rest: string) => (i: Ids) => `/v1/sandboxes/${i.sb}${rest}`;
const ROWS: Row[] = [
  { method: 'GET', path: () => '/health', expect: [200, 200, 200], public: true },
  { method: 'GET', path: () => '/v1/reservations', expect: [200, 200, 200] },
  {
    method: 'POST',
    path: () => '/v1/reservations',
    body: { hours: 24, mini_count: 50 },
    expect: [409, 403, 409],
  },
  { method: 'GET', path: () => '/v1/reservations/me', expect: [403, 200, 403] },
  { method: 'GET', path: (i) => `/v1/reservations/${i.res}`, expect: [200, 200, 404] },
  { method: 'PATCH', path: (i) => `/v1/reservations/${i.res}`, body: { hours: 24 }, expect: [200, 403, 404] },
  { method: 'GET', path: () => '/v1/platforms', expect: [200, 200, 200] },
  { method: 'POST', path: () => '/v1/sandboxes', body: { cpu: 64 }, expect: [422, 422, 422] },
  { method: 'GET', path: () => '/v1/sandboxes', expect: [200, 200, 200] },
  { method: 'GET', path: sbp(''), expect: [200, 200, 404] },
  { method: 'DELETE', path: sbp(''), expect: [204, 204, 404], fresh: freshSandbox },
  { method: 'POST', path: sbp('/keepalive'), expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/viewer-token'), expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/exec'), body: { command: 'true' }, expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/exec_ax'), body: { command: 'true' }, expect: [200, 200, 404] },
  {
    method: 'PUT',
    path: sbp('/files?path=up.txt'),
    body: 'x',
    contentType: 'application/octet-stream',
    expect: [204, 204, 404],
  },
  { method: 'GET', path: sbp('/files?path=dir/a.txt'), expect: [200, 200, 404] },
  {
    method: 'PUT',
    path: sbp('/files/archive?path=dir2'),
    contentType: 'application/x-tar',
    expect: [204, 204, 404],
  },
  { method: 'GET', path: sbp('/files/archive?path=dir'), expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/mouse/click'), body: { x: 1, y: 1 }, expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/mouse/move'), body: { x: 2, y: 2 }, expect: [200, 200, 404] },
  {
    method: 'POST',
    path: sbp('/mouse/drag'),
    body: { startX: 1, startY: 1, endX: 3, endY: 3 },
    expect: [200, 200, 404],
  },
  { method: 'POST', path: sbp('/mouse/scroll'), body: { x: 1, y: 1 }, expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/mouse/position'), expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/keyboard/type'), body: { text: 'hi' }, expect: [200, 200, 404] },
  {
    method: 'POST',
    path: sbp('/keyboard/press'),
    body: { key: 'a', modifiers: ['shift'] },
    expect: [200, 200, 404],
  },
  { method: 'POST', path: sbp('/keyboard/hotkey'), body: { keys: 'ctrl+a' }, expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/screenshot'), expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/screenshot/region?x=0&y=0&width=10&height=10'), expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/screenshot/compressed'), expect: [200, 200, 404] },
  {
    method: 'POST',
    path: sbp('/act'),
    body: { action: { type: 'move', x: 1, y: 1 }, screenshot_after: false },
    expect: [200, 200, 404],
  },
  { method: 'POST', path: sbp('/recording/start'), body: {}, expect: [200, 200, 404] },
  {
    method: 'POST',
    path: sbp('/recording/stop'),
    body: { id: 'x' },
    expect: [200, 200, 404],
    fresh: freshRecording,
  },
  { method: 'GET', path: sbp('/recordings'), expect: [200, 200, 404] },
  { method: 'GET', path: (i) => `/v1/sandboxes/${i.sb}/recordings/${i.rec}`, expect: [200, 200, 404] },
  {
    method: 'DELETE',
    path: (i) => `/v1/sandboxes/${i.sb}/recordings/${i.rec}`,
    expect: [204, 204, 404],
    fresh: freshRecording,
  },
  {
    method: 'GET',
    path: (i) => `/v1/sandboxes/${i.sb}/recordings/${i.rec}/download`,
    expect: [200, 200, 404],
  },
  { method: 'GET', path: sbp('/display/info'), expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/display/windows'), expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/display/windows?best_effort=1'), expect: [200, 200, 404] },
  { method: 'POST', path: sbp('/snapshots'), body: { name: 'm' }, expect: [201, 201, 404] },
  { method: 'GET', path: sbp('/snapshots'), expect: [200, 200, 404] },
  { method: 'GET', path: () => '/v1/snapshots', expect: [200, 200, 200] },
  { method: 'GET', path: (i) => `/v1/snapshots/${i.snap}`, expect: [200, 200, 404] },
  { method: 'DELETE', path: (i) => `/v1/snapshots/${i.snap}`, expect: [204, 204, 404], fresh: freshSnapshot },
  // Setup and grading: the sandbox's owner (either key); a task's setup needs the account key.
  {
    method: 'POST',
    path: sbp('/setup'),
    body: { steps: [{ type: 'sleep', seconds: 0 }] },
    expect: [200, 200, 404],
  },
  { method: 'POST', path: sbp('/setup'), body: { task_id: 'no-such-task' }, expect: [404, 403, 404] },
  {
    method: 'POST',
    path: sbp('/grade'),
    body: { grader: { checks: [{ type: 'window', match: { name: 'none' }, absent: true }] } },
    expect: [200, 200, 404],
  },
  { method: 'GET', path: () => '/v1/blobs', expect: [200, 200, 200] },
  { method: 'GET', path: () => `/v1/blobs/sha256-${'0'.repeat(64)}`, expect: [404, 404, 404] },
  // The sim driver's VMs have no sshd: the key is accepted, the VM cannot be reached.
  { method: 'GET', path: sbp('/ssh/credentials'), expect: [502, 502, 404] },
  // Without Upgrade: 426 for everyone (the upgrade itself is checked below).
  { method: 'GET', path: sbp('/vnc'), expect: [426, 426, 426], public: true },
  { method: 'GET', path: sbp('/ssh'), expect: [426, 426, 426], public: true },
  // The exec stream's checks without the upgrade: the owner learns that only the upgrade was missing.
  { method: 'GET', path: sbp('/exec/stream?command=true'), expect: [426, 426, 404] },
  { method: 'GET', path: sbp('/clipboard'), expect: [200, 200, 404] },
  { method: 'PUT', path: sbp('/clipboard'), body: { type: 'text', text: 'x' }, expect: [204, 204, 404] },
  // Forwarded ports: authorized by the handler (key or viewer token); nothing listens in a sim VM.
  { method: 'GET', path: sbp('/ports/8000/'), expect: [502, 502, 404] },
  {
    method: 'POST',
    path: sbp('/ports/8000/x'),
    body: 'b',
    contentType: 'text/plain',
    expect: [502, 502, 404],
  },
  { method: 'GET', path: sbp('/cua/ws'), expect: [426, 426, 426], public: true },
  // Cua's protocol: the key as on every sandbox route.
  { method: 'POST', path: sbp('/cua/cmd'), body: { command: 'get_screen_size' }, expect: [200, 200, 404] },
  { method: 'GET', path: sbp('/cua/commands'), expect: [200, 200, 404] },
];

function expected(row: Row, caller: Caller): number {
  if (row.public) return row.expect[0];
  if (caller === 'account') return row.expect[0];
  if (caller === 'reservation') return row.expect[1];
  if (caller === 'other') return row.expect[2];
  return 401;
}

describe('auth matrix', () => {
  it('answers every endpoint × caller with the exact status, and every error as JSON', async () => {
    const mismatches: string[] = [];
    for (const row of ROWS) {
      for (const caller of CALLERS) {
        let target = ids;
        if (row.fresh && (caller === 'account' || caller === 'reservation'))
          target = { ...ids, ...(await row.fresh(caller)) };
        let body = row.body;
        if (row.method === 'POST' && row.path(target).endsWith('/recording/stop')) body = { id: target.rec };
        if (row.contentType === 'application/x-tar') body = archive;
        const url = row.path(target);
        const r = await s.app.inject({
          method: row.method,
          url,
          headers: {
            ...headers[caller],
            ...(row.contentType && { 'content-type': row.contentType }),
          },
          ...(body !== undefined && { payload: body as string }),
        });
        const want = expected(row, caller);
        if (r.statusCode !== want)
          mismatches.push(
            `${row.method} ${url} as ${caller}: ${r.statusCode} (want ${want}) ${r.body.slice(0, 120)}`,
          );
        if (r.statusCode >= 400) {
          const err = r.json();
          if (typeof err.error !== 'string' || typeof err.message !== 'string')
            mismatches.push(`${row.method} ${url}: not {error, message}`);
          if (r.statusCode === 401 && !['missing_api_key', 'invalid_api_key'].includes(err.error))
            mismatches.push(`${url}: 401 ${err.error}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  describe('WebSocket upgrades on a real listener', () => {
    let base: string;
    beforeAll(async () => {
      await s.app.listen({ port: 0, host: '127.0.0.1' });
      base = `ws://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
    });

    function upgrade(path: string, h: Record<string, string>): Promise<number> {
      return new Promise((resolve, reject) => {
        const ws = new WebSocket(`${base}${path}`, { headers: h });
        ws.on('upgrade', () => {
          ws.close();
          resolve(101);
        });
        ws.on('unexpected-response', (_req, res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        ws.on('error', (err) => (/Unexpected server response/.test(err.message) ? undefined : reject(err)));
      });
    }

    it('/ssh admits the owner (then the sim VM has no sshd: 502), refuses everyone else', async () => {
      for (const caller of CALLERS) {
        const want = caller === 'account' || caller === 'reservation' ? 502 : caller === 'other' ? 404 : 401;
        expect(await upgrade(`/v1/sandboxes/${ids.sb}/ssh`, headers[caller]), caller).toBe(want);
      }
    });

    it('/exec/stream and a port WebSocket admit the owner (a sim VM streams; nothing listens on its ports)', async () => {
      for (const caller of CALLERS) {
        const owner = caller === 'account' || caller === 'reservation';
        const refused = caller === 'other' ? 404 : 401;
        expect(
          await upgrade(`/v1/sandboxes/${ids.sb}/exec/stream?command=true`, headers[caller]),
          caller,
        ).toBe(owner ? 101 : refused);
        expect(await upgrade(`/v1/sandboxes/${ids.sb}/ports/8000/ws`, headers[caller]), caller).toBe(
          owner ? 502 : refused,
        );
      }
    });

    it('/cua/ws admits the owner (account or reservation key), refuses everyone else', async () => {
      for (const caller of CALLERS) {
        const want = caller === 'account' || caller === 'reservation' ? 101 : caller === 'other' ? 404 : 401;
        expect(await upgrade(`/v1/sandboxes/${ids.sb}/cua/ws`, headers[caller]), caller).toBe(want);
      }
    });

    it('/vnc admits only a viewer token, never a key', async () => {
      for (const caller of CALLERS)
        expect(await upgrade(`/v1/sandboxes/${ids.sb}/vnc`, headers[caller]), caller).toBe(401);
      const link = (
        await s.call(headers.account.authorization!.slice(7), 'POST', `/v1/sandboxes/${ids.sb}/viewer-token`)
      ).json();
      expect(await upgrade(link.vnc_url, {})).toBe(502);
      expect(await upgrade(`${link.vnc_url}x`, {})).toBe(401);
    });
  });
});
