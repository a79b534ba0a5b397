// The egress policy on the linux driver itself (egress.ts, egress-dns.ts, vm-egress.ts): where the
// rules live and that the tenant cannot change them, and a driver that crashed and restarts answers
// the VM's DNS again with the policy it had. Only the VM's own answerer is asked, for names the
// policy refuses (answered NXDOMAIN without asking upstream); the machine's IPv4 forwarding stays
// off, so nothing the VM sends can leave. What the policy lets through: test/egress-linux.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EGRESS_TABLE } from './egress.ts';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { run } from './runner.ts';
import { DNS_LINKS_SET, FIREWALL_TABLE, NAT_LINKS_SET, vmLink } from './vm-network.ts';

const HOST = { name: 'egress', address: '127.0.0.1', model: 'm4' as const };
const POLICY = { mode: 'allow' as const, allow: ['allowed.example', '203.0.113.0/24'] };
/** Loopback only: an allowed name would be asked there (nothing listens), never off the machine. */
const UPSTREAMS = ['127.0.0.1'];
let dataDir: string;
let driver: LinuxDriver | undefined;
let host: LinuxHost;

/** A driver in its own process boots VM `e`, puts POLICY on it, and is killed like a crashed server. */
function crashingDriver(dir: string): Promise<void> {
  const script = `
    import { createLinuxDriver } from ${JSON.stringify(new URL('./index.ts', import.meta.url).pathname)};
    const opts = { dataDir: ${JSON.stringify(dir)}, outboundNat: true, dnsUpstreams: ${JSON.stringify(UPSTREAMS)} };
    const host = createLinuxDriver(opts).host(${JSON.stringify(HOST)});
    await host.createVm({ name: 'e', image: 'base-macos-26', cpu: 2, memoryGiB: 2 });
    await host.startVm('e');
    await host.setEgress('e', ${JSON.stringify(POLICY)});
    console.log('ready');
    setInterval(() => {}, 1000);
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stdout.on('data', () => {
      child.kill('SIGKILL');
      child.once('exit', () => resolve());
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('exit', (code) => code !== null && reject(new Error(`driver process exited ${code}: ${err}`)));
  });
}

/** The rcode of the VM's own answerer for `name` (3: NXDOMAIN), asked from inside the VM as its user. */
async function rcodeFromVm(name: string): Promise<string> {
  const query = [
    'import socket, struct, sys',
    "q = struct.pack('>HHHHHH', 0x5b5b, 0x0100, 1, 0, 0, 0)",
    "q += b''.join(bytes([len(l)]) + l.encode() for l in sys.argv[1].split('.')) + b'\\0' + struct.pack('>HH', 1, 1)",
    "ns = open('/etc/resolv.conf').read().split()[1]",
    's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
    's.settimeout(5)',
    's.sendto(q, (ns, 53))',
    'print(s.recv(512)[3] & 15)',
  ].join('\n');
  const r = await host.guest('e').exec(`python3 -c '${query.replaceAll("'", "'\\''")}' ${name} 2>&1`);
  return r.stdout.trim();
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sandbay-linux-egress-'));
  await crashingDriver(dataDir);
  driver = createLinuxDriver({ dataDir, outboundNat: true, dnsUpstreams: UPSTREAMS, discardOnClose: true });
  host = driver.host(HOST);
}, 120_000);

afterAll(async () => {
  await driver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('adopts a running VM with its policy: its answerer answers again, refusing what the policy refuses', async () => {
  expect((await host.listVms()).find((v) => v.name === 'e')?.state).toBe('running');
  expect(host.describe('e').record.egress).toMatchObject(POLICY);
  expect(await rcodeFromVm('other.example')).toBe('3');
});

it('keeps the rules in the VM’s namespace and the link in the machine’s sets, out of the tenant’s reach', async () => {
  const r = host.describe('e').record;
  const link = vmLink(r.slot, r.user);
  const table = (
    await run('nsenter', [`--net=${link.netnsPath}`, 'nft', 'list', 'table', 'inet', EGRESS_TABLE])
  ).stdout;
  expect(table).toContain('203.0.113.0/24');
  expect(table).toMatch(/reject with icmpx admin-prohibited/);
  for (const set of [NAT_LINKS_SET, DNS_LINKS_SET]) {
    expect((await run('nft', ['list', 'set', 'inet', FIREWALL_TABLE, set])).stdout).toContain(
      `"${link.hostIf}"`,
    );
  }
  const g = host.guest('e');
  const tries = await g.exec(
    [
      'nft flush ruleset; echo "flush: $?"',
      'ip route del default; echo "route: $?"',
      // A namespace of its own, where it is root: its rules change nothing of the VM's.
      'unshare -rn nft flush ruleset; echo "own: $?"',
      'ip -4 route | grep -c default',
    ].join('; '),
  );
  expect(tries.stdout).toMatch(/flush: [1-9]/);
  expect(tries.stdout).toMatch(/route: [1-9]/);
  expect(tries.stdout.trim().split('\n').at(-1)).toBe('1');
  const after = (
    await run('nsenter', [`--net=${link.netnsPath}`, 'nft', 'list', 'table', 'inet', EGRESS_TABLE])
  ).stdout;
  expect(after).toBe(table);
});

it('stops answering names and takes the link out of the sets when the policy lets nothing out', async () => {
  await host.setEgress('e', { mode: 'none', allow: [] });
  const r = host.describe('e').record;
  const link = vmLink(r.slot, r.user);
  expect(await rcodeFromVm('allowed.example')).toMatch(/refused|timed out|Errno|Error/i);
  for (const set of [NAT_LINKS_SET, DNS_LINKS_SET]) {
    expect((await run('nft', ['list', 'set', 'inet', FIREWALL_TABLE, set])).stdout).not.toContain(
      `"${link.hostIf}"`,
    );
  }
  expect((await run('ip', ['-n', link.netns, '-4', 'route'])).stdout).not.toContain('default');
});
