// The network of emulated Macs, as measured in ../../../shared/notes/namespaces.md: each Mac is a
// network namespace linked to the host by a veth pair on 198.18.<link>.0/30 (RFC 2544 benchmarking
// space, never the internet), with a bridge 192.168.64.1/24 inside it that its VMs join, each VM in
// its own namespace. The host namespace gets an `unreachable` route for 192.168.64.0/24, so a bug
// that connects to a VM address directly fails at once instead of sending a packet off the machine.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { ClaimOwner } from '../../../hosts/linux/claims.ts';
import { run } from '../../../hosts/linux/runner.ts';

/** Where link numbers are claimed (one mkdir each: atomic across processes). */
const LINKS_DIR = '/run/sandbay-emulated-macs/links';
export const VM_NET = '192.168.64.0/24';

export interface MacLink {
  /** Third octet of the link's /30. */
  link: number;
  netns: string;
  hostIf: string;
  hostIp: string;
  macIp: string;
}

export function macLink(link: number): MacLink {
  return {
    link,
    netns: `sbmac${link}`,
    hostIf: `sbmac${link}`,
    hostIp: `198.18.${link}.1`,
    macIp: `198.18.${link}.2`,
  };
}

/**
 * Whose a claimed link is: the root dir of its Mac's files, and the process the Mac goes with
 * (a test's or a bench's), so that a sweep can remove the Macs of a process that was killed before
 * its cleanup ran. Macs made by hand (`emulated-macs up` without `--owner-pid`) have no owner.
 */
export interface LinkClaim {
  root: string;
  owner?: ClaimOwner;
}

