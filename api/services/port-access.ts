// Who may reach a sandbox's forwarded port, and what of the request the guest's server sees.
//
// `/v1/sandboxes/{id}/ports/{port}/…` is authorized like the viewer link: the viewer token (in the
// `sandbay_token` query parameter, then kept in a cookie scoped to that port's path so that a
// browser's later requests carry it), or the owner's key (`Authorization: Bearer`). The credential is
// sandbay's own and never reaches the guest: the parameter, the cookie and (when it authenticated)
// the Authorization header are removed; everything else is forwarded as sent, with `Host:
// localhost:<port>` (what the server would see from a browser in the VM, so dev servers that check
// the host answer) and the X-Forwarded-* headers saying where the request came from.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { parseCookie, parseSetCookie, stringifyCookie, stringifySetCookie } from 'cookie';
import type { Sandbox } from '../../crds/index.ts';
import { isPort } from '../../hosts/stream-checks.ts';
import { authenticate } from '../auth.ts';
import { ApiError } from '../errors.ts';
import type { SessionCheck } from '../ws/live-sessions.ts';
import type { ApiContext } from './context.ts';
import { findSandbox } from './sandboxes.ts';

export const TOKEN_PARAM = 'sandbay_token';
export const TOKEN_COOKIE = 'sandbay_token';

/** `/v1/sandboxes/<id>/ports/<port>`: the prefix the guest's paths are served under. */
export function portPrefix(sandboxId: string, port: number): string {
  return `/v1/sandboxes/${sandboxId}/ports/${port}`;
}

/** The port of the path, or 400 `invalid_port`. */
export function parsePort(text: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!isPort(port))
    throw new ApiError('invalid_port', `A port is an integer from 1 to 65535, not "${text}".`);
  return port;
}

export interface PortGrant {
  sandbox: Sandbox;
  /** The credential as presented (for the live-session caps; hashed there, never logged). */
  credential: string;
  /** How it authenticated: the viewer token or the key's Authorization header. */
  via: 'token' | 'key';
  /** A token that came in the query: the cookie that keeps it for the port's later requests. */
  setCookie?: string;
  /** When the grant ends (a viewer token's expiry), ms since the epoch. */
  closeAt?: number;
  stillAllowed: () => Promise<SessionCheck>;
}

/**
 * Decides a request to a port: the token from the query, else from the cookie, else the key. A
 * wrong credential is 401; another account's sandbox 404 (as everywhere).
 */
export async function authorizePort(
  ctx: ApiContext,
  request: IncomingMessage,
  sandboxId: string,
  port: number,
  url: URL,
  secure: boolean,
): Promise<PortGrant> {
  const now = ctx.clock.now();
  const fromQuery = url.searchParams.get(TOKEN_PARAM) ?? undefined;
  const token = fromQuery ?? cookieToken(request.headers);
  if (token !== undefined) {
    const grant = await ctx.viewerTokens.verify(ctx.reads, token, sandboxId, now);
    const maxAge = Math.max(0, Math.floor((grant.expiresAt - now) / 1000));
    return {
      sandbox: grant.sandbox,
      credential: token,
      via: 'token',
      closeAt: grant.expiresAt,
      ...(fromQuery !== undefined && {
        setCookie: stringifySetCookie({
          name: TOKEN_COOKIE,
          value: token,
          path: portPrefix(sandboxId, port),
          httpOnly: true,
          sameSite: 'lax',
          secure,
          maxAge,
        }),
      }),
      stillAllowed: async () => {
        const at = ctx.clock.now();
        if (at >= grant.expiresAt) return 'expired';
        await ctx.viewerTokens.verify(ctx.reads, token, sandboxId, at);
        return true;
      },
    };
  }
  const header = request.headers.authorization;
  const principal = await authenticate(ctx.reads, header, now);
  const sandbox = await findSandbox(ctx, principal, sandboxId);
  return {
    sandbox,
    credential: header ?? '',
    via: 'key',
    stillAllowed: async () => {
      const again = await authenticate(ctx.reads, header, ctx.clock.now());
      return (await findSandbox(ctx, again, sandboxId)).metadata.uid === sandbox.metadata.uid;
    },
  };
}

function cookieToken(headers: IncomingHttpHeaders): string | undefined {
  return headers.cookie === undefined ? undefined : parseCookie(headers.cookie)[TOKEN_COOKIE];
}

