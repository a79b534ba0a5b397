// Attacks on the admin listener: sending the admin key in clear from off the machine, and holding
// connections open without ever authenticating (silent sockets, slow headers, a TLS handshake and
// then silence). The listener runs for real on loopback; the off-machine peer is an injected
// remote address (no non-loopback address exists here that a test could use).
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../api/admin-app.ts';
import { listenHttpAndHttps, type DualListener } from '../../api/admin-listener.ts';
import { selfSignedCertificate } from '../../api/admin-tls.ts';
import { adminKeyTransportAllowed, isLoopback } from '../../api/admin-transport.ts';
import { apiKeyResource, generateKey } from '../../api/keys.ts';
import { openStore, tempDir, waitFor, type TempDir } from '../api-harness.ts';
import type { SqliteStore } from '../../store/sqlite-store.ts';
import { errorOf, httpRequest } from './http-client.ts';

// Short, so the drops below come soon; long enough that a loaded machine's stall between a
// connect and its request does not drop a connection that does authenticate.
const DEADLINE_MS = 1_000;
let dir: TempDir;
let store: SqliteStore;
let listener: DualListener;
let adminKey: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = await tempDir('sandbay-adv-admin-');
  store = await openStore(dir.dir);
  const key = generateKey();
  await store.create(apiKeyResource(key, { kind: 'admin' }));
  adminKey = key.plaintext;
  const app = await buildAdminApp({ store });
  const tls = await selfSignedCertificate(['localhost'], ['127.0.0.1']);
  listener = await listenHttpAndHttps(app, { port: 0, host: '127.0.0.1', tls, authDeadlineMs: DEADLINE_MS });
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await listener?.close();
  await store?.close();
  await dir?.cleanup();
});

describe('the admin key in clear text', () => {
  it('is allowed over TLS from anywhere, in clear only from loopback', () => {
    for (const a of ['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopback(a), a).toBe(true);
      expect(adminKeyTransportAllowed({ remoteAddress: a, encrypted: false }), a).toBe(true);
    }
    for (const a of [
      '10.1.2.3',
      '192.168.64.2',
      '169.254.169.254',
      '::ffff:10.0.0.1',
      'fe80::1',
      '2001:db8::1',
    ]) {
      expect(adminKeyTransportAllowed({ remoteAddress: a, encrypted: false }), a).toBe(false);
      expect(adminKeyTransportAllowed({ remoteAddress: a, encrypted: true }), a).toBe(true);
    }
    expect(adminKeyTransportAllowed({ remoteAddress: undefined, encrypted: false })).toBe(false);
  });

  it('refuses a valid key over plain HTTP from another address, before looking at it', async () => {
    const app = await buildAdminApp({ store });
    try {
      const headers = { authorization: `Bearer ${adminKey}` };
      const remote = await app.inject({ url: '/api', headers, remoteAddress: '10.20.30.40' });
      expect([remote.statusCode, remote.json<{ error: string }>().error]).toEqual([
        403,
        'admin_tls_required',
      ]);
      const local = await app.inject({ url: '/api', headers, remoteAddress: '127.0.0.1' });
      expect(local.statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('accepts the key over plain HTTP on the real loopback listener', async () => {
    const r = await httpRequest(`${listener.httpUrl}/api`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(r.status).toBe(200);
    const wrong = await httpRequest(`${listener.httpUrl}/api`, { headers: { authorization: 'Bearer nope' } });
    expect([wrong.status, errorOf(wrong)]).toEqual([401, undefined]);
  });
});

describe('connections that never authenticate', () => {
  function open(): Promise<{ socket: Socket; closed: () => boolean }> {
    return new Promise((resolve, reject) => {
      const socket = connect(listener.port, '127.0.0.1');
      sockets.push(socket);
      let closed = false;
      socket.on('close', () => (closed = true));
      socket.on('error', () => undefined);
      socket.once('connect', () => resolve({ socket, closed: () => closed }));
      socket.once('error', reject);
    });
  }

  it('drops a socket that sends nothing', async () => {
    const c = await open();
    await waitFor(c.closed, 'the server to drop the silent socket');
  });

  it('drops a socket that sends headers slowly, never finishing', async () => {
    const c = await open();
    c.socket.write('GET /api HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => c.socket.writable && c.socket.write('X-A: b\r\n'), 50);
    try {
      await waitFor(c.closed, 'the server to drop the slow-headers socket');
    } finally {
      clearInterval(drip);
    }
  });

  it('drops a TLS connection that handshakes and then sends nothing', async () => {
    let closed = false;
    const t = tlsConnect({ port: listener.port, host: '127.0.0.1', rejectUnauthorized: false });
    t.on('error', () => undefined);
    t.on('close', () => (closed = true));
    sockets.push(t);
    await waitFor(() => closed, 'the server to drop the silent TLS socket');
  });

  it('drops a kept-alive connection whose requests all fail to authenticate, keeps an authenticated one', async () => {
    const request = (key: string) =>
      `GET /api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: keep-alive\r\n\r\n`;
    const answered = (c: { socket: Socket }) =>
      new Promise<string>((resolve) => {
        let text = '';
        const onData = (b: Buffer) => {
          text += b.toString();
          if (text.includes('\r\n\r\n')) {
            c.socket.off('data', onData);
            resolve(text.split('\r\n')[0]!);
          }
        };
        c.socket.on('data', onData);
      });
    const good = await open();
    const ok = answered(good);
    good.socket.write(request(adminKey));
    expect(await ok).toBe('HTTP/1.1 200 OK');
    // Opened after the good one: its deadline falls later, so when it is dropped the good
    // connection's deadline has passed too, and it must still be open.
    const bad = await open();
    const refused = answered(bad);
    bad.socket.write(request('sk_wrong'));
    expect(await refused).toBe('HTTP/1.1 401 Unauthorized');
    await waitFor(bad.closed, 'the server to drop the unauthenticated keep-alive socket');
    expect(good.closed()).toBe(false);
  });
});
