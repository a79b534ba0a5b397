// Bearer authentication of the customer API. Account keys act for their account across
// reservations; reservation keys act for their account within one reservation and die with it.
// Keys are found by the name derived from their SHA-256 (an index) and then compared by the full
// hash in constant time; the plaintext is never stored nor logged. Admin keys are for the admin
// listener only: here they are unknown keys (401), like any other key of the wrong kind.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { parseCookie } from 'cookie';
import type { ApiKey, Reservation } from '../crds/index.ts';
import { bearerToken } from './admin-auth.ts';
import { isAuthFailure, type AuthFailureLimiter } from './auth-failures.ts';
import { ApiError } from './errors.ts';
import { CSRF_HEADER, SESSION_COOKIE, type Sessions } from './dashboard/sessions.ts';
import { apiKeyName, sameSecret, sha256Hex } from './keys.ts';
import type { CachedReads } from './services/reads.ts';
import { endAtMs } from './services/reservation-end.ts';

/** The reads authentication needs (the API's cached reads). */
export type KeyReads = Pick<CachedReads, 'apiKey' | 'reservation'>;
/** The synchronous cache hits the common case is decided from (see `cachedPrincipalOfHeader`). */
export type KeyHits = Pick<CachedReads, 'hit'>;

/** Who a request acts for. */
export interface Principal {
  kind: 'account' | 'reservation' | 'sandbox';
  /** The account's name, which is also the namespace of its resources. */
  account: string;
  /** Reservation keys: the reservation's name (in the account's namespace). */
  reservation?: string;
  /** Sandbox keys (an evaluation attempt's agent): the one sandbox it acts on. */
  sandbox?: string;
  /** The ApiKey resource's name: a stable, non-secret handle (rate limiting, logs). */
  keyName: string;
  /** Set when the request came with the dashboard's session cookie instead of a Bearer key. */
  session?: { cookie: string; expiresAt: number };
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
  const principal = keyPrincipal(await reads.apiKey(apiKeyName(hash)), hash, now);
  if (principal?.kind !== 'reservation') return principal;
  // Revocation at expiry is the reconciler's job; checking the reservation too closes the window
  // between `end_at` and the reconciler getting to it.
  const reservation = await reads.reservation(principal.account, principal.reservation!);
  return reservation && reservationKeyLive(reservation, now) ? principal : undefined;
}

/** A live key as the cache holds it: the objects its principal was decided from. */
interface CachedKey {
  principal: Principal;
  key: ApiKey;
  /** A reservation key's reservation. */
  reservation: Reservation | undefined;
}

/**
 * `principalOfKey` decided from cache hits alone, without a promise: the key when it (and a
 * reservation key's reservation) is cached and live; undefined in every other case, which
 * `principalOfKey` then decides (a miss reads the store; a refusal is refused there again).
 */
function cachedKeyOf(reads: KeyHits, plaintext: string, now: number): CachedKey | undefined {
  const hash = sha256Hex(plaintext);
  const key = reads.hit<ApiKey>('ApiKey', apiKeyName(hash));
  const principal = keyPrincipal(key, hash, now);
  if (!principal) return undefined;
  if (principal.kind !== 'reservation') return { principal, key: key!, reservation: undefined };
  const reservation = reads.hit<Reservation>('Reservation', principal.reservation!, principal.account);
  return reservation && reservationKeyLive(reservation, now)
    ? { principal, key: key!, reservation }
    : undefined;
}

/**
 * The key a connection presented last, and the cached objects it was decided from. A client sends
 * the same key with every request on its connection; while the cache still holds those very
 * objects (any change to a key or reservation replaces its object), the key stands for the same
 * principal and is not hashed and looked up again. The header is compared in constant time, so a
 * proxy that carries several clients over one pooled connection gives none of them a clock on
 * another's key; it lives only as long as the connection that carries it on every request.
 */
interface ConnectionKey extends CachedKey {
  header: string;
}

const lastKeyOf = new WeakMap<object, ConnectionKey>();

function stillLive(reads: KeyHits, last: CachedKey, now: number): boolean {
  const { principal, key, reservation } = last;
  if (reads.hit<ApiKey>('ApiKey', principal.keyName) !== key || keyFacts(key).expiresAtMs <= now)
    return false;
  if (!reservation) return true;
  return (
    reads.hit<Reservation>('Reservation', principal.reservation!, principal.account) === reservation &&
    reservationKeyLive(reservation, now)
  );
}

/** The checks of the key itself: its hash, revocation, expiry, kind and owner. */
function keyPrincipal(key: ApiKey | undefined, hash: string, now: number): Principal | undefined {
  if (!key) return undefined;
  const known = keyFacts(key);
  // Hex out of `crypto.hash`, then bytes: its 'buffer' output costs several times more (measured).
  const digest = Buffer.from(hash, 'hex');
  if (known.sha256.length !== digest.length || !timingSafeEqual(known.sha256, digest)) return undefined;
  return known.expiresAtMs <= now ? undefined : known.principal;
}

