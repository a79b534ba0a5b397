import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHttpAndHttps } from './admin-listener.ts';
import { ensureAdminTls, selfSignedCertificate, serialNumber } from './admin-tls.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('selfSignedCertificate', () => {
  it('gives every serial number a minimal (DER) positive encoding, whatever the random bytes', () => {
    for (const first of [0x00, 0x01, 0x3f, 0x40, 0x7f, 0x80, 0xc0, 0xff]) {
      const random = Buffer.alloc(16, 0x00);
      random[0] = first;
      const serial = serialNumber(random);
      expect(serial.length).toBe(16);
      // Positive (top bit clear) and no leading zero byte.
      expect(serial[0]! & 0x80).toBe(0);
      expect(serial[0]).not.toBe(0);
    }
  });

  it('is a CA for itself, valid for the loopback names', () => {
    const { cert } = selfSignedCertificate(['localhost'], ['127.0.0.1', '::1']);
    const x509 = new X509Certificate(cert);
    expect(x509.ca).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBeDefined();
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.subjectAltName).toContain('DNS:localhost');
  });

  it('is made once per data dir, the key readable by the owner only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbay-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const first = await ensureAdminTls(join(dir, 'c.crt'), join(dir, 'c.key'), '127.0.0.1');
    const again = await ensureAdminTls(join(dir, 'c.crt'), join(dir, 'c.key'), '127.0.0.1');
    expect(again).toEqual(first);
    expect((await stat(join(dir, 'c.key'))).mode & 0o777).toBe(0o600);
  });
});

describe('listenHttpAndHttps', () => {
  it('answers HTTP and HTTPS on one port, keep-alive included', async () => {
    const app = Fastify();
    app.get('/who', async (request) => ({ encrypted: 'encrypted' in request.raw.socket }));
    const tls = selfSignedCertificate(['localhost'], ['127.0.0.1']);
    const listener = await listenHttpAndHttps(app, { port: 0, host: '127.0.0.1', tls });
    cleanups.push(() => listener.close());
    expect(listener.httpsUrl).toBe(listener.httpUrl.replace('http:', 'https:'));
    for (let i = 0; i < 2; i++) {
      expect(await (await fetch(`${listener.httpUrl}/who`)).json()).toEqual({ encrypted: false });
      const secure = await httpsGet(`${listener.httpsUrl}/who`, tls.cert);
      expect(JSON.parse(secure.body)).toEqual({ encrypted: true });
    }
  });
});
