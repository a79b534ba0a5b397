// Attack: a tenant with a shell in their VM on a Mac (the tart driver, on emulated Macs as harsh as
// real Tart) tries the other tenant's VM on the same Mac. First the image as Cirrus Labs ships it,
// run by hand on Tart's shared network: admin/admin logs in from one VM into the other (what the
// driver must prevent). Then the driver's VMs: Softnet keeps each VM's packets from the other, each
// clone has a password and a host key of its own and takes no password login, and a VM sees only
// its own processes (a PID namespace per emulated VM). Every probe runs as the tenant does: a
// command in their own VM over its SSH, the Mac as jump host.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Driver, Host } from '../hosts/driver.ts';
import { writeCredentials } from '../hosts/tart/credentials.ts';
import { createTartDriver } from '../hosts/tart/index.ts';
import { shellQuote } from '../hosts/linux/ssh-client.ts';
import { withDeadlines } from '../hosts/guest-deadlines.ts';
import { run } from '../hosts/linux/runner.ts';
import { waitFor } from './support/wait.ts';
import { sshdStopped, stopOwnSshdIn } from './support/hostile-probes.ts';
import { downAll, upMacs, type EmulatedMac } from './support/emulated-mac/macs.ts';
import { onMac, onMacOk, runByHand } from './support/emulated-mac/operator-shell.ts';

const IMAGE = 'base-macos-26';
const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-isolation-'));
chmodSync(root, 0o755);
let byHand: EmulatedMac;
let mac: EmulatedMac;
let driver: Driver;
let host: Host;

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 2);
  [byHand, mac] = fleet.macs as [EmulatedMac, EmulatedMac];
  writeCredentials(join(root, 'data'), 'i', { username: 'root', privateKey: fleet.privateKey });
  driver = createTartDriver({ dataDir: join(root, 'data') });
  host = driver.host({ name: mac.name, address: mac.address, model: 'm4', credentialsRef: 'i' });
  for (const name of ['a', 'b']) await host.createVm({ name, image: IMAGE, cpu: 2, memoryGiB: 4 });
  await Promise.all([host.startVm('a'), host.startVm('b')]);
}, 300_000);

