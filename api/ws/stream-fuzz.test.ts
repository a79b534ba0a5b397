// Fuzzing the streams the proxies read (fast-check, test/support/fuzz/stream-targets.ts): the RFB
// handshake from a viewer and from a hostile VNC server in the VM, the viewer's input as the
// collector reads it, and the SSH relay over real loopback sockets. Fixed seed and case counts;
// bench/fuzz.ts runs the same targets longer.
import { describe, expect, it } from 'vitest';
import { runTargets, type TargetReport } from '../../test/support/fuzz/runner.ts';
import { streamTargets } from '../../test/support/fuzz/stream-targets.ts';

const SEED = 20260105;
/** Per target: the parsers are in-process and fast; the relay opens real sockets per case. */
const RUNS = { parser: 300, relay: 25 };

describe('fuzzing the RFB and SSH streams', () => {
  it('every reader settles once its source ends, fails only with RfbError, reads the same however cut, and the relay passes every byte', async () => {
    const targets = streamTargets();
    const reports: TargetReport[] = [];
    for (const t of targets)
      reports.push(
        ...(await runTargets([t], {
          runsPerTarget: t.name.startsWith('ssh relay') ? RUNS.relay : RUNS.parser,
          seed: SEED,
          stopAtFirstFailure: true,
        })),
      );
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    const outcomes = (name: string) => reports.find((r) => r.name.startsWith(name))!.outcomes;
    // The cases reached both ends of each handshake: completed ones and refused ones.
    for (const name of ['rfb viewer handshake', 'rfb vm login']) {
      expect(outcomes(name).get('ok')).toBeGreaterThan(0);
      expect(outcomes(name).get('refused')).toBeGreaterThan(0);
    }
    expect(outcomes('ssh relay').get('relayed')).toBe(RUNS.relay);
  }, 120_000);
});
