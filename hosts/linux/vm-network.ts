// Each VM's own network namespace (see ../../../shared/notes/namespaces.md). A VM lives in the
// namespace `sandbay-<user>`, joined to the host by a veth pair on 198.19.<slot>.0/30 (RFC 2544
// benchmarking addresses, not the internet): the host end `sbvm<slot>` is .1, the VM's `eth0` is .2,
// the VM's address, where its sshd and x11vnc listen and the host reaches them. The namespace has no
// default route, so from inside a VM every address but the host end of its own link is unreachable
// (other VMs, link-local metadata, private ranges, the internet); the host end itself refuses every
// connection a VM opens (the nftables table below), so the host's listeners on 0.0.0.0 stay out of
// reach while the host's own connections to the VM get their answers. IPv6 gets no address on
// either end. On the host, 198.19.0.0/16 is an `unreachable` route: a VM address with no link
// fails at once instead of leaving through the default route.
//
// Outbound NAT (an operator's setting, off by default; docs/isolation.md): what a VM may reach is
// its sandbox's egress policy (egress.ts), which a VM of a NAT host can have: a default route via
// the host end of its link, and its host interface in the firewall's `nat_links` set, which lets its
// connections be forwarded (never to a fenced range: private, link-local, loopback, other VMs') and
// masqueraded, and in `dns_links`, which lets it ask the DNS answerer on its link (egress-dns.ts).
// The driver never turns on the machine's IPv4 forwarding (`net.ipv4.ip_forward`): that stays the
// operator's decision, and without it nothing leaves.
import { writeFileSync } from 'node:fs';
import { FENCED_RANGES } from '../../crds/egress.ts';
import { DriverError } from '../driver.ts';
import { run } from './runner.ts';

/** The range every VM link is cut from; unreachable from the host except through a VM's link. */
export const VM_RANGE = '198.19.0.0/16';
/** Prefix of the host ends of VM links (what the firewall matches). */
export const HOST_IF_PREFIX = 'sbvm';
/** nftables table (family inet: IPv4 and IPv6) that keeps VMs from opening connections to the host. */
export const FIREWALL_TABLE = 'sandbay-vms';
/** The set (in that table) of VM host interfaces whose VMs may reach the internet through NAT. */
export const NAT_LINKS_SET = 'nat_links';
/** The set of VM host interfaces whose VMs may ask the DNS answerer on their link's host end. */
export const DNS_LINKS_SET = 'dns_links';
/** Where a VM with NAT may still not go, whatever its sandbox's egress policy (crds/egress.ts). */
const NOT_THROUGH_NAT = FENCED_RANGES.map((f) => f.cidr);

export interface VmLink {
  netns: string;
  /** /run/netns/<netns>: what `nsenter --net=` takes. */
  netnsPath: string;
  hostIf: string;
  hostIp: string;
  vmIp: string;
}

/** The link of the VM on `slot` run by `user` (slots are machine-wide, so names and addresses are too). */
export function vmLink(slot: number, user: string): VmLink {
  if (!Number.isInteger(slot) || slot < 1 || slot > 254) {
    throw new DriverError('invalid_argument', `VM slot ${slot} has no network link (1–254)`);
  }
  const netns = `sandbay-${user}`;
  return {
    netns,
    netnsPath: `/run/netns/${netns}`,
    hostIf: `${HOST_IF_PREFIX}${slot}`,
    hostIp: `198.19.${slot}.1`,
    vmIp: `198.19.${slot}.2`,
  };
}

/**
 * The firewall and the unreachable route, made (or remade, atomically) by every driver start and
 * before every VM's link, and left in place across VMs: removing them while another driver's VM
 * runs would open the host to it. `sandbay host reset` removes them.
 */
