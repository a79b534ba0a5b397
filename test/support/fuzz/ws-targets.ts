// Fuzz targets for the WebSocket handshakes of the customer listener (`/v1/sandboxes/{id}/vnc` and
// `/ssh`, api/ws/upgrade.ts), sent byte for byte: the upgrade headers (Upgrade, Connection,
// Sec-WebSocket-Key, -Version, -Protocol), the method, the viewer token and the key, each valid or
// broken. Whatever arrives, the answer comes within the deadline, is a 101 or a registered JSON
// error, and a refused handshake changes nothing. On the sim driver a handshake that passes every
// check meets a VM with no VNC server or sshd: 502 `guest_unreachable`, the world's answer, not the
// request's. What flows after a 101 is fuzzed in stream-targets.ts (the RFB readers, the relay).
import fc from 'fast-check';
import { exchange, requestBytes } from './http-exchange.ts';
import type { CaseOutcome, FuzzCase, FuzzTarget } from './runner.ts';
import { answerProblem, refused } from './verdict.ts';
import { diff, outcomeOf, type HttpWorld } from './http-targets.ts';

const VALID_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

/** Each header: absent, valid, or one of the values a broken client sends. */
const HEADERS: [string, string[]][] = [
  ['Upgrade', ['websocket', 'WebSocket', 'h2c', '', 'websocket, h2c']],
  ['Connection', ['Upgrade', 'keep-alive, Upgrade', 'close', '']],
  [
    'Sec-WebSocket-Key',
    [VALID_KEY, '', 'short', 'x'.repeat(24), `${VALID_KEY}=`, '%%%%%%%%%%%%%%%%%%%%%%=='],
  ],
  ['Sec-WebSocket-Version', ['13', '8', '12', '', 'thirteen', '13, 8']],
  ['Sec-WebSocket-Protocol', ['binary', 'base64', 'binary, base64', '', ',,,']],
  [
    'Sec-WebSocket-Extensions',
    ['permessage-deflate', 'x-webkit-deflate-frame', 'permessage-deflate; server_max_window_bits=0'],
  ],
  ['Origin', ['http://127.0.0.1', 'http://evil.example', 'null']],
];

interface Plan {
  kind: 'vnc' | 'ssh';
  method: string;
  sandbox: number;
  token: 'valid' | 'none' | 'junk' | 'other';
  credential: number;
  headers: (number | null)[];
  /** Bytes sent after the head, as a client that does not wait for the 101 would. */
  early: Uint8Array;
}

const PLAN: fc.Arbitrary<Plan> = fc.record({
  kind: fc.constantFrom('vnc' as const, 'ssh' as const),
  method: fc.constantFrom('GET', 'GET', 'GET', 'POST', 'HEAD', 'OPTIONS'),
  sandbox: fc.nat(),
  token: fc.constantFrom(
    'valid' as const,
    'valid' as const,
    'none' as const,
    'junk' as const,
    'other' as const,
  ),
  credential: fc.nat(),
  // Mostly valid (index 0), so that cases reach past the handshake's own checks.
  headers: fc.tuple(
    ...HEADERS.map(([, values]) =>
      fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.constant(null), fc.nat(values.length - 1)),
    ),
  ),
  early: fc.uint8Array({ maxLength: 64 }),
});

export interface WsWorld extends HttpWorld {
  /** A viewer token for the sandbox (minted now), and the sandbox ids the world holds. */
  viewerToken(sandbox: string): Promise<string>;
}

async function runCase(plan: Plan, world: WsWorld, ids: string[]): Promise<CaseOutcome> {
  const sandbox = ids[plan.sandbox % ids.length]!;
  const token =
    plan.token === 'valid'
      ? await world.viewerToken(ids[0]!)
      : plan.token === 'other'
        ? await world.viewerToken(ids[1]!)
        : plan.token === 'junk'
          ? 'vt_not-a-token'
          : undefined;
  const path = `/v1/sandboxes/${sandbox}/${plan.kind}${plan.kind === 'vnc' && token ? `?token=${encodeURIComponent(token)}` : ''}`;
  const creds = world.credentials();
  const headers: [string, string][] = [...creds[plan.credential % creds.length]!];
  plan.headers.forEach((pick, i) => {
    if (pick !== null) headers.push([HEADERS[i]![0], HEADERS[i]![1][pick]!]);
  });
  const bytes = Buffer.concat([
    requestBytes({ method: plan.method, path, headers }),
    Buffer.from(plan.early),
  ]);
  const before = await world.state({ keyed: false });
  const e = await exchange(world.port, bytes, { deadlineMs: world.deadlineMs, method: plan.method });
  const problems: string[] = [];
  const problem = answerProblem(e, plan.method, 'sandbay');
  const route = `${plan.method} /v1/sandboxes/:sandboxID/${plan.kind}`;
  if (problem && !world.worldFailure?.(route, e)) problems.push(problem);
  if (refused(e)) {
    const changed = diff(before, await world.state({ keyed: false }));
    if (changed.length) problems.push(`refused (${outcomeOf(e)}) but changed ${changed.join(', ')}`);
  }
  const summary =
    e.kind === 'answer' ? ` → ${e.status} ${e.body.subarray(0, 200).toString('utf8')}` : ` → ${e.kind}`;
  return {
    ms: e.ms,
    outcome: outcomeOf(e),
    problems,
    sent: JSON.stringify(bytes.toString('latin1')) + summary,
  };
}

/** One target per WebSocket endpoint kind is one too few to tell them apart in a table: one for both. */
export function wsTargets(world: WsWorld, sandboxIds: () => string[]): FuzzTarget[] {
  return [
    {
      name: 'websocket handshake (/vnc, /ssh)',
      cases: PLAN.map((plan): FuzzCase => ({
        run: () => runCase(plan, world, sandboxIds()),
        [fc.toStringMethod]: () => `ws ${JSON.stringify({ ...plan, early: plan.early.length })}`,
      })),
    },
  ];
}
