// Restarts: a driver process is killed (SIGKILL, like a crashed server) while its VMs run, and a new
// driver on the same data dir takes over. Checked by effect: the same desktop processes keep serving,
// a VM whose desktop died meanwhile comes back stopped with no process left, leftovers are swept.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlotRegistry } from './claims.ts';
import { createLinuxDriver, type LinuxDriver } from './index.ts';
import { greets } from './probe.ts';
import { waitUntil } from './runner.ts';
import { liveUserPids } from './vm-user.ts';

const HOST = { name: 'restart', address: '127.0.0.1', model: 'm4' as const };
let dataDir: string;
let crashed: { a: Record<string, number>; b: Record<string, number>; uidA: number; uidB: number };
let driver: LinuxDriver | undefined;

/** Runs a driver in a child process that boots VMs a and b, reports their PIDs, and waits to be killed. */
function crashingDriver(dir: string): Promise<typeof crashed> {
  const script = `
    import { createLinuxDriver } from ${JSON.stringify(new URL('./index.ts', import.meta.url).pathname)};
    const host = createLinuxDriver({ dataDir: ${JSON.stringify(dir)} }).host(${JSON.stringify(HOST)});
    for (const name of ['a', 'b']) {
      await host.createVm({ name, image: 'base-macos-26', cpu: 2, memoryGiB: 2 });
      await host.startVm(name);
    }
    const [a, b] = [host.describe('a'), host.describe('b')];
    console.log(JSON.stringify({ a: a.procs, b: b.procs, uidA: a.record.uid, uidB: b.record.uid }));
    setInterval(() => {}, 1000);
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (!out.includes('\n')) return;
      child.kill('SIGKILL');
      child.once('exit', () => resolve(JSON.parse(out) as typeof crashed));
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`driver process exited ${code}: ${err}`));
    });
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sandbay-linux-adopt-'));
  crashed = await crashingDriver(dataDir);
});

afterAll(async () => {
  // Should the test fail before a driver adopted them, nothing of the crashed driver may survive.
  for (const pid of [...Object.values(crashed?.a ?? {}), ...Object.values(crashed?.b ?? {})]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as expected
    }
  }
  // A driver process that failed to boot its VMs leaves what it made (disks mounted, a user): a
  // driver on the same data dir adopts it all and discards it on close, as the test's own does.
  if (!driver && dataDir) {
    driver = createLinuxDriver({ dataDir, discardOnClose: true });
    await driver.host(HOST).listVms();
  }
  await driver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('linux driver restart', () => {
  it('adopts a running VM with its processes, and powers off one whose desktop died meanwhile', async () => {
    // b's VNC server dies while no driver is watching.
    process.kill(crashed.b.vnc!, 'SIGKILL');
    await waitUntil(
      'x11vnc of b gone',
      () => (liveUserPids(crashed.uidB).includes(crashed.b.vnc!) ? undefined : true),
      30_000,
    );
    // A claim of ours that never got its VM record (a crash mid-create) must be swept.
    const slots = new SlotRegistry('/run/sandbay-linux');
    const orphan = slots.claim({ dataDir, host: HOST.name, vm: 'half-made', mounts: [] });
    expect(orphan).toBeDefined();

    // a's tenant put a FIFO where its cookie file was: the new driver must not open it (it reads the
    // cookie it keeps itself; a read of the FIFO would hold its start forever).
    const cookie = `/run/user/${crashed.uidA}/Xauthority`;
    rmSync(cookie, { force: true });
    execFileSync('mkfifo', [cookie]);
    chownSync(cookie, crashed.uidA, crashed.uidA);

    driver = createLinuxDriver({ dataDir, discardOnClose: true });
    const host = driver.host(HOST);
    const vms = await host.listVms();
    expect(vms.map((v) => [v.name, v.state])).toEqual([
      ['a', 'running'],
      ['b', 'stopped'],
    ]);
    expect(host.describe('a').procs).toEqual(crashed.a);
    const a = host.describe('a').record;
    expect(await greets(a.ip, a.sshPort, 'SSH-2.0-')).toBe(true);
    expect(liveUserPids(crashed.uidB)).toEqual([]);
    expect(slots.read(orphan!.slot)).toBeUndefined();

    // The adopted VM is watched like one the driver booted: its display dying takes it down.
    process.kill(crashed.a.xvfb!, 'SIGKILL');
    await waitUntil(
      'a stopped',
      async () => ((await host.listVms())[0]?.state === 'stopped' ? true : undefined),
      30_000,
    );
    await waitUntil(
      'a has no processes',
      () => (liveUserPids(crashed.uidA).length === 0 ? true : undefined),
      30_000,
    );

    // Both boot again from their kept disks.
    expect(await host.startVm('b')).toMatchObject({ state: 'running' });
  });
});
