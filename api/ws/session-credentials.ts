// What an open VNC, SSH or Cua WebSocket was admitted with, as a check that can be run again: the SSH
// and Cua WebSockets' bearer key (account or reservation key) must still authenticate and still reach the
// sandbox; the VNC WebSocket's viewer link must still verify (sandbox running, reservation active,
// link not revoked). Both read the informer caches only.
import type { IncomingMessage } from 'node:http';
import { authenticate } from '../auth.ts';
import type { ApiContext } from '../services/context.ts';
import { findSandbox } from '../services/sandboxes.ts';
import type { ProxyTarget } from './connect.ts';
import type { SessionCheck } from './live-sessions.ts';

export interface SessionCredential {
  /** The credential as presented (hashed by LiveSessions, never logged). */
  credential: string;
  stillAllowed: () => Promise<SessionCheck>;
}

export function sessionCredential(
  ctx: ApiContext,
  kind: 'vnc' | 'ssh' | 'cua',
  request: IncomingMessage,
  url: URL,
  target: Pick<ProxyTarget, 'sandbox' | 'closeAt'>,
): SessionCredential {
  const sandboxId = target.sandbox.metadata.name;
  if (kind !== 'vnc') {
    const header = request.headers.authorization ?? '';
    return {
      credential: header,
      stillAllowed: async () => {
        const principal = await authenticate(ctx.reads, header, ctx.clock.now());
        return (await findSandbox(ctx, principal, sandboxId)).metadata.uid === target.sandbox.metadata.uid;
      },
    };
  }
  const token = url.searchParams.get('token') ?? '';
  return {
    credential: token,
    stillAllowed: async () => {
      // The link's expiry ends the session with its own code (4001), not as a revocation. The timer
      // in upgrade.ts runs on the monotonic clock and the expiry is wall-clock time: this check
      // catches an expiry the wall clock reached first (a clock step) within a recheck.
      const now = ctx.clock.now();
      if (target.closeAt !== undefined && now >= target.closeAt) return 'expired';
      await ctx.viewerTokens.verify(ctx.reads, token, sandboxId, now);
      return true;
    },
  };
}
