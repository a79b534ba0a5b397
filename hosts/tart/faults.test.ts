// Faults of a Mac under the tart driver, on an emulated Mac: its sshd killed with every connection
// (the driver reports `unreachable`, backs off, and reconnects once it answers; the VM, detached from
// SSH, keeps running), a command cut mid-way by the lost connection, and `tart run` dying under a VM (the VM is stopped, its disk kept, and it
// boots again). The backoff itself is checked on a port nothing listens on.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.ts';
import {
  downAll,
  killMacSshd,
  restartMacSshd,
  upMacs,
  type EmulatedMac,
} from '../../test/support/emulated-mac/macs.ts';
import type { Driver, Host } from '../driver.ts';
import { SshClient } from '../linux/ssh-client.ts';
import { generateSshKey } from '../linux/sshd.ts';
import { onMacOk, runByHand } from '../../test/support/emulated-mac/operator-shell.ts';
import { readCredentials, writeCredentials } from './credentials.ts';
import { Mac } from './mac.ts';
import { createTartDriver } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-faults-'));
chmodSync(root, 0o755);
let driver: Driver;
let host: Host;
let mac: EmulatedMac;

async function text(r: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 1);
  mac = fleet.macs[0]!;
  writeCredentials(join(root, 'data'), 'f', { username: 'root', privateKey: fleet.privateKey });
  driver = createTartDriver({ dataDir: join(root, 'data') });
  host = driver.host({ name: mac.name, address: mac.address, model: 'm4', credentialsRef: 'f' });
});

/** sandbay's VM `vm`, running with `kept.txt` on its disk: made by the first test that needs it. */
async function runningVm(): Promise<void> {
  const vm = (await host.listVms()).find((v) => v.name === 'vm');
  if (vm?.state === 'running') return;
  if (!vm) await host.createVm({ name: 'vm', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  await host.startVm('vm');
  await host.guest('vm').putFile('kept.txt', Buffer.from('kept'));
}

afterAll(async () => {
  await driver?.close();
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

describe('tart driver faults', () => {
  it('backs off after a failed connect: calls meanwhile fail at once, naming the failure', async () => {
    // A port that refuses: bound, then closed again.
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const ssh = new SshClient(
      () => ({
        host: '127.0.0.1',
        port,
        username: 'x',
        privateKey: generateSshKey('x').privateKey,
        hostKey: '',
      }),
      { backoff: { initialMs: 60_000, maxMs: 60_000 } },
    );
    await expect(ssh.run('true')).rejects.toMatchObject({ code: 'unreachable', message: /ECONNREFUSED/ });
    await expect(ssh.run('true')).rejects.toMatchObject({
      code: 'unreachable',
      message: expect.stringMatching(/not retried for \d+ ms after 1 failed connects \(.*ECONNREFUSED/),
    });
    ssh.close();
  });

  it('survives the Mac’s sshd killed with every connection: unreachable, then back; the VM kept running', async () => {
    await runningVm();
    await killMacSshd(mac);
    await expect(host.listVms()).rejects.toMatchObject({ code: 'unreachable' });
    await restartMacSshd(mac);
    // Once the backoff has passed, the next call reconnects; `tart run` never noticed.
    const vms = await waitFor(() => host.listVms().catch(() => undefined), 'the Mac answering again', 60_000);
    expect(vms).toMatchObject([{ name: 'vm', state: 'running' }]);
    await waitFor(
      () =>
        host
          .guest('vm')
          .exec('cat kept.txt')
          .then(
            (r) => r.stdout === 'kept',
            () => false,
          ),
      'the guest reachable again through the Mac',
      60_000,
    );
  });

  it('fails a command cut mid-way by a lost connection as unreachable, not as the command’s failure', async () => {
    const m = new Mac(
      { name: mac.name, address: mac.address, model: 'm4' },
      () => readCredentials(join(root, 'data'), 'f'),
      join(root, 'data', 'tart', 'known_hosts'),
    );
    await m.sh(`rm -f ${join(mac.dir, 'started')}`);
    // Its outcome held at once: it settles while the test is still waiting on other things.
    const cut = m.sh(`touch ${join(mac.dir, 'started')}; sleep 60`).then(
      () => undefined,
      (e: unknown) => e,
    );
    await waitFor(async () => existsSync(join(mac.dir, 'started')), 'the command running on the Mac', 20_000);
    await killMacSshd(mac);
    expect(await cut).toMatchObject({
      code: 'unreachable',
      message: expect.stringMatching(/connection was lost/),
    });
    await restartMacSshd(mac);
    m.close();
  });

  it('sees `tart run` dying under a VM: stopped, its disk kept, and it boots again', async () => {
    await runningVm();
    await host.guest('vm').exec('sync');
    const run = JSON.parse(
      readFileSync(join(mac.tartHome, 'vms', 'vm', '.emulation', 'run.json'), 'utf8'),
    ) as { pid: number };
    process.kill(run.pid, 'SIGKILL');
    await waitFor(
      async () => (await host.listVms()).find((v) => v.name === 'vm' && v.state === 'stopped'),
      'the VM stopped',
      30_000,
    );
    expect(() => host.guest('vm')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(await host.startVm('vm')).toMatchObject({ state: 'running' });
    expect(await text(await host.guest('vm').getFile('kept.txt'))).toBe('kept');
  });

  it('names the VMs it did not start when Tart refuses `tart run` over the licence limit', async () => {
    // Beside sandbay's running `vm`, an operator runs a VM of their own by hand.
    await runningVm();
    await onMacOk(mac, 'tart clone base-macos-26 own');
    await runByHand(mac, 'own');
    await host.createVm({ name: 'other', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    const refused = await host.startVm('other').catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'capacity',
      message:
        `other cannot start on ${mac.name}: Apple's licence allows two macOS VMs per Mac and it runs own, vm; ` +
        'not started by sandbay: own. Stop it (`tart stop own`) to free the slot; sandbay starts other then',
    });
    // Not sandbay's to list, stop or delete: only the operator's hand does.
    expect((await host.listVms()).map((v) => v.name)).toEqual(['other', 'vm']);
    await onMacOk(mac, 'tart stop own -t 5 && tart delete own');
    expect(await host.startVm('other')).toMatchObject({ state: 'running' });
    await host.deleteVm('other');
  });
});