/** The path and query the guest's server is asked for: the rest after the prefix, sandbay's parameter removed. */
export function upstreamPath(rawUrl: string, prefix: string): string {
  const q = rawUrl.indexOf('?');
  const path = (q < 0 ? rawUrl : rawUrl.slice(0, q)).slice(prefix.length) || '/';
  if (q < 0) return path;
  const params = new URLSearchParams(rawUrl.slice(q + 1));
  if (!params.has(TOKEN_PARAM)) return `${path}${rawUrl.slice(q)}`;
  params.delete(TOKEN_PARAM);
  const rest = params.toString();
  return rest ? `${path}?${rest}` : path;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1): a proxy never forwards them. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function hopByHop(headers: IncomingHttpHeaders): Set<string> {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return new Set([...HOP_BY_HOP, ...named]);
}

/**
 * The headers the guest's server gets: the client's, less hop-by-hop ones and sandbay's credential,
 * with its own Host and the X-Forwarded-* headers. `keepUpgrade`: a WebSocket's handshake headers stay.
 */
export function upstreamHeaders(
  request: IncomingMessage,
  grant: PortGrant,
  port: number,
  prefix: string,
  o: { secure: boolean; keepUpgrade?: boolean },
): Record<string, string | string[]> {
  const drop = hopByHop(request.headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'host') continue;
    if (drop.has(name) && !(o.keepUpgrade && (name === 'upgrade' || name === 'connection'))) continue;
    if (name === 'authorization' && grant.via === 'key') continue;
    if (name.startsWith('sec-websocket-') && o.keepUpgrade) continue; // the proxy's own handshake
    out[name] = value;
  }
  if (typeof out.cookie === 'string') {
    const cookies = parseCookie(out.cookie);
    delete cookies[TOKEN_COOKIE];
    const rest = stringifyCookie(cookies);
    if (rest) out.cookie = rest;
    else delete out.cookie;
  }
  out.host = `localhost:${port}`;
  const client = request.socket.remoteAddress ?? '';
  const prior = request.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior ? `${String(prior)}, ${client}` : client;
  out['x-forwarded-proto'] = o.secure ? 'https' : 'http';
  if (request.headers.host) out['x-forwarded-host'] = request.headers.host;
  out['x-forwarded-prefix'] = prefix;
  return out;
}

/**
 * Served to a browser on the API's own origin, a guest's page could call the API with the viewer's
 * dashboard session: `sandbox` gives the page an opaque origin of its own (scripts, forms, pop-ups
 * and downloads still work; the API's cookies and responses are out of its reach).
 */
export const PORT_CSP = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

/**
 * The guest's response headers as the client gets them: hop-by-hop ones dropped, a redirect to the
 * guest's own root or `localhost:<port>` kept under the prefix, cookies scoped to the prefix (and to
 * this host only), and the sandbox CSP added.
 */
export function clientHeaders(
  headers: IncomingHttpHeaders,
  port: number,
  prefix: string,
): Record<string, string | string[]> {
  const drop = hopByHop(headers);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || drop.has(name)) continue;
    out[name] = value;
  }
  if (typeof out.location === 'string') out.location = rewriteLocation(out.location, port, prefix);
  if (out['set-cookie']) {
    out['set-cookie'] = (out['set-cookie'] as string[]).map((line) => scopeCookie(line, prefix));
  }
  out['content-security-policy'] = [...[out['content-security-policy'] ?? []].flat(), PORT_CSP];
  return out;
}

function rewriteLocation(location: string, port: number, prefix: string): string {
  if (location.startsWith('/') && !location.startsWith('//')) return `${prefix}${location}`;
  const m = /^https?:\/\/(?:localhost|127\.0\.0\.1)(?::(\d+))?(\/.*)?$/i.exec(location);
  if (m && Number(m[1] ?? 80) === port) return `${prefix}${m[2] ?? '/'}`;
  return location;
}

function scopeCookie(line: string, prefix: string): string {
  const cookie = parseSetCookie(line);
  const path = cookie.path?.startsWith('/') ? cookie.path : '/';
  return stringifySetCookie({ ...cookie, domain: undefined, path: `${prefix}${path === '/' ? '/' : path}` });
}
