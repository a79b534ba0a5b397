// A sandbox's egress policy on its VM (crds/egress.ts): which Macs can have it (placement, and the
// API's answer at once), and putting it in force through the driver. One path for both times it
// changes: at the claim (before the sandbox is `running`, so a tenant never runs a moment under a
// wider policy than it asked for) and while it runs (a `PATCH …/network` changes the spec; the
// reconcile sees `status.egress.generation` behind `metadata.generation` and applies it).
import {
  egressRefusal,
  parseEgressPolicy,
  sameEgress,
  wantedEgress,
  type EgressPolicy,
  type Mini,
  type Sandbox,
  type SandboxStatus,
  type VM,
} from '../../crds/index.ts';
import type { OperatorContext } from '../context.ts';

export type SandboxEgress = NonNullable<SandboxStatus['egress']>;

/** The policy the sandbox asks for, parsed; undefined when it asks for its host's default. */
export function askedEgress(sb: Sandbox): { policy: EgressPolicy | undefined } | { error: string } {
  if (sb.spec.egress === undefined) return { policy: undefined };
  return parseEgressPolicy(sb.spec.egress);
}

/**
 * Why `mini` cannot give the sandbox `policy` (a sentence), or undefined when it can. A host whose
 * driver reports no support gives its VMs' own network and nothing else.
 */
export function egressRefusalOn(
  mini: Mini | undefined,
  policy: EgressPolicy | undefined,
): string | undefined {
  if (policy === undefined) return undefined;
  const name = mini?.metadata.name ?? 'this Mac';
  const support = mini?.status?.egress;
  if (!support) return `the Mac ${name} enforces no egress policy (its driver reports none)`;
  return egressRefusal(support, policy, `the Mac ${name}`);
}

/** The Macs among `names` that can give the sandbox `policy`, or the first refusal when none can. */
export function macsForEgress(
  minis: (name: string) => Mini | undefined,
  names: string[],
  policy: EgressPolicy | undefined,
): { names: string[] } | { refusal: string } {
  if (policy === undefined) return { names };
  const refusals = names.map((n) => egressRefusalOn(minis(n), policy));
  const ok = names.filter((_, i) => refusals[i] === undefined);
  if (ok.length > 0 || names.length === 0) return { names: ok };
  return { refusal: refusals[0]! };
}

export type EgressOutcome =
  | { egress: SandboxEgress | undefined }
  | { code: 'invalid_egress' | 'egress_not_allowed' | 'egress_failed'; message: string };

/**
 * Puts the sandbox's policy in force on its VM unless the status says it already is, for this
 * generation of the spec; answers the status field to write, or why it could not. `fresh`: the VM
 * was just claimed, so it has its host's default (a claim adopted after a restart is not fresh:
 * the driver's call is idempotent, so it is simply made again).
 */
export async function ensureEgress(
  ctx: OperatorContext,
  sb: Sandbox,
  vm: VM,
  fresh: boolean,
): Promise<EgressOutcome> {
  const generation = sb.metadata.generation ?? 1;
  const current = sb.status?.egress;
  if (!fresh && current?.generation === generation) return { egress: current };
  const asked = askedEgress(sb);
  if ('error' in asked) return { code: 'invalid_egress', message: asked.error };
  const mini = ctx.informers.minis.get(vm.spec.mini);
  const refusal = egressRefusalOn(mini, asked.policy);
  if (refusal !== undefined) return { code: 'egress_not_allowed', message: refusal };
  const support = mini?.status?.egress;
  if (!support) return { egress: undefined };
  const wanted = wantedEgress(asked.policy, support);
  const inForce = fresh ? { mode: support.default, allow: [] } : current;
  if (!sameEgress(inForce, wanted)) {
    try {
      const host = ctx.hosts.host(mini!);
      if (!host.setEgress) throw new Error(`the Mac ${vm.spec.mini} enforces no egress policy`);
      await host.setEgress(vm.metadata.name, wanted);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      ctx.logger.warn(
        { sandbox: sb.metadata.name, vm: vm.metadata.name, err: message },
        'egress policy not applied',
      );
      return { code: 'egress_failed', message: `the egress policy could not be applied: ${message}` };
    }
  }
  return { egress: { mode: wanted.mode, allow: wanted.allow, generation } };
}