afterAll(async () => {
  await driver?.close();
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

/** A command in VM `name` as its tenant runs it (the driver's exec: the guest user over SSH). */
async function tenant(name: string, command: string): Promise<string> {
  const r = await host.guest(name).exec(command, { timeoutMs: 30_000 });
  return r.stdout + r.stderr;
}

/** `ssh` with password `admin` (askpass, no terminal) to `ip`: prints the remote `id -un`, or why not. */
const passwordLogin = (ip: string) =>
  "printf '#!/bin/sh\\necho admin\\n' > /tmp/askpass.$$ && chmod 700 /tmp/askpass.$$ && " +
  'SSH_ASKPASS=/tmp/askpass.$$ SSH_ASKPASS_REQUIRE=force timeout 15 ssh -n -o StrictHostKeyChecking=no ' +
  '-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o PubkeyAuthentication=no -o ConnectTimeout=5 ' +
  `-o PreferredAuthentications=password -o NumberOfPasswordPrompts=1 admin@${ip} id -un 2>&1; ` +
  'echo "exit $?"; rm -f /tmp/askpass.$$';

/** A TCP connect: `open`, or `blocked` when nothing answers within 3 s, or bash's refusal. */
const tcpProbe = (ip: string, port: number) =>
  `timeout 3 bash -c 'exec 3<>/dev/tcp/${ip}/${port}' 2>&1 && echo open || echo "blocked $?"`;

describe("a Cirrus Labs image run by hand on Tart's shared network (the emulation's baseline)", () => {
  it('logs in from one VM into the other with admin/admin', { timeout: 180_000 }, async () => {
    for (const vm of ['x', 'y']) {
      await onMacOk(byHand, `tart clone ${IMAGE} ${vm}`);
      await runByHand(byHand, vm);
    }
    const x = (await onMacOk(byHand, 'tart ip x')).trim();
    const y = (await onMacOk(byHand, 'tart ip y')).trim();
    const key = join(root, 'macs', 'control_key');
    const fromX = await onMac(
      byHand,
      `ssh -i ${key} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR ` +
        `admin@${x} ${shellQuote(passwordLogin(y))}`,
    );
    expect(fromX.stdout).toContain('admin\nexit 0');
    // Every clone of the image has its host key.
    const keys = await onMac(byHand, `ssh-keyscan -t ed25519 ${x} ${y} 2>/dev/null | cut -d' ' -f3`);
    const [kx, ky] = keys.stdout.trim().split('\n');
    expect(kx).toBe(ky);
  });
});

describe("the driver's VMs of two tenants on one Mac", () => {
  it("cannot open a connection to the other VM's sshd or screen, nor log into it with admin/admin", async () => {
    const b = (await host.guest('b').ssh()).host;
    const out = await tenant('a', [tcpProbe(b, 22), tcpProbe(b, 5900), passwordLogin(b)].join('; '));
    expect(out).not.toMatch(/^open$/m);
    // Softnet drops what a sends to b: no answer (124: the 3 s ran out), or none to ARP (no route).
    expect(out.match(/^blocked \d+$/gm)).toHaveLength(2);
    expect(out).not.toContain('exit 0');
    // The gateway (the Mac's end of the VMs' network, DHCP and DNS) stays reachable: it answers.
    expect(await tenant('a', tcpProbe('192.168.64.1', 22))).toMatch(/Connection refused/);
  });

  it('takes no password login, not even from the Mac; each VM has its own password and host key', async () => {
    const [a, b] = await Promise.all([host.guest('a').ssh(), host.guest('b').ssh()]);
    const login = await onMac(mac, passwordLogin(b.host));
    expect(login.stdout).toMatch(/Permission denied \(publickey\)/);
    expect(login.stdout).not.toContain('exit 0');
    expect(a.hostKey).toMatch(/^ssh-ed25519 /);
    expect(a.hostKey).not.toBe(b.hostKey);
    const image = await onMacOk(
      mac,
      `debugfs -R 'cat /etc/ssh/ssh_host_ed25519_key.pub' "$TART_HOME/vms/${IMAGE}/disk.img" 2>/dev/null`,
    );
    expect(image).toMatch(/^ssh-ed25519 /);
    expect([a.hostKey, b.hostKey]).not.toContain(image.split(' ').slice(0, 2).join(' '));
    const kept = await onMacOk(
      mac,
      'for vm in a b; do f="$TART_HOME/vms/$vm/sandbay-guest-password"; stat -c %a "$f"; cat "$f"; done',
    );
    const [modeA, pwA, modeB, pwB] = kept.trim().split('\n');
    expect([modeA, modeB]).toEqual(['600', '600']);
    expect(pwA).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(pwA).not.toBe(pwB);
  });

  it('sees only its own processes: not the other VM’s, not the Mac’s', async () => {
    const ps = await tenant('a', 'ps -e -o pid=,args=');
    const lines = ps.trim().split('\n');
    // Its first process is the VM itself, the emulation's keeper of its processes (the VM's first, as
    // a macOS guest's launchd is).
    expect(lines.find((l) => /^\s*1 /.test(l))).toMatch(/tart-cli\.ts vm-keeper a /);
    expect(ps).toMatch(/\/vms\/a\/\.emulation\/sshd_config/);
    expect(ps).not.toMatch(/\/vms\/b\//);
    expect(ps).not.toContain(join(mac.dir, 'ssh', 'sshd_config'));
    expect(ps).not.toMatch(/vitest/);
  });

  it("ends a call on a VM whose sshd session stopped answering within its deadline; the neighbour's calls go on", async () => {
    // The tenant stops the guest's sshd processes that serve the driver's connection (its own uid).
    const uid = (await tenant('a', 'id -u')).trim();
    expect(await tenant('a', stopOwnSshdIn(1))).toBe('armed\n');
    // The emulated guest's processes are this machine's: ps sees them (as the Mac's hypervisor would).
    const ps = async () => (await run('ps', ['-o', 'stat=,args=', '-u', uid])).stdout.trim().split('\n');
    await waitFor(async () => sshdStopped(await ps()), 'its sshd sessions stopped', 30_000);
    const a = withDeadlines(host.guest('a'));
    const started = performance.now();
    const held = a.exec('echo never', { timeoutMs: 1_000 }).then(
      () => 'answered',
      (e: unknown) => e,
    );
    let heldDone = false;
    void held.then(() => (heldDone = true));
    expect((await withDeadlines(host.guest('b')).exec('echo neighbour')).stdout).toBe('neighbour\n');
    expect(heldDone).toBe(false);
    // The exec's deadline: its timeout and 15 s of grace; then the guest drops its connections.
    expect(await held).toMatchObject({ code: 'timeout' });
    expect(performance.now() - started).toBeLessThan(1_000 + 15_000 + 5_000);
    // The stopped session is the tenant's own: the next call opens a new connection and works.
    expect((await a.exec('echo back')).stdout).toBe('back\n');
  }, 90_000);
});
