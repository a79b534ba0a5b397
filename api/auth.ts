// Bearer authentication of the customer API. Account keys act for their account across
// reservations; reservation keys act for their account within one reservation and die with it.
// Keys are found by the name derived from their SHA-256 (an index) and then compared by the full
// hash in constant time; the plaintext is never stored nor logged. Admin keys are for the admin
// listener only: here they are unknown keys (401), like any other key of the wrong kind.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ApiKey, Reservation } from '../crds/index.ts';
import { bearerToken } from './admin-auth.ts';
import { isAuthFailure, type AuthFailureLimiter } from './auth-failures.ts';
import { ApiError } from './errors.ts';
import { apiKeyName, sha256Hex } from './keys.ts';
import type { CachedReads } from './services/reads.ts';

/** The reads authentication needs (the API's cached reads). */
export type KeyReads = Pick<CachedReads, 'apiKey' | 'reservation'>;

/** Who a request acts for. */
export interface Principal {
  kind: 'account' | 'reservation';
  /** The account's name, which is also the namespace of its resources. */
  account: string;
  /** Reservation keys: the reservation's name (in the account's namespace). */
  reservation?: string;
  /** The ApiKey resource's name: a stable, non-secret handle (rate limiting, logs). */
  keyName: string;
}

/** Which callers a route admits. */
export type RouteAuth = 'public' | 'customer' | 'account' | 'reservation';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Default under /v1/: `customer` (an account or reservation key); elsewhere `public`. */
    auth?: RouteAuth;
  }
}

/** Reservation phases in which a reservation key works (it is revoked when the reservation ends). */
const LIVE_RESERVATION_PHASES = new Set(['pending', 'active']);

/**
 * The principal a presented key stands for, or undefined for any key that is not a live customer
 * key: unknown, malformed, revoked, expired, of another kind, or of a reservation that has ended.
 */
export async function principalOfKey(
  reads: KeyReads,
  plaintext: string,
  now: number,
): Promise<Principal | undefined> {
  const hash = sha256Hex(plaintext);
  const key: ApiKey | undefined = await reads.apiKey(apiKeyName(hash));
  if (!key || !sameHash(key.spec.sha256, hash) || key.spec.revoked) return undefined;
  if (key.spec.expiresAt !== undefined && Date.parse(key.spec.expiresAt) <= now) return undefined;
  const account = key.spec.account;
  if (!account) return undefined;
  if (key.spec.kind === 'account') return { kind: 'account', account, keyName: key.metadata.name };
  if (key.spec.kind !== 'reservation' || !key.spec.reservation) return undefined;
  const [namespace, name] = key.spec.reservation.split('/');
  if (namespace !== account || !name) return undefined;
  // Revocation at expiry is the reconciler's job; checking the reservation too closes the window
  // between `end_at` and the reconciler getting to it.
  const reservation = await reads.reservation(namespace, name);
  if (!reservation || !reservationKeyLive(reservation, now)) return undefined;
  return { kind: 'reservation', account, reservation: name, keyName: key.metadata.name };
}

function reservationKeyLive(reservation: Reservation, now: number): boolean {
  const phase = reservation.status?.phase ?? 'pending';
  if (!LIVE_RESERVATION_PHASES.has(phase) || reservation.metadata.deletionTimestamp) return false;
  const endAt = reservation.status?.endAt;
  return endAt === undefined || Date.parse(endAt) > now;
}

function sameHash(storedHex: string, presentedHex: string): boolean {
  const a = Buffer.from(storedHex, 'hex');
  const b = Buffer.from(presentedHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Authenticates an `Authorization` header; throws the 401 to answer. */
export async function authenticate(
  reads: KeyReads,
  header: string | undefined,
  now: number,
): Promise<Principal> {
  if (header === undefined || header === '') throw new ApiError('missing_api_key');
  const token = bearerToken(header);
  // Keys are short printable tokens; anything else is not a key (and is not hashed or looked up).
  if (token === undefined || token.length > 256) throw new ApiError('invalid_api_key');
  const principal = await principalOfKey(reads, token, now);
  if (!principal) throw new ApiError('invalid_api_key');
  return principal;
}

/** Checks that the principal may call a route admitting `auth` callers; throws the 403 otherwise. */
export function requireKind(principal: Principal, auth: RouteAuth): void {
  if (auth === 'account' && principal.kind !== 'account') throw new ApiError('account_key_required');
  if (auth === 'reservation' && principal.kind !== 'reservation')
    throw new ApiError('reservation_key_required');
}

/** The authenticated principal of a request (routes that are not public always have one). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key');
  return request.principal;
}

/**
 * An onRequest hook authenticating every matched route that is not public. With `failures`, an
 * address that failed too often is refused (429) before its key is even looked at.
 */
export function authHook(reads: KeyReads, now: () => number, failures?: AuthFailureLimiter) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.is404) return;
    // Everything under /v1/ needs a key unless its route says otherwise; the rest (/health,
    // /openapi.json, /docs) is public.
    const auth =
      request.routeOptions.config.auth ??
      (request.routeOptions.url?.startsWith('/v1/') ? 'customer' : 'public');
    if (auth === 'public') return;
    failures?.check(request.ip);
    const principal = await authenticate(reads, request.headers.authorization, now()).catch((err) => {
      if (isAuthFailure(err)) failures?.fail(request.ip);
      throw err;
    });
    requireKind(principal, auth);
    request.principal = principal;
  };
}
