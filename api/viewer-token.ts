// Sandbox-scoped viewer tokens: what a `vnc_url` carries instead of an account key. A token is an
// HMAC-SHA256-signed claim {account, sandbox id, sandbox uid, expiry}; nothing is stored. It expires
// within an hour, or at the reservation's `end_at` (a pool sandbox: its own `endAt`) if earlier, and
// every viewer request checks again that the sandbox still exists and its reservation is still active (so reservation edits and
// deletions take effect at once). The signing secret is per deployment (see docs/api.md).
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Reservation, Sandbox } from '../crds/index.ts';
import type { CachedReads } from './services/reads.ts';
import { ApiError } from './errors.ts';

/** Longest life of a viewer link (spec, Limits). */
export const VIEWER_TOKEN_TTL_MS = 60 * 60 * 1000;

interface Claims {
  /** account (namespace) */
  a: string;
  /** sandbox id */
  s: string;
  /** sandbox uid: a token never outlives the sandbox it was minted for */
  u: string;
  /** expiry, ms since the epoch */
  e: number;
  /** issued at, ms since the epoch (absent in links minted before revocation existed: 0) */
  i?: number;
}

/**
 * The Sandbox annotation that revokes its viewer links: every link issued at or before this time
 * (ms since the epoch) is refused, and the sessions open with one are closed (api/ws/live-sessions.ts).
 */
export const VIEWERS_REVOKED_AT = 'sandbay.dev/viewer-links-revoked-at';

/** When the sandbox's viewer links were last revoked (0: never). */
export function viewersRevokedAt(sandbox: Sandbox): number {
  const v = Number(sandbox.metadata.annotations?.[VIEWERS_REVOKED_AT] ?? 0);
  return Number.isFinite(v) ? v : 0;
}

export interface ViewerToken {
  token: string;
  expiresAt: Date;
  /** The path of the VNC WebSocket carrying this token. */
  vncUrl: string;
}

export interface ViewerGrant {
  sandbox: Sandbox;
  /** The sandbox's reservation; none for a pool sandbox. */
  reservation: Reservation | undefined;
  expiresAt: number;
}

/**
 * Where a sandbox's viewer links end at the latest: its reservation's `end_at`, or a pool sandbox's
 * own `endAt` (24 h after placement). Infinity when neither is known.
 */
export function viewerEndOf(sandbox: Sandbox, reservation: Reservation | undefined): string | undefined {
  return sandbox.spec.pool ? sandbox.status?.endAt : reservation?.status?.endAt;
}

export function vncPath(sandboxId: string): string {
  return `/v1/sandboxes/${sandboxId}/vnc`;
}

/** A link minted this recently is handed out again instead of a new one (it has ≥ 59 min left). */
const REUSE_MS = 60_000;

export class ViewerTokens {
  // A KeyObject, not the raw bytes: HMAC with a Buffer key costs ~10 µs per call in key setup.
  readonly #secret: KeyObject;
  /** Recently minted links by sandbox uid: GET of a sandbox (which shows a link) stays cheap. */
  readonly #recent = new Map<string, { minted: number; endAt: string | undefined; token: ViewerToken }>();

  constructor(secret: Buffer) {
    if (secret.length < 32) throw new Error('the viewer token secret must be at least 32 bytes');
    this.#secret = createSecretKey(secret);
  }

