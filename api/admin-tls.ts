// The admin listener's TLS certificate. Kubernetes clients (kubectl, client-go) send a bearer token
// only over TLS, so the admin listener also speaks HTTPS; on first start sandbay makes a self-signed
// certificate for the loopback names (ECDSA P-256), kept in the data dir like the admin key, which
// clients trust with `--certificate-authority DATA_DIR/admin-tls.crt`.
//
// The certificate is built by `@peculiar/x509` (ASN.1 and X.509 extensions) on WebCrypto keys.
import { X509Certificate, randomBytes, webcrypto } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
// @peculiar/x509 2.x resolves its parts through tsyringe, which needs this polyfill loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export const TLS_CERT_FILE = 'admin-tls.crt';
export const TLS_KEY_FILE = 'admin-tls.key';
const VALIDITY_DAYS = 3650;

export interface TlsMaterial {
  cert: string;
  key: string;
}

/**
 * Reads the certificate and key at the given paths, or makes and writes new ones when absent, valid
 * for localhost, 127.0.0.1, ::1 and the address or name the listener binds (unless a wildcard).
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
    const ip = canonicalIp(host);
    if (ip !== '0.0.0.0' && ip !== '::') ips.add(ip);
  } else dnsNames.add(host);
  const material = await selfSignedCertificate([...dnsNames], [...ips]);
  // The key first, written aside then renamed: a certificate file always has its key beside it.
  await writeFile(`${keyFile}.tmp`, material.key, { mode: 0o600 });
  await rename(`${keyFile}.tmp`, keyFile);
  await writeFile(`${certFile}.tmp`, material.cert, { mode: 0o644 });
  await rename(`${certFile}.tmp`, certFile);
  return material;
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
  const altNames: x509.JsonGeneralName[] = [
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
