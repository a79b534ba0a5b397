// The admin listener's TLS certificate. Kubernetes clients (kubectl, client-go) send a bearer token
// only over TLS, so the admin listener also speaks HTTPS; on first start sandbay makes a self-signed
// certificate for the loopback names (ECDSA P-256), kept in the data dir like the admin key, which
// clients trust with `--certificate-authority DATA_DIR/admin-tls.crt`.
import { X509Certificate, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';

export const TLS_CERT_FILE = 'admin-tls.crt';
export const TLS_KEY_FILE = 'admin-tls.key';
const VALIDITY_DAYS = 3650;

export interface TlsMaterial {
  cert: string;
  key: string;
}

/**
 * Reads the certificate and key at the given paths, or makes and writes new ones when absent, valid
 * for localhost, 127.0.0.1, ::1 and the address the listener binds (unless a wildcard).
 */
export async function ensureAdminTls(certFile: string, keyFile: string, host: string): Promise<TlsMaterial> {
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    return { cert, key };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const ips = new Set(['127.0.0.1', '::1']);
  const dnsNames = new Set(['localhost']);
  if (isIP(host)) {
    if (host !== '0.0.0.0' && host !== '::') ips.add(host);
  } else dnsNames.add(host);
  const material = selfSignedCertificate([...dnsNames], [...ips]);
  // The key first, written aside then renamed: a certificate file always has its key beside it.
  await writeFile(`${keyFile}.tmp`, material.key, { mode: 0o600 });
  await rename(`${keyFile}.tmp`, keyFile);
  await writeFile(`${certFile}.tmp`, material.cert, { mode: 0o644 });
  await rename(`${certFile}.tmp`, certFile);
  return material;
}

/** A self-signed X.509 v3 server certificate (also its own CA) for the given DNS names and IPs. */
export function selfSignedCertificate(dnsNames: string[], ips: string[], now = new Date()): TlsMaterial {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid('2.5.4.3'), utf8('sandbay admin'))));
  const notAfter = new Date(now.getTime() + VALIDITY_DAYS * 86_400_000);
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serialNumber()),
    seq(oid(ECDSA_WITH_SHA256)),
    name,
    seq(time(new Date(now.getTime() - 60_000)), time(notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(...extensions(dnsNames, ips))),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = seq(tbs, seq(oid(ECDSA_WITH_SHA256)), bitString(signature));
  const cert = pem('CERTIFICATE', der);
  new X509Certificate(cert); // parses what was built, or throws here rather than in a client
  return { cert, key: exportKey(privateKey) };
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

function extensions(dnsNames: string[], ips: string[]): Buffer[] {
  const altNames = [
    ...dnsNames.map((n) => tagged(0x82, Buffer.from(n, 'ascii'))),
    ...ips.map((ip) => tagged(0x87, ipBytes(ip))),
  ];
  return [
    extension('2.5.29.19', true, seq(boolean(true))), // basicConstraints: CA (it signs itself)
    extension('2.5.29.15', true, bitString(Buffer.from([0x84]), 2)), // keyUsage: digitalSignature, keyCertSign
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension('2.5.29.17', false, seq(...altNames)), // subjectAltName
  ];
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [boolean(true)] : []), tagged(0x04, value));
}

function ipBytes(ip: string): Buffer {
  if (ip.includes(':')) {
    const [head = '', tail = ''] = ip.split('::');
    const groups = (s: string) => (s === '' ? [] : s.split(':'));
    const h = groups(head);
    const t = groups(tail);
    const all = [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
    return Buffer.from(all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
  }
  return Buffer.from(ip.split('.').map(Number));
}

/**
 * A positive serial number whose DER INTEGER is minimal: first byte 0x40–0x7f. Only clearing the top
 * bit left a leading 0x00 byte in 1 of 128 serials, which DER forbids when the next byte is below
 * 0x80 ("illegal padding": the server failed to start in 1 of 256 first starts).
 */
export function serialNumber(random: Buffer = randomBytes(16)): Buffer {
  const serial = Buffer.from(random);
  serial[0] = ((serial[0] ?? 0) & 0x3f) | 0x40;
  return serial;
}

// DER encoding: tag, length, value.
function tagged(tag: number, value: Buffer): Buffer {
  const length =
    value.length < 0x80
      ? Buffer.from([value.length])
      : (() => {
          const bytes = Buffer.from(
            value.length.toString(16).padStart(value.length > 0xff ? 4 : 2, '0'),
            'hex',
          );
          return Buffer.concat([Buffer.from([0x80 | bytes.length]), bytes]);
        })();
  return Buffer.concat([Buffer.from([tag]), length, value]);
}
const seq = (...items: Buffer[]) => tagged(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tagged(0x31, Buffer.concat(items));
const explicit = (n: number, value: Buffer) => tagged(0xa0 + n, value);
const integer = (bytes: Buffer) => tagged(0x02, bytes);
const boolean = (value: boolean) => tagged(0x01, Buffer.from([value ? 0xff : 0]));
const utf8 = (text: string) => tagged(0x0c, Buffer.from(text, 'utf8'));
const bitString = (bytes: Buffer, unusedBits = 0) =>
  tagged(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
/** RFC 5280: UTCTime through 2049, GeneralizedTime from 2050. */
function time(d: Date): Buffer {
  const digits = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050
    ? tagged(0x17, Buffer.from(`${digits.slice(2)}Z`, 'ascii'))
    : tagged(0x18, Buffer.from(`${digits}Z`, 'ascii'));
}

function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tagged(0x06, Buffer.from(bytes));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

function exportKey(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}