  /** Mints a link for a running sandbox of an active reservation (or a live pool sandbox: none). */
  mint(sandbox: Sandbox, reservation: Reservation | undefined, now: number): ViewerToken {
    const uid = sandbox.metadata.uid ?? '';
    const endAt = viewerEndOf(sandbox, reservation);
    const recent = this.#recent.get(uid);
    const fresh = recent !== undefined && recent.minted > viewersRevokedAt(sandbox);
    if (recent && fresh && now - recent.minted < REUSE_MS && now >= recent.minted && recent.endAt === endAt) {
      return recent.token;
    }
    const token = this.#mint(sandbox, endAt, now);
    if (this.#recent.size >= 10_000) this.#prune(now);
    this.#recent.set(uid, { minted: now, endAt, token });
    return token;
  }

  #prune(now: number): void {
    for (const [uid, r] of this.#recent)
      if (now - r.minted >= REUSE_MS || now < r.minted) this.#recent.delete(uid);
    if (this.#recent.size >= 10_000) this.#recent.clear();
  }

  #mint(sandbox: Sandbox, endAt: string | undefined, now: number): ViewerToken {
    const claims: Claims = {
      a: sandbox.metadata.namespace ?? '',
      s: sandbox.metadata.name,
      u: sandbox.metadata.uid ?? '',
      e: Math.min(now + VIEWER_TOKEN_TTL_MS, endAt ? Date.parse(endAt) : Infinity),
      i: now,
    };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const token = `${payload}.${this.#sign(payload)}`;
    return { token, expiresAt: new Date(claims.e), vncUrl: `${vncPath(claims.s)}?token=${token}` };
  }

  /**
   * Checks a token presented for `sandboxId`: signature, expiry, and that the sandbox and its
   * reservation are still live. Throws 401 `invalid_viewer_token` for any failure, with no detail
   * (409 `sandbox_paused` for a valid link to a paused sandbox).
   */
  async verify(
    reads: Pick<CachedReads, 'sandbox' | 'reservation'>,
    token: string | undefined,
    sandboxId: string,
    now: number,
  ): Promise<ViewerGrant> {
    const claims = token === undefined ? undefined : this.#claims(token);
    if (!claims || claims.s !== sandboxId || claims.e <= now) throw new ApiError('invalid_viewer_token');
    const sandbox = await reads.sandbox(claims.a, claims.s);
    if (!sandbox || sandbox.metadata.uid !== claims.u || sandbox.metadata.deletionTimestamp) {
      throw new ApiError('invalid_viewer_token');
    }
    if ((claims.i ?? 0) <= viewersRevokedAt(sandbox)) throw new ApiError('invalid_viewer_token');
    // A valid link to a paused sandbox: the live view opens again after the resume.
    if (sandbox.status?.phase === 'paused' || sandbox.spec.paused) throw new ApiError('sandbox_paused');
    if (sandbox.status?.phase !== 'running') throw new ApiError('invalid_viewer_token');
    const reservation =
      sandbox.spec.reservation === undefined
        ? undefined
        : await reads.reservation(claims.a, sandbox.spec.reservation);
    const end = viewerEndOf(sandbox, reservation);
    const endAt = end ? Date.parse(end) : Infinity;
    // A pool sandbox answers for itself (its end); a reserved one through its active reservation.
    const live = sandbox.spec.pool ? end !== undefined : reservation?.status?.phase === 'active';
    if (!live || endAt <= now) throw new ApiError('invalid_viewer_token');
    return { sandbox, reservation, expiresAt: Math.min(claims.e, endAt) };
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#secret).update(payload).digest('base64url');
  }

  #claims(token: string): Claims | undefined {
    if (token.length > 1024) return undefined;
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Claims>;
      const { a, s, u, e, i } = claims;
      if (typeof a !== 'string' || typeof s !== 'string' || typeof u !== 'string' || typeof e !== 'number') {
        return undefined;
      }
      return { a, s, u, e, ...(typeof i === 'number' && { i }) };
    } catch {
      return undefined;
    }
  }
}

export const VIEWER_SECRET_FILE = 'viewer.secret';

/**
 * The deployment's viewer-token secret, kept in `<dataDir>/viewer.secret` (created on first use,
 * mode 0600), so that viewer links survive a restart.
 */
export function loadViewerSecret(dataDir: string): Promise<Buffer> {
  return loadSecretFile(dataDir, VIEWER_SECRET_FILE);
}

/** A 32-byte random secret kept in `<dataDir>/<name>` (base64), created on first use with mode 0600. */
export async function loadSecretFile(dataDir: string, name: string): Promise<Buffer> {
  const file = join(dataDir, name);
  try {
    const secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    if (secret.length >= 32) return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(32);
  // 'wx': two processes starting at once cannot both write one; the loser reads the winner's.
  try {
    await writeFile(file, `${secret.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  }
}