export async function ensureVmFirewall(): Promise<void> {
  const t = FIREWALL_TABLE;
  const vm = `iifname "${HOST_IF_PREFIX}*"`;
  const nat = `iifname @${NAT_LINKS_SET}`;
  await run('nft', ['-f', '-'], {
    input: [
      `add table inet ${t}`,
      `flush table inet ${t}`,
      // Kept across the flush (adding an existing set changes nothing): VMs of other drivers on the
      // machine that run with NAT stay in it.
      `add set inet ${t} ${NAT_LINKS_SET} { type ifname; }`,
      `add set inet ${t} ${DNS_LINKS_SET} { type ifname; }`,
      `add chain inet ${t} input { type filter hook input priority filter - 10; policy accept; }`,
      // The answers to the host's own connections (SSH, VNC, probes) come back in; nothing a VM opens does.
      `add rule inet ${t} input ${vm} ct state established,related accept`,
      // The DNS answerer on the link's host end (it binds that address alone, and answers only its VM).
      `add rule inet ${t} input iifname @${DNS_LINKS_SET} meta l4proto { udp, tcp } th dport 53 accept`,
      `add rule inet ${t} input ${vm} reject with icmpx admin-prohibited`,
      // Nothing passes from or to a VM through the host, but a NAT VM's own connections to the
      // internet and their answers (once the operator has turned forwarding on).
      `add chain inet ${t} forward { type filter hook forward priority filter - 10; policy accept; }`,
      `add rule inet ${t} forward oifname @${NAT_LINKS_SET} ct state established,related accept`,
      `add rule inet ${t} forward ${nat} ip daddr { ${NOT_THROUGH_NAT.join(', ')} } drop`,
      `add rule inet ${t} forward ${nat} meta nfproto ipv4 oifname != "${HOST_IF_PREFIX}*" accept`,
      `add rule inet ${t} forward ${vm} drop`,
      `add rule inet ${t} forward oifname "${HOST_IF_PREFIX}*" drop`,
      `add chain inet ${t} postrouting { type nat hook postrouting priority srcnat; policy accept; }`,
      `add rule inet ${t} postrouting ${nat} oifname != "${HOST_IF_PREFIX}*" masquerade`,
      '',
    ].join('\n'),
  });
  await run('ip', ['route', 'replace', 'unreachable', VM_RANGE]);
}

/** Removes the firewall and the route (`sandbay host reset`, after every VM is gone). */
export async function removeVmFirewall(): Promise<void> {
  await run('nft', ['delete', 'table', 'inet', FIREWALL_TABLE]).catch(ignoreMissing);
  await run('ip', ['route', 'del', 'unreachable', VM_RANGE]).catch(ignoreMissing);
}

/**
 * Makes the VM's namespace and link, replacing what a crashed predecessor on the slot left, with
 * no way out: the egress policy (egress.ts) opens what it allows. The firewall is made again
 * first: `sandbay host reset` removes it once no slot is claimed, which a driver that is up with no
 * VM at that moment does not notice (its next VM would boot without it).
 */
export async function createVmNetwork(link: VmLink): Promise<void> {
  await ensureVmFirewall();
  await removeVmNetwork(link);
  await run('ip', ['-b', '-'], {
    input: [
      `netns add ${link.netns}`,
      `link add ${link.hostIf} type veth peer name eth0 netns ${link.netns}`,
      // No IPv6 link-local address: the VM would otherwise share an IPv6 link with the host.
      `link set ${link.hostIf} addrgenmode none`,
      `addr add ${link.hostIp}/30 dev ${link.hostIf}`,
      '',
    ].join('\n'),
  });
  writeFileSync(`/proc/sys/net/ipv6/conf/${link.hostIf}/disable_ipv6`, '1');
  await run('ip', ['-n', link.netns, '-b', '-'], {
    input: [
      'link set lo up',
      'link set eth0 addrgenmode none',
      `addr add ${link.vmIp}/30 dev eth0`,
      'link set eth0 up',
      '',
    ].join('\n'),
  });
  await run('ip', ['link', 'set', link.hostIf, 'up']);
}

/** Deletes the VM's namespace (its veth pair goes with it) once no process is left in it. */
export async function removeVmNetwork(link: Pick<VmLink, 'netns' | 'hostIf'>): Promise<void> {
  await run('ip', ['netns', 'del', link.netns]).catch(ignoreMissing);
  // A namespace some process still held when it was deleted keeps its link until that process ends.
  await run('ip', ['link', 'del', link.hostIf]).catch(ignoreMissing);
  // The sets hold names: the next VM on this slot gets NAT and DNS only if its policy lets it out.
  for (const set of [NAT_LINKS_SET, DNS_LINKS_SET]) {
    await run('nft', ['delete', 'element', 'inet', FIREWALL_TABLE, set, `{ ${link.hostIf} }`]).catch(
      ignoreMissing,
    );
  }
}

/** Names of the driver's namespaces on the machine (`sandbay-<prefix>N`), for `sandbay host reset`. */
export async function listVmNetns(prefix: string): Promise<{ netns: string; slot: number }[]> {
  const { stdout } = await run('ip', ['netns', 'list']);
  const re = new RegExp(`^sandbay-${prefix}([1-9][0-9]{0,2})$`);
  const out: { netns: string; slot: number }[] = [];
  for (const line of stdout.split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const m = re.exec(name);
    if (m) out.push({ netns: name, slot: Number(m[1]) });
  }
  return out;
}

/**
 * Swallows the errors that say the thing to remove is already gone. "No such device": the kernel
 * removes a deleted namespace's veth pair asynchronously, and `ip link del` that found the host end
 * by name can lose it before its request lands (seen once in a soak, under load).
 */
function ignoreMissing(e: unknown): void {
  const text = e instanceof Error ? e.message : String(e);
  if (!/No such file|Cannot find device|No such device|does not exist|No such process|not exist/i.test(text))
    throw e;
}
