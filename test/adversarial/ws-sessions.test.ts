// Attack: holding the service's VNC and SSH WebSockets. A tenant opens more than its share of
// connections to one sandbox, sends oversized messages, and keeps sessions open after its key was
// revoked or its sandbox deleted. Past a cap the upgrade is refused with 429 `too_many_connections`
// (a JSON error, nothing upgraded); a message over the size limit closes the socket (1009); a
// session whose credential no longer holds is closed (4003) within the recheck. Real parts: the
// linux driver's desktop, the operator, the API on a loopback listener, `ws` clients.
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ApiKey } from '../../crds/index.ts';
import { MAX_MESSAGE_BYTES } from '../../api/ws/upgrade.ts';
import type { SqliteStore } from '../../store/sqlite-store.ts';
import { seedAccount, startLinuxApiStack, waitFor, type LinuxApiStack } from '../api-harness.ts';
import { apiCall } from '../support/api-call.ts';

let stack: LinuxApiStack;
let store: SqliteStore;
let app: FastifyInstance;
let base: string;
let accountKey: string;
let reservationKey: string;
let sb: string;
const LIMITS = { perSandbox: 3, perAccount: 4, perCredential: 2 };

async function api(key: string, method: string, url: string, body?: unknown) {
  const r = await apiCall(base, key, method, url, body);
  return { status: r.status, body: r.json() };
}

beforeAll(async () => {
  stack = await startLinuxApiStack('sandbay-ws-sessions-', { authFailureLimits: false, wsLimits: LIMITS });
  ({ store, app, base } = stack);
  accountKey = await seedAccount(store, 'holder', 100_000_000);
  await waitFor(
    async () =>
      ((await api(accountKey, 'GET', '/v1/platforms')).body.models as { available_minis: number }[])[0]!
        .available_minis > 0,
    'the local Mac',
    60_000,
  );
  const r = await api(accountKey, 'POST', '/v1/reservations', { hours: 24 });
  expect(r.body.status).toBe('active');
  reservationKey = r.body.key as string;
  const created = await waitFor(
    async () => {
      const c = await api(accountKey, 'POST', '/v1/sandboxes', {});
      return c.status === 201 ? c.body : undefined;
    },
    'a warm VM to take',
    60_000,
  );
  sb = created.sandbox_id as string;
}, 120_000);

afterAll(async () => {
  await stack?.close();
}, 60_000);

interface Opened {
  ws: WebSocket;
  /** The first bytes the VM's side sent (SSH banner, RFB version). */
  first: Promise<string>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a VNC or SSH WebSocket; resolves once upgraded, or with the HTTP refusal. */
function open(
  url: string,
  key?: string,
): Promise<Opened | { status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}${url}`, {
      ...(key !== undefined && { headers: { authorization: `Bearer ${key}` } }),
    });
    const first = new Promise<string>((res) => ws.once('message', (d: Buffer) => res(d.toString('latin1'))));
    const closed = new Promise<{ code: number; reason: string }>((res) =>
      ws.once('close', (code, reason) => res({ code, reason: reason.toString() })),
    );
    ws.once('open', () => resolve({ ws, first, closed }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }),
      );
    });
    ws.once('error', reject);
  });
}

const sshUrl = () => `/v1/sandboxes/${sb}/ssh`;
async function vncUrl(): Promise<string> {
  return (await api(accountKey, 'GET', `/v1/sandboxes/${sb}`)).body.vnc_url as string;
}
function upgraded(o: Awaited<ReturnType<typeof open>>): Opened {
  if (!('ws' in o)) throw new Error(`not upgraded: ${o.status} ${JSON.stringify(o.body)}`);
  return o;
}
async function closeAll(list: Opened[]): Promise<void> {
  const before = app.wsProxies.size;
  for (const o of list) o.ws.close();
  await Promise.all(list.map((o) => o.closed));
  // The server frees a session's slot once its own side has ended, which can be a moment after the
  // client saw the close: the next test's sessions would otherwise meet the caps still counting these.
  await waitFor(async () => app.wsProxies.size <= before - list.length, 'the server to end the sessions');
}

it('refuses a connection past the cap per credential, per sandbox and per account, and admits again once one closes', async () => {
  const a1 = upgraded(await open(sshUrl(), accountKey));
  const a2 = upgraded(await open(sshUrl(), accountKey));
  expect(await a1.first).toMatch(/^SSH-2\.0-/);
  // A third with the same key: the credential's cap (2).
  const third = await open(sshUrl(), accountKey);
  expect(third).toMatchObject({ status: 429, body: { error: 'too_many_connections' } });
  // Another credential (the reservation's key) gets one more: the sandbox's cap (3) is then full.
  const r1 = upgraded(await open(sshUrl(), reservationKey));
  const overSandbox = await open(await vncUrl());
  expect(overSandbox).toMatchObject({ status: 429, body: { error: 'too_many_connections' } });
  expect('body' in overSandbox && String(overSandbox.body.message)).toMatch(/this sandbox/);
  // One closes: a viewer gets in (and is greeted by the proxy's RFB handshake).
  await closeAll([a2]);
  const v = upgraded(await open(await vncUrl()));
  expect(await v.first).toMatch(/^RFB 003\.008/);
  await closeAll([a1, r1, v]);
});

/** A raw upgrade request with the given headers; resolves with the HTTP answer's status and body. */
function rawUpgrade(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${url}`, {
      headers: { connection: 'Upgrade', authorization: `Bearer ${accountKey}`, ...headers },
    });
    req.once('response', (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    // ws answers a handshake it refuses with a bare 400 and closes: that ends the request too.
    req.once('upgrade', () => reject(new Error('upgraded')));
    req.once('error', reject);
    req.end();
  });
}

