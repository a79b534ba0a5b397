import { spawn } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { listenHttpAndHttps } from './admin-listener.ts';
import {
  canonicalIp,
  ensureAdminTls,
  selfSignedCertificate,
  TLS_CERT_FILE,
  TLS_KEY_FILE,
} from './admin-tls.ts';

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
  it('is a CA for itself, valid for the loopback names', async () => {
    const { cert } = await selfSignedCertificate(['localhost'], ['127.0.0.1', '::1']);
    const x509 = new X509Certificate(cert);
    expect(x509.ca).toBe(true);
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(x509.checkIP('::1')).toBeDefined();
    expect(x509.checkHost('localhost')).toBe('localhost');
    expect(x509.subjectAltName).toContain('DNS:localhost');
  });

  it('names every IPv4 and IPv6 form it is given, by the address a client checks', async () => {
    const ips = ['10.1.2.3', '::1', '2001:DB8::1:0:0:1', '::ffff:192.0.2.7', '1::', 'fe80::1%eth0'];
    const x509 = new X509Certificate(
      (await selfSignedCertificate(['sandbay.example', 'localhost'], ips)).cert,
    );
    for (const ip of ['10.1.2.3', '::1', '2001:db8::1:0:0:1', '::ffff:c000:207', '1::', 'fe80::1']) {
      expect(x509.checkIP(ip), ip).toBeDefined();
    }
    expect(x509.checkIP('10.1.2.4')).toBeUndefined();
    expect(x509.checkIP('2001:db8::1')).toBeUndefined();
    expect(x509.checkHost('sandbay.example')).toBe('sandbay.example');
    expect(x509.subjectAltName).toContain('IP Address:2001:DB8:0:0:1:0:0:1');
  });

  it('refuses what is neither an IP address nor a DNS name', async () => {
    await expect(selfSignedCertificate([], ['[::1]'])).rejects.toThrow(/not an IP address/);
    await expect(selfSignedCertificate([], ['fe80::1%'])).rejects.toThrow(/not an IP address/);
    await expect(selfSignedCertificate([], ['300.1.1.1'])).rejects.toThrow(/not an IP address/);
    await expect(selfSignedCertificate(['bad name'], [])).rejects.toThrow(/not a DNS name/);
    await expect(selfSignedCertificate(['[::1]'], [])).rejects.toThrow(/not a DNS name/);
    expect(canonicalIp('FE80::0:1%eth0')).toBe('fe80::1');
  });

  it('is made for the address the listener binds, a zone dropped, a wildcard not named', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbay-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const zoned = await ensureAdminTls(join(dir, 'a.crt'), join(dir, 'a.key'), 'fe80::1%lo');
    expect(new X509Certificate(zoned.cert).checkIP('fe80::1')).toBe('fe80::1');
    const wildcard = await ensureAdminTls(join(dir, 'b.crt'), join(dir, 'b.key'), '::');
    expect(new X509Certificate(wildcard.cert).subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
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

describe('ensureAdminTls on one data dir from several starts at once', () => {
  const matching = (m: { cert: string; key: string }) =>
    new X509Certificate(m.cert).checkPrivateKey(createPrivateKey(m.key));

  /** Where the pair should be, and what is in the dir besides it (temp files left over). */
  async function onDisk(dir: string) {
    const [cert, key] = await Promise.all([
      readFile(join(dir, TLS_CERT_FILE), 'utf8'),
      readFile(join(dir, TLS_KEY_FILE), 'utf8'),
    ]);
    return {
      cert,
      key,
      others: (await readdir(dir)).filter((f) => f !== TLS_CERT_FILE && f !== TLS_KEY_FILE),
    };
  }

  it('two processes starting together serve the one pair on disk, and leave no temp file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbay-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // Each child loads the module, says so, and calls ensureAdminTls when the test says go: both
    // calls start within a few ms of each other, the window in which both find no key.
    const script = [
      `import { ensureAdminTls } from ${JSON.stringify(join(import.meta.dirname, 'admin-tls.ts'))};`,
      `const [dir, cert, key] = process.argv.slice(1);`,
      `process.stdout.write('ready\\n');`,
      `process.stdin.once('data', async () => {`,
      `  process.stdout.write(JSON.stringify(await ensureAdminTls(dir + '/' + cert, dir + '/' + key, '127.0.0.1')) + '\\n');`,
      `  process.exit(0);`,
      `});`,
    ].join('\n');
    const starts = [0, 1].map(() =>
      spawn(process.execPath, ['--input-type=module', '-e', script, dir, TLS_CERT_FILE, TLS_KEY_FILE], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    // Listened for from the spawn on: a child that exits before a later listener would be missed.
    const exits = starts.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    const lines = starts.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
    for (const line of lines) expect((await line.next()).value).toBe('ready');
    for (const child of starts) child.stdin.write('go\n');
    const served = await Promise.all(
      lines.map(
        async (line) => JSON.parse((await line.next()).value as string) as { cert: string; key: string },
      ),
    );
    await Promise.all(exits);
    const disk = await onDisk(dir);
    expect(served[0]).toEqual({ cert: disk.cert, key: disk.key });
    expect(served[1]).toEqual({ cert: disk.cert, key: disk.key });
    expect(matching(disk)).toBe(true);
    expect(disk.others).toEqual([]);
  });

  it('eight starts in one process at once agree on one matching pair', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbay-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const served = await Promise.all(
      Array.from({ length: 8 }, () =>
        ensureAdminTls(join(dir, TLS_CERT_FILE), join(dir, TLS_KEY_FILE), '127.0.0.1'),
      ),
    );
    const disk = await onDisk(dir);
    for (const m of served) expect(m).toEqual({ cert: disk.cert, key: disk.key });
    expect(matching(disk)).toBe(true);
    expect(disk.others).toEqual([]);
  });

  it('replaces a key whose certificate never came (a start that died between the two writes)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbay-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const orphan = await selfSignedCertificate(['localhost'], ['127.0.0.1']);
    await writeFile(join(dir, TLS_KEY_FILE), orphan.key, { mode: 0o600 });
    const made = await ensureAdminTls(join(dir, TLS_CERT_FILE), join(dir, TLS_KEY_FILE), '127.0.0.1', 200);
    expect(made.key).not.toBe(orphan.key);
    const disk = await onDisk(dir);
    expect(made).toEqual({ cert: disk.cert, key: disk.key });
    expect(matching(disk)).toBe(true);
  });
});

describe('listenHttpAndHttps', () => {
  it('answers HTTP and HTTPS on one port, keep-alive included', async () => {
    const app = Fastify();
    app.get('/who', async (request) => ({ encrypted: 'encrypted' in request.raw.socket }));
    const tls = await selfSignedCertificate(['localhost'], ['127.0.0.1']);
    const listener = await listenHttpAndHttps(app, { port: 0, host: '127.0.0.1', tls });
    cleanups.push(() => listener.close());
    expect(listener.httpsUrl).toBe(listener.httpUrl.replace('http:', 'https:'));
    for (let i = 0; i < 2; i++) {
      expect(await (await fetch(`${listener.httpUrl}/who`)).json()).toEqual({ encrypted: false });
      const secure = await httpsGet(`${listener.httpsUrl}/who`, tls.cert);
      expect(JSON.parse(secure.body)).toEqual({ encrypted: true });
    }
  });

  it('is verified by a TLS client over IPv6 loopback', async () => {
    const app = Fastify();
    app.get('/who', async () => ({ ok: true }));
    const tls = await selfSignedCertificate([], ['::1']);
    const listener = await listenHttpAndHttps(app, { port: 0, host: '::1', tls });
    cleanups.push(() => listener.close());
    expect(listener.httpsUrl).toMatch(/^https:\/\/\[::1\]:\d+$/);
    expect(JSON.parse((await httpsGet(`${listener.httpsUrl}/who`, tls.cert)).body)).toEqual({ ok: true });
  });
});
