// Fuzzing the admin listener (fast-check): every route of the admin app as `sandbay server` composes
// it (the Kubernetes-compatible API, /admin/*, account keys, /metrics, the admin view), found in the
// app itself, on its real HTTP+HTTPS listener, with path parameters, queries, headers, bodies (JSON,
// YAML, patches) and framing broken or replaced. No 5xx nor late answer, an error is a Kubernetes
// `Status` under the Kubernetes paths and a registered `{error, message}` elsewhere, and a refused
// request changes nothing in the store. bench/fuzz.ts runs it longer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminWorld, type AdminWorld } from './support/fuzz/admin-world.ts';
import { httpTargets, missingTargets } from './support/fuzz/http-targets.ts';
import { routeName } from './support/fuzz/route-list.ts';
import { runTargets } from './support/fuzz/runner.ts';

const SEED = 20260105;
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 4);

let world: AdminWorld;

beforeAll(async () => {
  world = await startAdminWorld({ deadlineMs: 10_000 });
}, 60_000);
afterAll(async () => world?.close());

describe('fuzzing the admin listener', () => {
  it('has a fuzz target for every route the app serves', () => {
    expect(missingTargets(world.routes, world.inputOf, world)).toEqual([]);
    const names = world.routes.map(routeName);
    for (const r of [
      'GET /admin/minis',
      'PATCH /apis/sandbay.io/v1alpha1/namespaces/:namespace/:plural/:name',
      'GET /metrics',
    ])
      expect(names).toContain(r);
  });

  it('never answers 5xx or late, answers errors in its paths’ shape, and changes nothing on a refusal', async () => {
    const reports = await runTargets(httpTargets(world.routes, world.inputOf, world), {
      runsPerTarget: RUNS_PER_ROUTE,
      seed: SEED,
      stopAtFirstFailure: true,
    });
    expect(reports.flatMap((r) => r.failures)).toEqual([]);
    const count = (lo: number, hi: number) =>
      reports
        .flatMap((r) => [...r.outcomes])
        .filter(([k]) => Number(k) >= lo && Number(k) < hi)
        .reduce((n, [, c]) => n + c, 0);
    expect(count(200, 300)).toBeGreaterThan(world.routes.length / 2);
    expect(count(400, 500)).toBeGreaterThan(world.routes.length / 2);
  }, 300_000);
});
