// The admin listener's TLS certificate. Kubernetes clients (kubectl, client-go) send a bearer token
// only over TLS, so the admin listener also speaks HTTPS; on first start sandbay makes a self-signed
// certificate for the loopback names (ECDSA P-256), kept in the data dir like the admin key, which
// clients trust with `--certificate-authority DATA_DIR/admin-tls.crt`.
//
// The certificate is built by `@peculiar/x509` (ASN.1 and X.509 extensions) on WebCrypto keys,
// loaded only when a certificate is made (x509Library).
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type * as X509 from '@peculiar/x509';

export const TLS_CERT_FILE = 'admin-tls.crt';
export const TLS_KEY_FILE = 'admin-tls.key';
const VALIDITY_DAYS = 3650;

export interface TlsMaterial {
  cert: string;
  key: string;
}

/** How long a start waits for another start's certificate to follow the key it published. */
const PAIR_WAIT_MS = 10_000;
const POLL_MS = 20;

/**
 * Reads the certificate and key at the given paths, or makes and writes new ones when absent, valid
 * for localhost, 127.0.0.1, ::1 and the address or name the listener binds (unless a wildcard).
 *
 * Several processes may start on one data dir at once (replicas), and all of them must end up
 * serving the one pair on disk, which is what clients trust. So the key file is published by
 * `link()`, which fails when the file exists: exactly one start wins, then renames its certificate
 * into place; every other start drops what it made and waits for that certificate (a key whose
 * certificate never comes, left by a start that died between the two, is replaced after a wait).
 * Temp files carry the process and a random tag: no two writers ever share one.
 */
export async function ensureAdminTls(
  certFile: string,
  keyFile: string,
  host: string,
  pairWaitMs = PAIR_WAIT_MS,
): Promise<TlsMaterial> {
  // The key whose certificate is awaited, and since when: the wait starts over whenever the key
  // changes (another start replaced a stale one and is between its two writes now).
  let waiting: { key: string; since: number } | undefined;
  for (;;) {
    const found = await readPair(certFile, keyFile);
    if (found.key !== undefined && found.cert !== undefined && pairMatches(found.cert, found.key)) {
      return { cert: found.cert, key: found.key };
    }
    if (found.key === undefined) {
      waiting = undefined;
      const material = await selfSignedCertificate(...namesFor(host));
      if (await publish(material, certFile, keyFile)) return material;
      continue; // another start won: serve its pair
    }
    // A key without its certificate: another start is between its two writes, or died there.
    if (waiting?.key !== found.key) waiting = { key: found.key, since: Date.now() };
    if (Date.now() - waiting.since > pairWaitMs) {
      // Only the key waited on: one published meanwhile is another start's, whose certificate follows.
      const now = await readFile(keyFile, 'utf8').catch(() => undefined);
      if (now === waiting.key) await unlink(keyFile).catch(ignoreMissing);
      waiting = undefined;
      continue;
    }
    await delay(POLL_MS);
  }
}

function namesFor(host: string): [string[], string[]] {
  const ips = new Set(['127.0.0.1', '::1']);
  const dnsNames = new Set(['localhost']);
  if (isIP(host)) {
    const ip = canonicalIp(host);
    if (ip !== '0.0.0.0' && ip !== '::') ips.add(ip);
  } else dnsNames.add(host);
  return [[...dnsNames], [...ips]];
}

async function readPair(certFile: string, keyFile: string): Promise<{ cert?: string; key?: string }> {
  const read = (file: string) =>
    readFile(file, 'utf8').catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    });
  const key = await read(keyFile);
  const cert = key === undefined ? undefined : await read(certFile);
  return { ...(key !== undefined && { key }), ...(cert !== undefined && { cert }) };
}

function pairMatches(cert: string, key: string): boolean {
  try {
    return new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch {
    return false; // a file cut short or garbled: not a pair to serve
  }
}

/** Publishes `material` unless another start already published a key; says whether it did. */
async function publish(material: TlsMaterial, certFile: string, keyFile: string): Promise<boolean> {
  const tag = `${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const keyTmp = `${keyFile}.${tag}`;
  const certTmp = `${certFile}.${tag}`;
  try {
    await writeFile(keyTmp, material.key, { mode: 0o600, flag: 'wx' });
    await writeFile(certTmp, material.cert, { mode: 0o644, flag: 'wx' });
    try {
      await link(keyTmp, keyFile);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    await rename(certTmp, certFile);
    return true;
  } finally {
    await Promise.all([unlink(keyTmp).catch(ignoreMissing), unlink(certTmp).catch(ignoreMissing)]);
  }
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}

/**
 * A self-signed X.509 v3 server certificate (also its own CA) for the given DNS names and IPs.
 * Throws on a name that cannot be a certificate's DNS name or IP address.
 */
export async function selfSignedCertificate(
  dnsNames: string[],
  ips: string[],
  now = new Date(),
): Promise<TlsMaterial> {
  const x509 = await x509Library();
  const altNames: X509.JsonGeneralName[] = [
    ...dnsNames.map((value) => ({ type: 'dns' as const, value: dnsName(value) })),
    ...ips.map((value) => ({ type: 'ip' as const, value: canonicalIp(value) })),
  ];
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f; // positive
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: serial.toString('hex'),
      name: 'CN=sandbay admin',
      notBefore: new Date(now.getTime() - 60_000),
      notAfter: new Date(now.getTime() + VALIDITY_DAYS * 86_400_000),
      signingAlgorithm: algorithm,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true), // a CA: it signs itself
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(altNames),
      ],
    },
    webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1],
  );
  const pem = cert.toString('pem');
  new X509Certificate(pem); // parses what was built, or throws here rather than in a client
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { cert: `${pem}\n`, key: pemBlock('PRIVATE KEY', pkcs8) };
}

/**
 * `@peculiar/x509`, loaded on first use: with its ASN.1 schemas it is some 200 modules (about 4 MB
 * of the heap) that a server starting on the certificate it already has never runs.
 */
async function x509Library(): Promise<typeof X509> {
  // @peculiar/x509 2.x resolves its parts through tsyringe, which needs this polyfill loaded first.
  await import('reflect-metadata');
  return import('@peculiar/x509');
}

/**
 * An IP address in the form the certificate library encodes correctly: IPv6 compressed, in hex
 * groups (no embedded IPv4, which it would misread), without a zone. A zone (`fe80::1%eth0`)
 * names the interface the address is reached through, not part of the address, and no
 * certificate carries one (RFC 6874 zones exist only in URIs): the certificate names fe80::1.
 */
export function canonicalIp(ip: string): string {
  const address = ip.includes(':') ? ip.replace(/%[^%]+$/, '') : ip;
  const family = isIP(address);
  if (family === 4) return address;
  if (family === 6) return new URL(`http://[${address}]`).hostname.slice(1, -1);
  throw new Error(`"${ip}" is not an IP address`);
}

/** A DNS name as a certificate may carry it (RFC 5280: IA5String, preferred name syntax). */
function dnsName(name: string): string {
  if (
    !/^(?=.{1,253}$)(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(
      name,
    )
  ) {
    throw new Error(`"${name}" is not a DNS name a certificate can carry`);
  }
  return name;
}

function pemBlock(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
