// Dashboard sessions: signing in with an account key sets a cookie holding a signed claim
// {key name, expiry, nonce}; nothing is stored server side. Each request with the cookie is checked
// again against the key it names (revoked or expired key: the session is dead at once), so rotating
// the key ends every session of the old key. The cookie is HttpOnly (scripts cannot read it),
// SameSite=Strict (no other site's page makes the browser send it) and Secure over TLS.
//
// CSRF: beyond SameSite, every unsafe request (not GET/HEAD) authenticated by the cookie must carry
// `X-CSRF-Token`, an HMAC of the cookie the page learns from `GET /v1/session`. Another origin can
// neither read that answer nor set the header without a CORS preflight, which this API never grants.
import { createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { sameSecret } from '../keys.ts';

export const SESSION_COOKIE = 'sandbay_session';
export const CSRF_HEADER = 'x-csrf-token';
/** How long a sign-in lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface SessionClaims {
  /** The ApiKey resource name of the account key signed in with. */
  keyName: string;
  /** Expiry, ms since the epoch. */
  expiresAt: number;
}

export class Sessions {
  readonly #key: KeyObject;

  constructor(key: KeyObject) {
    this.#key = key;
  }

  /** A fresh cookie value for a key. */
  mint(keyName: string, now: number): { value: string; claims: SessionClaims } {
    const claims = { keyName, expiresAt: now + SESSION_TTL_MS };
    const payload = Buffer.from(
      JSON.stringify({ k: keyName, e: claims.expiresAt, n: randomBytes(12).toString('base64url') }),
    ).toString('base64url');
    return { value: `${payload}.${this.#mac('cookie', payload)}`, claims };
  }

  /** The claims of a cookie value whose signature holds and which has not expired. */
  verify(value: string | undefined, now: number): SessionClaims | undefined {
    if (value === undefined || value.length > 512) return undefined;
    const [payload, signature, extra] = value.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    if (!sameSecret(signature, this.#mac('cookie', payload))) return undefined;
    try {
      const { k, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
        k?: unknown;
        e?: unknown;
      };
      if (typeof k !== 'string' || typeof e !== 'number' || e <= now) return undefined;
      return { keyName: k, expiresAt: e };
    } catch {
      return undefined;
    }
  }

  /** The CSRF token of a session: bound to this very cookie value. */
  csrfToken(cookieValue: string): string {
    return this.#mac('csrf', cookieValue);
  }

  csrfValid(cookieValue: string, presented: string | string[] | undefined): boolean {
    return typeof presented === 'string' && sameSecret(presented, this.csrfToken(cookieValue));
  }

  #mac(purpose: string, value: string): string {
    return createHmac('sha256', this.#key).update(`${purpose}:${value}`).digest('base64url');
  }
}
