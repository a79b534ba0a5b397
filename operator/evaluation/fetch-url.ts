// Fetches the URL of a `download` step for the VM. The control plane fetches, not the VM: a VM may
// have no route out (the linux driver's have none; an egress policy may close a Mac's), and
// OSWorld's own setup controller does the same (it downloads on the host and uploads into the VM).
//
// A tenant's URL fetched from inside the control plane must not reach what only the control plane
// can: its own listeners on loopback, the admin API, cloud metadata (169.254.169.254), other hosts
// of a private network. So only public addresses are fetched, unless the operator allows more
// (`allow`, CIDRs: tests allow 127.0.0.0/8 for their own servers). The name is resolved once, every
// address it resolves to is checked, and the connection goes to the checked address (no second
// lookup a DNS rebinding could answer differently); each redirect hop is checked the same way.
import { Resolver } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { Transform, type Readable } from 'node:stream';

export interface UrlFetchPolicy {
  /** CIDRs fetched although they are not public addresses (e.g. `127.0.0.0/8`, `10.1.0.0/16`). */
  allow?: readonly string[];
  /** Largest body (default 2 GiB, the upload limit). */
  maxBytes?: number;
}

export const DEFAULT_FETCH_MAX_BYTES = 2 * 1024 ** 3;
const MAX_REDIRECTS = 5;

export class FetchRefusedError extends Error {
  override name = 'FetchRefusedError';
}

/** Addresses that are not on the public internet (RFC 6890 special-purpose ranges and their kin). */
const NOT_PUBLIC = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(address, prefix, 'ipv6');

/** Parses `a.b.c.d/n` or `x::/n` into a BlockList used as an allow list. */
export function allowList(cidrs: readonly string[] = []): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of cidrs) {
    const [address = '', bits] = cidr.split('/');
    const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : undefined;
    const prefix = bits === undefined ? (family === 'ipv4' ? 32 : 128) : Number(bits);
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 'ipv4' ? 32 : 128))
      throw new Error(`not a CIDR: ${JSON.stringify(cidr)}`);
    list.addSubnet(address, prefix, family);
  }
  return list;
}

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return { address: m[1]!, family: 'ipv4' };
  return { address, family: net.isIPv4(address) ? 'ipv4' : 'ipv6' };
}

export function addressAllowed(address: string, allow: net.BlockList): boolean {
  const a = unmapped(address);
  return allow.check(a.address, a.family) || !NOT_PUBLIC.check(a.address, a.family);
}

/**
 * DNS through c-ares on the event loop, never getaddrinfo: `lookup` runs on libuv's shared pool, and
 * a name whose servers answer slowly (the tenant's to choose) would hold a pool thread for each
 * setup step (four of them hold every file read and write of the server). So /etc/hosts is not
 * read; `localhost` names are loopback (RFC 6761) as a resolver would answer.
 */
const resolver = new Resolver({ timeout: 2_000, tries: 2 });

async function resolveAll(host: string): Promise<{ address: string; family: number }[]> {
  if (host === 'localhost' || host.endsWith('.localhost'))
    return [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (found.length > 0) return found;
  const why = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException) : undefined;
  throw Object.assign(new Error(why?.message ?? 'no address'), { code: why?.code ?? 'ENOTFOUND' });
}

/** Resolves the URL's host and checks every address; answers the one to connect to. */
async function vettedAddress(url: URL, allow: net.BlockList): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = net.isIP(host)
    ? [{ address: host, family: net.isIP(host) }]
    : await resolveAll(host).catch((err: NodeJS.ErrnoException) => {
        throw new FetchRefusedError(`${host} does not resolve (${err.code ?? err.message})`);
      });
  const refused = found.find((a) => !addressAllowed(a.address, allow));
  if (refused)
    throw new FetchRefusedError(
      `${url.host} resolves to ${refused.address}, which is not a public address (the server's fetch allow list does not include it)`,
    );
  return found[0]!;
}

/** A request to the checked address only (no second lookup), with `body` sent when given. */
function send(
  url: URL,
  address: { address: string; family: number },
  signal: AbortSignal,
  init: { method: string; headers: Record<string, string>; body?: Buffer } = {
    method: 'GET',
    headers: { 'user-agent': 'sandbay-setup' },
  },
) {
  const pinned: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) cb(null, [address] as never);
    else cb(null, address.address, address.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = client.request(url, { method: init.method, lookup: pinned, signal, headers: init.headers });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(init.body);
  });
}

/**
 * GETs `raw` under the policy; the body streams (and fails past `maxBytes`). Throws
 * FetchRefusedError for a URL the policy refuses and Error for an HTTP or network failure.
 */
export async function fetchUrl(
  raw: string,
  policy: UrlFetchPolicy,
  signal: AbortSignal,
): Promise<{ body: Readable; bytes?: number }> {
  const allow = allowList(policy.allow);
  const maxBytes = policy.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
  let url = new URL(raw);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchRefusedError(`${url.protocol} URLs are not fetched (http and https only)`);
    const res = await send(url, await vettedAddress(url, allow), signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location !== undefined) {
      res.resume();
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${raw}`);
      url = new URL(res.headers.location, url);
      continue;
    }
    if (status < 200 || status >= 300) {
      res.resume();
      throw new Error(`GET ${url.href} answered ${status}`);
    }
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > maxBytes) {
      res.destroy();
      throw new Error(`${url.href} is ${declared} bytes, over the ${maxBytes}-byte download limit`);
    }
    let seen = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        if (seen > maxBytes) done(new Error(`${url.href} is over the ${maxBytes}-byte download limit`));
        else done(null, chunk);
      },
    });
    res.once('error', (err) => limit.destroy(err));
    return { body: res.pipe(limit), ...(Number.isFinite(declared) && { bytes: declared }) };
  }
}

/** The most of an answer to a POST that is read (the rest is dropped). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs JSON to `raw` under the same policy as a download (the address checked and pinned; no
 * redirect followed: a 3xx is the answer). Answers the status and the first 64 KiB of the body.
 * Throws FetchRefusedError for a refused URL and Error for a network failure or the signal.
 */
export async function postJson(
  raw: string,
  body: unknown,
  headers: Record<string, string>,
  policy: UrlFetchPolicy,
  signal: AbortSignal,
): Promise<{ status: number; text: string }> {
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchRefusedError(`${url.protocol} URLs are not called (http and https only)`);
  const payload = Buffer.from(JSON.stringify(body));
  const res = await send(url, await vettedAddress(url, allowList(policy.allow)), signal, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(payload.length), ...headers },
    body: payload,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    if (size >= MAX_ANSWER_BYTES) continue;
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return {
    status: res.statusCode ?? 0,
    text: Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES),
  };
}
