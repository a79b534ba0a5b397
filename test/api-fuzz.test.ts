// Fuzzing the customer listener (fast-check): every route the app serves, found in the app itself
// (Fastify's route tree), with path parameters, query strings, headers, bodies and body framing drawn
// from the route's own schemas, broken or replaced with junk. Whatever arrives, the answer is never a
// 5xx nor late, an error is JSON `{error, message}` with a registered code, and a refused request
// changes nothing (no resource, no guest state). Sim fleet under the real operator, a real listener.
// bench/fuzz.ts runs the same targets longer; docs/test-reliability.md says what is covered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpTargets, missingTargets } from './support/fuzz/http-targets.ts';
import { routeName } from './support/fuzz/route-list.ts';
import { runTargets } from './support/fuzz/runner.ts';
import { startCustomerWorld, type CustomerWorld } from './support/fuzz/customer-world.ts';
import { wsTargets } from './support/fuzz/ws-targets.ts';

const SEED = 20260105;
/** Kept small so the file runs in about a minute on two busy cores; bench/fuzz.ts runs hundreds. */
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 2);
const WS_HANDSHAKES = 60;
/**
 * UNFINISHED: targets with a finding not fixed yet (docs/isolation.md, "What the fuzzer found"),
 * left out here so the suite stays green; `node bench/fuzz.ts --surface customer --only /grade
 * --runs 2 --seed 20260105` reproduces it.
 */
const OPEN_FINDINGS: string[] = [];

let world: CustomerWorld;

beforeAll(async () => {
  world = await startCustomerWorld({ deadlineMs: 10_000 });
}, 120_000);
afterAll(async () => world?.close());

describe('fuzzing the customer listener', () => {
  it('has a fuzz target for every route the app serves', () => {
    expect(missingTargets(world.routes, world.inputOf, world)).toEqual([]);
    const names = world.routes.map(routeName);
    // The tree holds the API, the pages and the docs (a broken parse would find a few routes only).
    for (const r of [
      'POST /v1/sandboxes',
      'GET /v1/sandboxes/:sandboxID/vnc',
      'POST /v1/session',
      'GET /dashboard/*',
      'GET /view/:sandboxID',
    ])
      expect(names).toContain(r);
  });

  it('never answers 5xx or late, answers errors as registered JSON, and changes nothing on a refusal', async () => {
    const targets = httpTargets(world.routes, world.inputOf, world).filter(
      (t) => !OPEN_FINDINGS.includes(t.name),
    );
    const reports = await runTargets(targets, {
      runsPerTarget: RUNS_PER_ROUTE,
      seed: SEED,
      stopAtFirstFailure: true,
    });
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    // The fuzzer reached the handlers too, not only the validator.
    const count = (lo: number, hi: number) =>
      reports
        .flatMap((r) => [...r.outcomes])
        .filter(([k]) => Number(k) >= lo && Number(k) < hi)
        .reduce((n, [, c]) => n + c, 0);
    expect(count(200, 300)).toBeGreaterThan(world.routes.length / 2);
    expect(count(400, 500)).toBeGreaterThan(world.routes.length);
  }, 300_000);

  it('answers every WebSocket handshake, broken or not, with a 101 or a registered JSON error in time, and a refused one changes nothing', async () => {
    const reports = await runTargets(wsTargets(world, world.sandboxIds), {
      runsPerTarget: WS_HANDSHAKES,
      seed: SEED,
      stopAtFirstFailure: true,
    });
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    // Handshakes refused by each check, and ones that passed them all (the sim's VM then has no server).
    const outcomes = reports[0]!.outcomes;
    for (const status of ['400', '401', '404', '502'])
      expect(outcomes.get(status), status).toBeGreaterThan(0);
  }, 120_000);
});
