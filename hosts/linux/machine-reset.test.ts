// `sandbay host reset` on a machine where a driver process crashed with a VM running: everything of
// that VM goes (user, processes, mounts, cgroup, claim); a live driver's VM, and users and mounts
// that only look like the driver's, stay. Checked by effect on /etc/passwd, /proc and the mounts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../test/support/process.ts';
import { SlotRegistry } from './claims.ts';
import { createLinuxDriver, type LinuxDriver } from './index.ts';
import { isMounted } from './overlay.ts';
import { run } from './runner.ts';
import { resetMachine } from './machine-reset.ts';
import { vmLink } from './vm-network.ts';
import { findUser, liveUserPids } from './vm-user.ts';

const CLI = new URL('../../cli/bin.ts', import.meta.url).pathname;
const HOST = { name: 'reset', address: '127.0.0.1', model: 'm4' as const };
// Users of their own: a concurrent driver (another suite) may take a slot the reset freed and make
// its sbvmN user again, but never an sbrstN.
const PREFIX = 'sbrst';

interface Crashed {
  user: string;
  uid: number;
  slot: number;
  home: string;
  disk: string;
  cgroupDirs: string[];
  pids: number[];
}

let crashDir: string;
let liveDir: string;
let decoyDir: string;
let crashed: Crashed;
let live: LinuxDriver;
// Users and a mount that look like the driver's but are not: another comment, another home, another source.
const DECOY_USERS = [
  { user: `${PREFIX}249`, home: `/home/${PREFIX}249`, comment: 'someone else' },
  { user: `${PREFIX}248`, home: `/var/empty-${PREFIX}248`, comment: '' },
];

/** A driver in a child process boots one VM, reports it, and is SIGKILLed (a crashed server). */
function crashingDriver(dir: string): Promise<Crashed> {
  const script = `
    import { createLinuxDriver } from ${JSON.stringify(new URL('./index.ts', import.meta.url).pathname)};
    const host = createLinuxDriver({ dataDir: ${JSON.stringify(dir)}, userPrefix: '${PREFIX}' })
      .host(${JSON.stringify(HOST)});
    await host.createVm({ name: 'x', image: 'base-macos-26', cpu: 1, memoryGiB: 2 });
    await host.startVm('x');
    const { record, paths, cgroup } = host.describe('x');
    console.log(JSON.stringify({ user: record.user, uid: record.uid, slot: record.slot, home: record.home,
      disk: paths.disk, cgroupDirs: cgroup.dirs(), pids: Object.values(host.describe('x').procs) }));
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
      child.once('exit', () => resolve(JSON.parse(out) as Crashed));
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`driver process exited ${code}: ${err}`));
    });
  });
}

beforeAll(async () => {
  crashDir = mkdtempSync(join(tmpdir(), 'sbreset-crash-'));
  liveDir = mkdtempSync(join(tmpdir(), 'sbreset-live-'));
  decoyDir = mkdtempSync(join(tmpdir(), 'sbreset-decoy-'));
  for (const d of DECOY_USERS) {
    // Left by a run that was killed before its afterAll: made afresh.
    if (findUser(d.user)) await run('userdel', [d.user]);
    await run('useradd', ['-M', '-d', d.home, '-s', '/usr/sbin/nologin', '-c', d.comment, d.user]);
  }
  mkdirSync(join(decoyDir, 'mnt'));
  await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'sandbay-other', join(decoyDir, 'mnt')]);
  crashed = await crashingDriver(crashDir);
  live = createLinuxDriver({ dataDir: liveDir, discardOnClose: true, maxVms: 1, userPrefix: PREFIX });
  const host = live.host({ ...HOST, name: 'reset-live' });
  await host.createVm({ name: 'l', image: 'base-macos-26', cpu: 1, memoryGiB: 2 });
  await host.startVm('l');
});

/** A process of the crashed VM still running (not a zombie; its pid with the VM user's uid: no pid reuse). */
function ofCrashedVm(pid: number): boolean {
  return liveUserPids(crashed.uid).includes(pid);
}

afterAll(async () => {
  await live?.close();
  // The live VM's user (VM users are kept for reuse) and anything a failed test left.
  await resetMachine({ userPrefix: PREFIX });
  for (const d of DECOY_USERS) if (findUser(d.user)) await run('userdel', [d.user]);
  if (isMounted(join(decoyDir, 'mnt'))) await run('umount', [join(decoyDir, 'mnt')]);
  for (const d of [crashDir, liveDir, decoyDir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('sandbay host reset', () => {
  it("removes a crashed driver's VM and nothing that is not the driver's or that a live driver holds", async () => {
    const slots = new SlotRegistry('/run/sandbay-linux');
    expect(crashed.pids.filter(ofCrashedVm).length).toBeGreaterThan(0);
    expect(isMounted(crashed.home) && isMounted(crashed.disk)).toBe(true);
    const crashedNs = vmLink(crashed.slot, crashed.user);
    const netnsList = async () => (await run('ip', ['netns', 'list'])).stdout;
    expect(await netnsList()).toContain(crashedNs.netns);
    const liveVm = live.host({ ...HOST, name: 'reset-live' }).describe('l');

    const res = await runProcess(process.execPath, [CLI, 'host', 'reset', '--user-prefix', PREFIX]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    // As lines: a failure then shows the whole report.
    expect(res.stdout.split('\n')).toContain(`slot ${crashed.slot}: user ${crashed.user} removed`);

    // The crashed VM: no user, process, mount, mount point, cgroup or claim left.
    expect(findUser(crashed.user)).toBeUndefined();
    expect(crashed.pids.filter(ofCrashedVm)).toEqual([]);
    expect(isMounted(crashed.home) || isMounted(crashed.disk)).toBe(false);
    expect(existsSync(crashed.home)).toBe(false);
    for (const d of crashed.cgroupDirs) expect(existsSync(d)).toBe(false);
    // Nor its network namespace and link.
    expect(await netnsList()).not.toContain(crashedNs.netns);
    expect((await run('ip', ['-o', 'link', 'show'])).stdout).not.toContain(`${crashedNs.hostIf}@`);
    // (Another suite's driver may have claimed the freed slot since.)
    expect(slots.read(crashed.slot)?.dataDir).not.toBe(crashDir);

    // The live driver's VM runs on, its claim and user in place.
    expect(res.stdout).toMatch(
      new RegExp(`slots held by running processes \\(.*\\b${liveVm.record.slot}\\b`),
    );
    expect(slots.read(liveVm.record.slot)?.pid).toBe(process.pid);
    expect(findUser(liveVm.record.user)).toBeDefined();
    expect(isMounted(liveVm.record.home)).toBe(true);
    expect(await netnsList()).toContain(vmLink(liveVm.record.slot, liveVm.record.user).netns);
    const guest = live.host({ ...HOST, name: 'reset-live' }).guest('l');
    expect((await guest.exec('echo alive')).stdout).toBe('alive\n');

    // Look-alikes stay.
    for (const d of DECOY_USERS) expect(findUser(d.user)).toBeDefined();
    expect(isMounted(join(decoyDir, 'mnt'))).toBe(true);
    expect(readFileSync('/etc/passwd', 'utf8')).toContain(`${PREFIX}249:`);
  });
});
