// The open WebSockets (VNC, SSH, Cua, exec streams, forwarded ports), counted and kept honest.
// Counted: a new one past a cap (per sandbox, per account, per credential: the key or the viewer
// link) is refused with 429 `too_many_connections` before it is upgraded, so one tenant cannot hold
// every connection the server or a VM can take. Kept honest: each open session's credential is checked again every
// `recheckMs` against the informer caches (no store round trip), the same check its upgrade passed,
// and a session whose key was revoked or expired, whose reservation ended, whose viewer link was
// revoked or whose sandbox went away is closed (4003), and a live view whose link's expiry the wall
// clock passed is closed as the expiry timer would (4001). Checking from memory every second bounds how
// long a revoked credential keeps a session, without a watch of its own per session.
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.ts';

export interface WsLimits {
  perSandbox: number;
  perAccount: number;
  /** Per account key, reservation key or viewer link. */
  perCredential: number;
}

export const DEFAULT_WS_LIMITS: WsLimits = { perSandbox: 16, perAccount: 64, perCredential: 16 };

/** Close code of a session whose credential no longer holds (4000–4999: the application's own). */
export const CLOSE_REVOKED = 4003;
/** Close code of a live view whose viewer link reached its expiry. */
export const CLOSE_EXPIRED = 4001;
export const EXPIRED_REASON = 'viewer link expired';

/** What a recheck found: still admitted, no longer admitted, or the viewer link's own end reached. */
export type SessionCheck = boolean | 'expired';

export interface LiveSession {
  account: string;
  /** The sandbox's id (its name in the account's namespace). */
  sandbox: string;
  /** The credential as presented (a bearer header or a viewer token); kept only as a hash. */
  credential: string;
  /**
   * Resolves true while the credential still admits this session; false or a throw ends it (4003),
   * `expired` ends it as its link's expiry does (4001).
   */
  stillAllowed: () => Promise<SessionCheck>;
  /** Closes the session (its WebSocket), saying why. */
  end: (code: number, reason: string) => void;
}

interface Entry {
  keys: string[];
  session: LiveSession;
}

export class LiveSessions {
  readonly #limits: WsLimits | false;
  readonly #counts = new Map<string, number>();
  readonly #open = new Set<Entry>();
  readonly #timer: NodeJS.Timeout;
  #checking = false;

  constructor(limits: WsLimits | false, recheckMs = 1000) {
    this.#limits = limits;
    this.#timer = setInterval(() => void this.recheck(), recheckMs);
    this.#timer.unref();
  }

  get size(): number {
    return this.#open.size;
  }

  /**
   * Counts `session` in, or throws 429 `too_many_connections` naming the cap it would pass. Checked
   * and counted in one synchronous step: concurrent upgrades cannot both take the last place.
   * Returns what to call when the session ends.
   */
  admit(session: LiveSession): () => void {
    const credential = createHash('sha256').update(session.credential).digest('base64url');
    const caps: [key: string, limit: number, what: string][] = this.#limits
      ? [
          [`s:${session.account}/${session.sandbox}`, this.#limits.perSandbox, 'this sandbox'],
          [`a:${session.account}`, this.#limits.perAccount, 'this account'],
          [`c:${credential}`, this.#limits.perCredential, 'this key or viewer link'],
        ]
      : [];
    for (const [key, limit, what] of caps) {
      if ((this.#counts.get(key) ?? 0) >= limit) {
        throw new ApiError(
          'too_many_connections',
          `At most ${limit} open WebSocket connections (VNC, SSH, Cua, exec streams, forwarded ports) for ${what}; close one first.`,
        );
      }
    }
    const entry: Entry = { keys: caps.map(([key]) => key), session: { ...session, credential } };
    for (const key of entry.keys) this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#open.add(entry);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open.delete(entry);
      for (const key of entry.keys) {
        const n = (this.#counts.get(key) ?? 1) - 1;
        if (n <= 0) this.#counts.delete(key);
        else this.#counts.set(key, n);
      }
    };
  }

  /** Checks every open session's credential once; ends those it no longer admits. */
  async recheck(): Promise<void> {
    if (this.#checking) return; // a slow pass is not stacked on
    this.#checking = true;
    try {
      await Promise.all(
        [...this.#open].map(async ({ session }) => {
          const check = await session.stillAllowed().catch(() => false);
          if (check === 'expired') session.end(CLOSE_EXPIRED, EXPIRED_REASON);
          else if (!check) session.end(CLOSE_REVOKED, 'credentials revoked or sandbox gone');
        }),
      );
    } finally {
      this.#checking = false;
    }
  }

  close(): void {
    clearInterval(this.#timer);
  }
}
