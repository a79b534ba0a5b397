// Outbound NAT as an operator's setting: a driver made with `outboundNat` boots VMs with a default
// route via their link's host end and their link in the firewall's NAT set (forwarded, masqueraded);
// a driver without it (the default) boots VMs with neither. Only routes and rules are read here, and
// no packet is sent; the drivers leave the machine's IPv4 forwarding as they found it (off on this
// machine, so nothing could leave it either way): turning it on is the operator's step.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { run } from './runner.ts';
import { FIREWALL_TABLE, NAT_LINKS_SET, vmLink } from './vm-network.ts';

const IMAGE = 'base-macos-26';
const drivers: { driver: LinuxDriver; host: LinuxHost; dataDir: string }[] = [];
const ipForward = () => readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim();
let forwardingBefore: string;

beforeAll(async () => {
  forwardingBefore = ipForward();
  for (const outboundNat of [true, false]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-nat-'));
    const driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1, outboundNat });
    const host = driver.host({ name: outboundNat ? 'nat-on' : 'nat-off', address: '127.0.0.1', model: 'm4' });
    drivers.push({ driver, host, dataDir });
    await host.createVm({ name: 'v', image: IMAGE, cpu: 1, memoryGiB: 1 });
  }
  await Promise.all(drivers.map((d) => d.host.startVm('v')));
});

afterAll(async () => {
  for (const d of drivers) {
    await d.driver.close();
    rmSync(d.dataDir, { recursive: true, force: true });
  }
});

const linkOf = (host: LinuxHost) => {
  const r = host.describe('v').record;
  return vmLink(r.slot, r.user);
};
const routes = async (netns: string) => (await run('ip', ['-n', netns, '-4', 'route', 'show'])).stdout;
const natLinks = async () =>
  (await run('nft', ['list', 'set', 'inet', FIREWALL_TABLE, NAT_LINKS_SET])).stdout;

it('leaves the machine’s forwarding as it was: the operator turns that on, never the driver or a test', () => {
  expect(ipForward()).toBe(forwardingBefore);
});

it('gives a VM of a NAT host a default route via its link and its link a place in the NAT set', async () => {
  const link = linkOf(drivers[0]!.host);
  expect(await routes(link.netns)).toContain(`default via ${link.hostIp} dev eth0`);
  expect(await natLinks()).toContain(`"${link.hostIf}"`);
  // The rules that set's members meet: masqueraded out, never to private, link-local or VM ranges.
  const ruleset = (await run('nft', ['list', 'table', 'inet', FIREWALL_TABLE])).stdout;
  expect(ruleset).toMatch(/iifname @nat_links oifname != "sbvm\*" masquerade/);
  expect(ruleset).toMatch(/iifname @nat_links ip daddr \{[^}]*169\.254\.0\.0\/16[^}]*\} drop/);
  expect(ruleset).toMatch(
    /iifname @nat_links ip daddr \{[^}]*10\.0\.0\.0\/8[^}]*198\.18\.0\.0\/15[^}]*\} drop/,
  );
});

it('gives a VM of a host without NAT (the default) no default route and no place in the NAT set', async () => {
  const link = linkOf(drivers[1]!.host);
  const table = await routes(link.netns);
  expect(table).not.toContain('default');
  expect(table.trim()).toBe(
    `198.19.${link.hostIf.slice(4)}.0/30 dev eth0 proto kernel scope link src ${link.vmIp}`,
  );
  expect(await natLinks()).not.toContain(`"${link.hostIf}"`);
});

it('takes the link out of the NAT set when the VM powers off', async () => {
  const link = linkOf(drivers[0]!.host);
  await drivers[0]!.host.stopVm('v');
  expect(await natLinks()).not.toContain(`"${link.hostIf}"`);
  expect((await run('ip', ['netns', 'list'])).stdout).not.toContain(link.netns);
});