/** What a key resource says, worked out once per cached object rather than per request. */
interface KeyFacts {
  /** The stored hash's bytes (empty when it is not hex, which no presented key then matches). */
  sha256: Buffer;
  /** Its principal, shared by the key's requests (frozen); undefined for a key that admits nothing. */
  principal: Principal | undefined;
  expiresAtMs: number;
}

// Keyed by the cached object itself: an update to the key replaces it in the cache (and drops this).
const keyFactsOf = new WeakMap<ApiKey, KeyFacts>();

function keyFacts(key: ApiKey): KeyFacts {
  let facts = keyFactsOf.get(key);
  if (!facts) {
    const expiresAt = key.spec.expiresAt;
    facts = {
      sha256: Buffer.from(key.spec.sha256, 'hex'),
      principal: key.spec.revoked ? undefined : principalOfSpec(key),
      expiresAtMs: expiresAt === undefined ? Infinity : Date.parse(expiresAt),
    };
    // An unparseable expiry admits nothing (Date.parse gives NaN, and `NaN <= now` is false).
    if (Number.isNaN(facts.expiresAtMs)) facts.expiresAtMs = -Infinity;
    keyFactsOf.set(key, facts);
  }
  return facts;
}

function principalOfSpec(key: ApiKey): Principal | undefined {
  const account = key.spec.account;
  if (!account) return undefined;
  if (key.spec.kind === 'account')
    return Object.freeze({ kind: 'account', account, keyName: key.metadata.name });
  if (key.spec.kind === 'sandbox') {
    const [namespace, sandbox] = (key.spec.sandbox ?? '').split('/');
    if (namespace !== account || !sandbox) return undefined;
    return Object.freeze({ kind: 'sandbox', account, sandbox, keyName: key.metadata.name });
  }
  if (key.spec.kind !== 'reservation' || !key.spec.reservation) return undefined;
  const [namespace, name] = key.spec.reservation.split('/');
  if (namespace !== account || !name) return undefined;
  return Object.freeze({ kind: 'reservation', account, reservation: name, keyName: key.metadata.name });
}

function reservationKeyLive(reservation: Reservation, now: number): boolean {
  const phase = reservation.status?.phase ?? 'pending';
  if (!LIVE_RESERVATION_PHASES.has(phase) || reservation.metadata.deletionTimestamp) return false;
  return endAtMs(reservation) > now;
}

/**
 * The key an `Authorization: Bearer` header carries, if it can be one: keys are short printable
 * tokens, anything else is not a key (and is not hashed or looked up).
 */
function keyToken(header: string | undefined): string | undefined {
  const token = bearerToken(header);
  return token !== undefined && token.length <= 256 ? token : undefined;
}

/**
 * The principal of an `Authorization: Bearer` header decided from cache hits alone (see
 * `cachedKeyOf`); undefined for anything else, which `authenticate` then decides. With
 * the request's `connection` (its socket), the connection's last key is reused while live.
 */
export function cachedPrincipalOfHeader(
  reads: KeyHits,
  header: string | undefined,
  now: number,
  connection?: object,
): Principal | undefined {
  if (header === undefined) return undefined;
  const last = connection && lastKeyOf.get(connection);
  if (last && sameSecret(last.header, header) && stillLive(reads, last, now)) return last.principal;
  const token = keyToken(header);
  const cached = token === undefined ? undefined : cachedKeyOf(reads, token, now);
  if (cached && connection) lastKeyOf.set(connection, { ...cached, header });
  return cached?.principal;
}

/** Authenticates an `Authorization` header; throws the 401 to answer. */
export async function authenticate(
  reads: KeyReads,
  header: string | undefined,
  now: number,
): Promise<Principal> {
  if (header === undefined || header === '') throw new ApiError('missing_api_key');
  const token = keyToken(header);
  if (token === undefined) throw new ApiError('invalid_api_key');
  const principal = await principalOfKey(reads, token, now);
  if (!principal) throw new ApiError('invalid_api_key');
  return principal;
}

/**
 * What an evaluation agent's sandbox key may call: the computer-use routes of its own sandbox (the
 * `sandboxID` parameter is checked against it here, and again where the sandbox is found). Not its
 * deletion, snapshots, SSH, setup, grading or collection: those would change what is graded or
 * escape the recording of its trajectory.
 */
