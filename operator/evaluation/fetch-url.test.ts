// The control plane's fetch of a `download` step's URL, against real HTTP servers on loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefusedError, addressAllowed, allowList, fetchUrl } from './fetch-url.ts';

let server: http.Server;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/file') return res.end('hello from loopback');
    if (req.url === '/big') return res.end(Buffer.alloc(4096));
    if (req.url === '/to-other-loopback') {
      res.writeHead(302, { location: `http://127.0.0.2:${port}/file` });
      return res.end();
    }
    if (req.url === '/to-file') {
      res.writeHead(301, { location: '/file' });
      return res.end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const signal = () => AbortSignal.timeout(10_000);

describe('which addresses are fetched', () => {
  it('public addresses only by default; the allow list adds ranges', () => {
    const none = allowList();
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '192.168.1.1',
      '::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      'fd00::1',
    ])
      expect(addressAllowed(a, none), a).toBe(false);
    for (const a of ['1.1.1.1', '2606:4700::1111']) expect(addressAllowed(a, none), a).toBe(true);
    expect(addressAllowed('127.0.0.1', allowList(['127.0.0.1/32']))).toBe(true);
    expect(addressAllowed('127.0.0.2', allowList(['127.0.0.1/32']))).toBe(false);
    expect(() => allowList(['nonsense/8'])).toThrow(/not a CIDR/);
  });

  it('refuses loopback and cloud metadata without allowing them, before connecting', async () => {
    await expect(fetchUrl(`http://127.0.0.1:${port}/file`, {}, signal())).rejects.toBeInstanceOf(
      FetchRefusedError,
    );
    await expect(fetchUrl('http://169.254.169.254/latest/meta-data/', {}, signal())).rejects.toThrow(
      /169\.254\.169\.254, which is not a public address/,
    );
    await expect(fetchUrl(`http://localhost:${port}/file`, {}, signal())).rejects.toBeInstanceOf(
      FetchRefusedError,
    );
    expect(hits).toEqual([]);
  });
});

describe('fetching', () => {
  const allow = { allow: ['127.0.0.1/32'] };

  it('streams the body of an allowed address, following redirects', async () => {
    expect(await text((await fetchUrl(`http://127.0.0.1:${port}/file`, allow, signal())).body)).toBe(
      'hello from loopback',
    );
    expect(await text((await fetchUrl(`http://127.0.0.1:${port}/to-file`, allow, signal())).body)).toBe(
      'hello from loopback',
    );
  });

  it('checks every redirect hop: a redirect to an address not allowed is refused', async () => {
    await expect(fetchUrl(`http://127.0.0.1:${port}/to-other-loopback`, allow, signal())).rejects.toThrow(
      /127\.0\.0\.2, which is not a public address/,
    );
  });

  it('fails on an error status and past the size limit', async () => {
    await expect(fetchUrl(`http://127.0.0.1:${port}/nope`, allow, signal())).rejects.toThrow(/answered 404/);
    await expect(
      fetchUrl(`http://127.0.0.1:${port}/big`, { ...allow, maxBytes: 100 }, signal()),
    ).rejects.toThrow(/over the 100-byte download limit/);
  });
});
