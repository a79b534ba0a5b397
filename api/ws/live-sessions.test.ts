// LiveSessions on its own: the caps, and what a recheck does with each answer of a credential check.
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { CLOSE_EXPIRED, CLOSE_REVOKED, LiveSessions, type SessionCheck } from './live-sessions.ts';

let sessions: LiveSessions | undefined;
afterEach(() => sessions?.close());

/** A session whose check answers `check`, recording how it was ended. */
function session(check: () => Promise<SessionCheck>, credential = 'key-1', sandbox = 'sb-1') {
  const ended: [number, string][] = [];
  return {
    ended,
    session: {
      account: 'acme',
      sandbox,
      credential,
      stillAllowed: check,
      end: (code: number, reason: string) => ended.push([code, reason]),
    },
  };
}

describe('LiveSessions', () => {
  it('ends a session whose credential no longer holds with 4003, an expired link with 4001', async () => {
    // A recheck interval longer than the test: only the explicit rechecks below run.
    sessions = new LiveSessions(false, 3_600_000);
    const allowed = session(async () => true);
    const revoked = session(async () => false);
    const failing = session(() => Promise.reject(new Error('sandbox gone')));
    const expired = session(async () => 'expired');
    for (const s of [allowed, revoked, failing, expired]) sessions.admit(s.session);
    await sessions.recheck();
    expect(allowed.ended).toEqual([]);
    expect(revoked.ended.map(([code]) => code)).toEqual([CLOSE_REVOKED]);
    expect(failing.ended.map(([code]) => code)).toEqual([CLOSE_REVOKED]);
    expect(expired.ended).toEqual([[CLOSE_EXPIRED, 'viewer link expired']]);
  });

  it('refuses a session past a cap with 429 too_many_connections, and counts a released one out', () => {
    sessions = new LiveSessions({ perSandbox: 2, perAccount: 10, perCredential: 10 }, 3_600_000);
    const release = sessions.admit(session(async () => true, 'a').session);
    sessions.admit(session(async () => true, 'b').session);
    const third = () => sessions!.admit(session(async () => true, 'c').session);
    expect(third).toThrow(ApiError);
    expect(third).toThrow(
      /At most 2 open WebSocket connections \(VNC, SSH, Cua, exec streams, forwarded ports\) for this sandbox/,
    );
    release();
    release(); // twice counts out once
    expect(sessions.size).toBe(1);
    expect(() => third()).not.toThrow();
    expect(third).toThrow(/this sandbox/);
  });
});