const SANDBOX_KEY_ROUTES = new Set(
  [
    '',
    '/act',
    '/display/info',
    '/display/windows',
    '/exec',
    '/exec/stream',
    '/exec_ax',
    '/clipboard',
    '/files',
    '/files/archive',
    '/keyboard/hotkey',
    '/keyboard/press',
    '/keyboard/type',
    '/mouse/click',
    '/mouse/drag',
    '/mouse/move',
    '/mouse/position',
    '/mouse/scroll',
    '/screenshot',
    '/screenshot/compressed',
    '/screenshot/region',
    '/cua/cmd',
    '/cua/commands',
    '/cua/ws',
    '/done',
  ].map((suffix) => `/v1/sandboxes/:sandboxID${suffix}`),
);

/** Whether a sandbox key may make this request (its route, its method, its sandbox). */
export function sandboxKeyAdmits(principal: Principal, request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  if (url === undefined || !SANDBOX_KEY_ROUTES.has(url)) return false;
  if (url === '/v1/sandboxes/:sandboxID' && request.method !== 'GET' && request.method !== 'HEAD')
    return false;
  return (request.params as { sandboxID?: string } | undefined)?.sandboxID === principal.sandbox;
}

/**
 * Checks that the principal may call a route admitting `auth` callers (and, for a sandbox key,
 * this request); throws the 403 otherwise.
 */
export function requireKind(principal: Principal, auth: RouteAuth, request?: FastifyRequest): void {
  if (
    principal.kind === 'sandbox' &&
    (auth !== 'customer' || !request || !sandboxKeyAdmits(principal, request))
  )
    throw new ApiError('sandbox_key_not_allowed');
  if (auth === 'account' && principal.kind !== 'account') throw new ApiError('account_key_required');
  if (auth === 'reservation' && principal.kind !== 'reservation')
    throw new ApiError('reservation_key_required');
}

/** The authenticated principal of a request (routes that are not public always have one). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('missing_api_key');
  return request.principal;
}

/** The dashboard session cookie of a request, if it sent one. */
export function sessionCookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookie(header)[SESSION_COOKIE];
}

/**
 * Authenticates a dashboard session cookie: a valid signature, not expired, naming an account key
 * that is still live. Unsafe methods must also carry the session's CSRF token. Throws the 401/403.
 */
export async function authenticateSession(
  reads: KeyReads,
  sessions: Sessions,
  request: FastifyRequest,
  cookie: string,
  now: number,
): Promise<Principal> {
  const claims = sessions.verify(cookie, now);
  const key = claims && (await reads.apiKey(claims.keyName));
  if (!claims || !key || key.spec.kind !== 'account' || key.spec.revoked || !key.spec.account)
    throw new ApiError('invalid_api_key');
  if (key.spec.expiresAt !== undefined && Date.parse(key.spec.expiresAt) <= now)
    throw new ApiError('invalid_api_key');
  if (!SAFE_METHODS.has(request.method) && !sessions.csrfValid(cookie, request.headers[CSRF_HEADER]))
    throw new ApiError('csrf_token_invalid');
  return {
    kind: 'account',
    account: key.spec.account,
    keyName: key.metadata.name,
    session: { cookie, expiresAt: claims.expiresAt },
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The onRequest hook authenticating the routes that admit `auth` callers (attached to each route
 * that is not public, see `routeAuthOf`). With `failures`, an address that failed too often is
 * refused (429) before its key is even looked at. With `sessions`, a request without an
 * `Authorization` header may authenticate with the dashboard's session cookie.
 * A callback hook: a Bearer key the cache holds is decided at once, without a promise (the common
 * case, measured in bench/api.ts); anything else goes the async way.
 */
export function authHook(
  auth: Exclude<RouteAuth, 'public'>,
  reads: KeyReads & KeyHits,
  now: () => number,
  failures?: AuthFailureLimiter,
  sessions?: Sessions,
): onRequestHookHandler {
  const slow = async (request: FastifyRequest): Promise<void> => {
    const cookie = sessions && !request.headers.authorization ? sessionCookieOf(request) : undefined;
    const principal = await (
      cookie !== undefined
        ? authenticateSession(reads, sessions!, request, cookie, now())
        : authenticate(reads, request.headers.authorization, now())
    ).catch((err) => {
      if (isAuthFailure(err)) failures?.fail(request.ip);
      throw err;
    });
    requireKind(principal, auth, request);
    request.principal = principal;
  };
  return (request, _reply, done) => {
    try {
      failures?.check(request.ip);
      const cached = cachedPrincipalOfHeader(reads, request.headers.authorization, now(), request.raw.socket);
      if (cached) {
        requireKind(cached, auth, request);
        request.principal = cached;
        return done();
      }
    } catch (err) {
      return done(err as Error);
    }
    slow(request).then(() => done(), done);
  };
}

/** Who a route admits: its `config.auth`; by default a customer key under /v1/, else anyone. */
export function routeAuthOf(url: string, config: { auth?: RouteAuth } | undefined): RouteAuth {
  return config?.auth ?? (url.startsWith('/v1/') ? 'customer' : 'public');
}
