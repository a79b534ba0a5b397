// A sandbox's egress policy as the API takes it (docs/api.md, Egress): parsed and checked against
// the Macs that would enforce it before anything is written (a rule that does not parse, a mode the
// operator does not allow: a JSON error, nothing changed), then written into the Sandbox spec. The
// sandbox reconciler puts it in force (operator/sandbox/egress.ts); a change waits for that.
import {
  parseEgressPolicy,
  sameEgress,
  type EgressMode,
  type EgressPolicy,
  type EgressPolicyInput,
  type Mini,
  type Sandbox,
} from '../../crds/index.ts';
import { egressRefusalOn, macsForEgress } from '../../operator/sandbox/egress.ts';
import { ApiError, isErrorCode } from '../errors.ts';
import type { Network } from '../schemas/network.ts';
import type { ApiContext } from './context.ts';
import { requireRunning } from './guests.ts';
import { waitForCached } from './wait.ts';

/** How long a PATCH waits for the reconciler to put the policy in force. */
export const EGRESS_DEADLINE_MS = 60_000;

/** The policy, normalized; 400 `invalid_egress` when a rule does not parse. */
export function parseEgressOrRefuse(input: EgressPolicyInput): EgressPolicy {
  const parsed = parseEgressPolicy(input);
  if ('error' in parsed) throw new ApiError('invalid_egress', parsed.error);
  return parsed.policy;
}

/** 422 `egress_not_allowed` when none of these Macs enforces the policy (the reconciler places on those that do). */
export function refuseEgressAtOnce(
  ctx: ApiContext,
  miniNames: string[],
  policy: EgressPolicy | undefined,
): void {
  const minis = new Map(ctx.reads.fleetOf(miniNames).minis.map((m) => [m.metadata.name, m]));
  const macs = macsForEgress((n) => minis.get(n), miniNames, policy);
  if ('refusal' in macs) throw new ApiError('egress_not_allowed', capitalized(macs.refusal));
}

export async function networkOf(ctx: ApiContext, sandbox: Sandbox): Promise<Network> {
  const support = (await miniOf(ctx, sandbox))?.status?.egress;
  return { egress: egressWire(sandbox), modes: support?.modes ?? [], domains: support?.domains ?? false };
}

/**
 * Puts a new egress policy on a running sandbox: checked, written into its spec, and answered once
 * the reconciler reports it in force (or why not).
 */
export async function setSandboxEgress(
  ctx: ApiContext,
  sandbox: Sandbox,
  input: EgressPolicyInput,
): Promise<Network> {
  const policy = parseEgressOrRefuse(input);
  requireRunning(sandbox); // a paused one: 409 sandbox_paused, like every call on its VM
  const mini = await miniOf(ctx, sandbox);
  const refusal = egressRefusalOn(mini, policy);
  if (refusal !== undefined) throw new ApiError('egress_not_allowed', capitalized(refusal));
  const patched = await ctx.store.patch<Sandbox>(
    { kind: 'Sandbox', namespace: sandbox.metadata.namespace!, name: sandbox.metadata.name },
    { spec: { egress: policy } },
  );
  const generation = patched.metadata.generation ?? 1;
  const outcome = await waitForCached<Sandbox, { ok: Sandbox } | { err: ApiError }>({
    reads: ctx.reads,
    clock: ctx.clock,
    kind: 'Sandbox',
    written: patched,
    decide: (obj) => {
      if (!obj || obj.metadata.uid !== sandbox.metadata.uid)
        return { result: { err: new ApiError('sandbox_not_found') } };
      const s = obj.status;
      if (s?.egress && s.egress.generation >= generation && sameEgress(s.egress, policy))
        return { result: { ok: obj } };
      const failure = s?.egressFailure;
      if (failure && failure.generation >= generation) {
        const code = isErrorCode(failure.reason) ? failure.reason : 'egress_failed';
        return { result: { err: new ApiError(code, capitalized(failure.message)) } };
      }
      return undefined;
    },
    timeoutMs: EGRESS_DEADLINE_MS,
    onTimeout: () => ({
      err: new ApiError('operation_timeout', 'The egress policy was not in force before its deadline.'),
    }),
    signal: ctx.shutdown,
  });
  if ('err' in outcome) throw outcome.err;
  return networkOf(ctx, outcome.ok);
}

/** The egress policy in force (status), without the generation it was applied for. */
export function egressWire(sandbox: Sandbox): { mode: EgressMode; allow: string[] } | null {
  const e = sandbox.status?.egress;
  return e ? { mode: e.mode, allow: e.allow ?? [] } : null;
}

async function miniOf(ctx: ApiContext, sandbox: Sandbox): Promise<Mini | undefined> {
  const name = sandbox.status?.mini;
  return name === undefined ? undefined : ctx.reads.mini(name);
}

function capitalized(sentence: string): string {
  return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
}
