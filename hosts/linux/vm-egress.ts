// A running VM's egress policy as the host keeps it: its rules (egress.ts), its DNS answerer
// (egress-dns.ts) and its record, changed together under the VM's lock (host.ts).
import type { EgressPolicy } from '../../crds/egress.ts';
import { applyVmEgress } from './egress.ts';
import { VmDnsAnswerer } from './egress-dns.ts';
import { saveRecord } from './vm-record.ts';
import type { VmEntry } from './vm-entry.ts';
import type { VmLink } from './vm-network.ts';

export interface VmEgressContext {
  link: VmLink;
  /** The resolvers the DNS answerer asks. */
  upstreams: string[];
  log: (msg: string) => void;
}

/**
 * Puts `policy` in force on a running VM. The DNS answerer learns it first: a name the new policy
 * refuses is never answered again, so no address of one joins the new rules.
 */
export async function putVmEgress(ctx: VmEgressContext, e: VmEntry, policy: EgressPolicy): Promise<void> {
  const mark = ((e.record.egress?.mark ?? 0) % 0x7fffffff) + 1;
  if (policy.mode === 'none') await stopVmDns(e);
  else if (e.dns) e.dns.policy = policy;
  await applyVmEgress(ctx.link, policy, mark);
  e.record = { ...e.record, egress: { mode: policy.mode, allow: policy.allow, mark } };
  saveRecord(e.paths, e.record);
  await resumeVmDns(ctx, e, policy);
}

/** Starts the VM's DNS answerer when its policy lets anything out (also for a VM adopted running). */
export async function resumeVmDns(ctx: VmEgressContext, e: VmEntry, policy: EgressPolicy): Promise<void> {
  if (policy.mode === 'none' || e.dns) return;
  const dns = new VmDnsAnswerer(ctx.link, policy, ctx.upstreams, ctx.log);
  await dns.start();
  e.dns = dns;
}

/** Stops the VM's DNS answerer (before its link goes, or when its policy lets nothing out). */
export async function stopVmDns(e: VmEntry): Promise<void> {
  const dns = e.dns;
  e.dns = undefined;
  await dns?.close();
}
