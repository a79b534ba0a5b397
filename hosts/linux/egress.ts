// A VM's egress policy on the linux driver (crds/egress.ts; docs/isolation.md, Egress). Three
// places hold it, and one call sets all three:
//
// - The VM's own network namespace: a default route via its link only when the policy lets
//   anything out, and the nftables table `inet sandbay-egress`, whose output chain lets out what
//   the policy allows and rejects the rest (admin-prohibited: "No route to host" at once). The VM's
//   processes cannot change it: they have no CAP_NET_ADMIN in the namespace.
// - The machine's table `inet sandbay-vms` (vm-network.ts): the link in `nat_links` (its
//   connections are forwarded and masqueraded, never to a fenced range) and in `dns_links` (it may
//   ask the DNS answerer on its link's host end).
// - The DNS answerer (egress-dns.ts): the VM's only resolver. It answers a name the policy allows
//   and, in mode `allow`, puts the addresses it answered into the table's set `answers` before the
//   VM reads them; any other name is NXDOMAIN.
//
// Every connection a policy lets out gets the policy's number as its conntrack mark, and a packet
// of a marked connection passes without another look: a long download outlives the DNS answer that
// opened it. A new policy gets a new number, so every open connection is looked at again at its
// next packet: one the new policy refuses stops there.
import { DriverError } from '../driver.ts';
import { parseEgressRule, type EgressPolicy, type EgressSupport } from '../../crds/egress.ts';
import { run } from './runner.ts';
import { DNS_LINKS_SET, FIREWALL_TABLE, NAT_LINKS_SET, type VmLink } from './vm-network.ts';

/** The table in each VM's namespace. */
export const EGRESS_TABLE = 'sandbay-egress';
/** Its sets: the policy's CIDRs, and the addresses the DNS answerer gave out for allowed names. */
export const CIDR_SET = 'cidrs';
export const ANSWER_SET = 'answers';
/** An answered address stays allowed at least this long, whatever the answer's TTL (programs cache names). */
export const ANSWER_MIN_TTL_S = 300;
/** …and at most this long without the name being asked again. */
export const ANSWER_MAX_TTL_S = 86_400;

/** What a linux host enforces, from the operator's settings. */
export function linuxEgressSupport(outboundNat: boolean, egressDefault: 'none' | 'all'): EgressSupport {
  if (!outboundNat) {
    return {
      default: 'none',
      modes: ['none'],
      domains: true,
      refusal:
        "the operator keeps this host's VMs offline (sandbay runs without --vm-outbound-nat), so no sandbox reaches anything outside its VM",
    };
  }
  return { default: egressDefault, modes: ['none', 'all', 'allow'], domains: true };
}

/** Refuses a policy the host does not enforce, as a DriverError (the reconciler checks first). */
export function checkEgress(support: EgressSupport, policy: EgressPolicy): void {
  if (!support.modes.includes(policy.mode)) {
    throw new DriverError('invalid_argument', `egress mode "${policy.mode}" is refused: ${support.refusal}`);
  }
}

/** `nft` in the VM's network namespace. */
export function vmNft(link: VmLink, args: string[], input?: string): Promise<unknown> {
  return run('nsenter', [`--net=${link.netnsPath}`, 'nft', ...args], input === undefined ? {} : { input });
}

/**
 * Puts `policy` in force on the VM's link (its namespace must exist). `mark` numbers this policy
 * among the VM's: a different one at every change. Atomic per part: the VM's table is replaced in
 * one transaction, so no packet ever sees half a policy.
 */
export async function applyVmEgress(link: VmLink, policy: EgressPolicy, mark: number): Promise<void> {
  const out = policy.mode !== 'none';
  const t = EGRESS_TABLE;
  const cidrs = policy.allow.flatMap((r) => {
    const rule = parseEgressRule(r);
    return 'kind' in rule && rule.kind === 'cidr' ? [rule.cidr] : [];
  });
  const lines = [
    `add table inet ${t}`,
    `delete table inet ${t}`,
    `add table inet ${t}`,
    `add set inet ${t} ${CIDR_SET} { type ipv4_addr; flags interval; }`,
    `add set inet ${t} ${ANSWER_SET} { type ipv4_addr; flags timeout; }`,
    ...(cidrs.length > 0 ? [`add element inet ${t} ${CIDR_SET} { ${cidrs.join(', ')} }`] : []),
    `add chain inet ${t} output { type filter hook output priority filter; policy accept; }`,
    `add rule inet ${t} output oifname "lo" accept`,
    // The host end of the link: the control plane's own connections (sshd, x11vnc answer it) and
    // the DNS answerer. The machine's firewall decides what else a VM may do there (nothing).
    `add rule inet ${t} output ip daddr ${link.hostIp} accept`,
    `add rule inet ${t} output ct mark ${mark} accept`,
    ...(policy.mode === 'all' ? [`add rule inet ${t} output ct mark set ${mark} accept`] : []),
    ...(policy.mode === 'allow'
      ? [
          `add rule inet ${t} output ip daddr @${CIDR_SET} ct mark set ${mark} accept`,
          `add rule inet ${t} output ip daddr @${ANSWER_SET} ct mark set ${mark} accept`,
        ]
      : []),
    `add rule inet ${t} output reject with icmpx admin-prohibited`,
    '',
  ];
  await vmNft(link, ['-f', '-'], lines.join('\n'));
  // `replace`/`del` of the default route: the route says whether anything may leave at all.
  await run('ip', [
    '-n',
    link.netns,
    'route',
    out ? 'replace' : 'del',
    'default',
    'via',
    link.hostIp,
    'dev',
    'eth0',
  ]).catch((e: unknown) => {
    if (out || !/No such process|not exist/i.test(String(e))) throw e;
  });
  const verb = out ? 'add' : 'delete';
  for (const set of [NAT_LINKS_SET, DNS_LINKS_SET]) {
    await run('nft', [verb, 'element', 'inet', FIREWALL_TABLE, set, `{ ${link.hostIf} }`]).catch(
      (e: unknown) => {
        // Deleting what is not there: the VM had no way out before either.
        if (out || !/No such file|does not exist/i.test(String(e))) throw e;
      },
    );
  }
}

/**
 * Lets the VM reach `addresses` (a DNS answer for an allowed name) for `ttlS` seconds from now,
 * renewing addresses it already held. One transaction: add (so that the delete finds it), delete,
 * add with the fresh timeout.
 */
export async function allowAnswers(link: VmLink, addresses: string[], ttlS: number): Promise<void> {
  if (addresses.length === 0) return;
  const ttl = Math.min(ANSWER_MAX_TTL_S, Math.max(ANSWER_MIN_TTL_S, Math.floor(ttlS)));
  const list = addresses.join(', ');
  const withTtl = addresses.map((a) => `${a} timeout ${ttl}s`).join(', ');
  const set = `inet ${EGRESS_TABLE} ${ANSWER_SET}`;
  await vmNft(
    link,
    ['-f', '-'],
    [
      `add element ${set} { ${list} }`,
      `delete element ${set} { ${list} }`,
      `add element ${set} { ${withTtl} }`,
      '',
    ].join('\n'),
  );
}