it('a malformed or refused handshake takes no session slot (more of them than the caps, then a real session)', async () => {
  const wellFormed = {
    upgrade: 'websocket',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-version': '13',
  };
  for (let i = 0; i < 4; i++) {
    // Refused before the VM is touched, with a JSON error.
    const bad = await rawUpgrade(sshUrl(), { ...wellFormed, upgrade: 'x' });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ error: 'invalid_request' });
    // Passes the checks, reaches the VM, and is refused by ws itself (a subprotocol list that does
    // not parse): the slot it held is released and the VM connection closed.
    const refused = await rawUpgrade(sshUrl(), { ...wellFormed, 'sec-websocket-protocol': 'a b' });
    expect(refused.status).toBe(400);
  }
  const a = upgraded(await open(sshUrl(), accountKey));
  const b = upgraded(await open(sshUrl(), accountKey));
  expect(await a.first).toMatch(/^SSH-2\.0-/);
  await closeAll([a, b]);
});

it('closes a WebSocket whose client sends a message over the size limit (1009)', async () => {
  const s = upgraded(await open(sshUrl(), accountKey));
  await s.first;
  s.ws.send(Buffer.alloc(MAX_MESSAGE_BYTES + 1));
  expect((await s.closed).code).toBe(1009);
});

it("closes live views when the sandbox's viewer links are revoked, and refuses the old link from then on", async () => {
  const link = await vncUrl();
  const v = upgraded(await open(link));
  await v.first;
  const ssh = upgraded(await open(sshUrl(), accountKey));
  const r = await fetch(`${base}/v1/sandboxes/${sb}/viewer-token`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${accountKey}` },
  });
  expect(r.status).toBe(204);
  expect(await v.closed).toMatchObject({ code: 4003 });
  expect(await open(link)).toMatchObject({ status: 401, body: { error: 'invalid_viewer_token' } });
  // The SSH session (a key, not a link) goes on; a link minted now works.
  expect(ssh.ws.readyState).toBe(WebSocket.OPEN);
  const fresh = upgraded(await open(await vncUrl()));
  expect(await fresh.first).toMatch(/^RFB 003\.008/);
  await closeAll([fresh, ssh]);
});

it("ends an SSH session when its key is revoked, and a viewer's when the sandbox is deleted", async () => {
  const s = upgraded(await open(sshUrl(), reservationKey));
  await s.first;
  const other = upgraded(await open(sshUrl(), accountKey));
  const v = upgraded(await open(await vncUrl()));
  await v.first;
  // The reservation's key is revoked, as the admin API and a reservation's end revoke it.
  const keys = await store.list<ApiKey>('ApiKey');
  const rk = keys.items.find((k) => k.spec.kind === 'reservation' && k.spec.account === 'holder')!;
  await store.update<ApiKey>({ ...rk, spec: { ...rk.spec, revoked: true } });
  expect(await s.closed).toMatchObject({ code: 4003 });
  // The account key's session is not touched.
  expect(other.ws.readyState).toBe(WebSocket.OPEN);
  // Delete the sandbox: every session to it ends, the viewer's too.
  expect((await api(accountKey, 'DELETE', `/v1/sandboxes/${sb}`)).status).toBeLessThan(300);
  // Whichever comes first ends them: the recheck (4003) or the VM's own teardown closing its side (1000/1011).
  for (const o of [v, other]) expect([4003, 1000, 1011]).toContain((await o.closed).code);
}, 30_000);