/** Claims a free link number (1–250) for a new Mac of `root`, going with `owner` (none: kept). */
export function claimLink(root: string, owner: ClaimOwner | undefined): MacLink {
  mkdirSync(LINKS_DIR, { recursive: true });
  const claim: LinkClaim = owner ? { root, owner } : { root };
  for (let link = 1; link <= 250; link++) {
    // The dir is made whole (with its claim inside) and renamed into place: a sweep never sees a
    // claimed link without its owner. rename(2) of a dir onto an existing non-empty dir fails.
    const tmp = `${LINKS_DIR}/.${link}-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp);
    writeFileSync(`${tmp}/claim.json`, JSON.stringify(claim));
    try {
      renameSync(tmp, `${LINKS_DIR}/${link}`);
      return macLink(link);
    } catch (e) {
      rmSync(tmp, { recursive: true, force: true });
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOTEMPTY') throw e;
    }
  }
  throw new Error('no free link number for another emulated Mac');
}

/** The claim of a claimed link (undefined when it is not claimed or holds no claim record). */
export function readLinkClaim(link: number): LinkClaim | undefined {
  try {
    return JSON.parse(readFileSync(`${LINKS_DIR}/${link}/claim.json`, 'utf8')) as LinkClaim;
  } catch {
    return undefined;
  }
}

export function releaseLink(link: number): void {
  rmSync(`${LINKS_DIR}/${link}`, { recursive: true, force: true });
}

/** Links claimed by any process (for `down` and the route's last user). */
export function claimedLinks(): number[] {
  try {
    return readdirSync(LINKS_DIR)
      .filter((name) => /^[0-9]+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

const ip = (...args: string[]) => run('ip', args);

/** The Mac's namespace, its link to the host and its VM bridge; the host's unreachable route. */
export async function createMacNetwork(l: MacLink): Promise<void> {
  await ensureUnreachableRoute();
  await ip('netns', 'add', l.netns);
  // The link is ours (claimed), but the host end of its last Mac's veth may outlive that Mac's
  // namespace for a moment (the kernel tears a deleted namespace down asynchronously).
  await ip('link', 'del', l.hostIf).catch(() => {});
  await ip('link', 'add', l.hostIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', l.netns);
  await ip('addr', 'add', `${l.hostIp}/30`, 'dev', l.hostIf);
  await ip('link', 'set', l.hostIf, 'up');
  const n = (...args: string[]) => ip('-n', l.netns, ...args);
  await n('addr', 'add', `${l.macIp}/30`, 'dev', 'eth0');
  await n('link', 'set', 'eth0', 'up');
  await n('link', 'set', 'lo', 'up');
  await n('link', 'add', 'br64', 'type', 'bridge');
  await n('addr', 'add', '192.168.64.1/24', 'dev', 'br64');
  await n('link', 'set', 'br64', 'up');
  await run('ip', ['netns', 'exec', l.netns, 'nft', '-f', '-'], { input: SOFTNET_TABLE });
}

/**
 * Softnet's filter (`tart run --net-softnet`), as cirruslabs/softnet's README states it: the VM may
 * send to the gateway (the bridge's address on the Mac) and to globally routable addresses, never
 * to another private address — so not to another VM (and, in this emulation, nothing is globally
 * routable). A VM's bridge port joins `ports` while its run lasts. Without it (Tart's shared NAT as
 * the emulation keeps it), VMs on the Mac reach each other.
 */
const SOFTNET_TABLE = `table bridge sbmac-softnet {
  set ports { type ifname; }
  chain forward { type filter hook forward priority 0; policy accept; iifname @ports drop; }
  chain input {
    type filter hook input priority 0; policy accept;
    iifname @ports ip daddr != 192.168.64.1 drop;
  }
}
`;

/** Puts a VM's port under Softnet's filter (`on`) or takes it out. */
export async function softnetPort(macNetns: string, slot: number, on: boolean): Promise<void> {
  await ip(
    'netns',
    'exec',
    macNetns,
    'nft',
    on ? 'add' : 'delete',
    'element',
    'bridge',
    'sbmac-softnet',
    'ports',
    `{ "vm${slot}" }`,
  );
}

/** Removes the Mac's namespace (its veths go with it) and every VM namespace of it. */
export async function deleteMacNetwork(l: MacLink): Promise<void> {
  for (const ns of await namespaces()) {
    if (ns === l.netns || ns.startsWith(`${l.netns}-`)) await ip('netns', 'del', ns).catch(() => {});
  }
}

export async function namespaces(): Promise<string[]> {
  const { stdout } = await ip('netns', 'list');
  return stdout
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((n) => n !== '');
}

async function ensureUnreachableRoute(): Promise<void> {
  const { stdout } = await ip('route', 'show', 'type', 'unreachable', VM_NET);
  if (!stdout.includes('192.168.64.0/24')) await ip('route', 'add', 'unreachable', VM_NET).catch(() => {});
}

/** Drops the host's route once no Mac uses it. */
export async function dropUnreachableRouteIfUnused(): Promise<void> {
  if (claimedLinks().length === 0) await ip('route', 'del', 'unreachable', VM_NET).catch(() => {});
}

/**
 * One VM's namespace inside a Mac: a veth whose Mac end joins the bridge; the VM end is `eth0` with
 * `address`/24 and a default route via the bridge. `slot` keeps interface names short and unique.
 */
export async function createVmNetwork(macNetns: string, slot: number, address: string): Promise<string> {
  const vmNetns = `${macNetns}-vm${slot}`;
  await ip('netns', 'del', vmNetns).catch(() => {});
  // The slot's address had the last VM's MAC address in the Mac's neighbour table, and this VM's
  // veth has a new one: packets would go to the old MAC until the entry aged out and was probed
  // again (15-45 s, then 5 s more), so a boot's first SSH greeting came 20-45 s late. A guest that
  // took over an address announces itself; here the stale entry is dropped.
  await ip('-n', macNetns, 'neigh', 'flush', 'to', address, 'dev', 'br64').catch(() => {});
  await ip('netns', 'add', vmNetns);
  const macIf = `vm${slot}`;
  await ip('-n', macNetns, 'link', 'del', macIf).catch(() => {});
  await ip('-n', macNetns, 'link', 'add', macIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', vmNetns);
  await ip('-n', macNetns, 'link', 'set', macIf, 'master', 'br64', 'up');
  const n = (...args: string[]) => ip('-n', vmNetns, ...args);
  await n('addr', 'add', `${address}/24`, 'dev', 'eth0');
  await n('link', 'set', 'eth0', 'up');
  await n('link', 'set', 'lo', 'up');
  await n('route', 'add', 'default', 'via', '192.168.64.1');
  return vmNetns;
}

export async function deleteVmNetwork(vmNetns: string): Promise<void> {
  await ip('netns', 'del', vmNetns).catch(() => {});
}
