// Fork and pause on the linux host, on real desktops, checked by their effect: the fork's disk (files
// new, changed and deleted, links, FIFOs, hard links, owner), the source frozen while it is copied
// and one instant copied, the cgroup freezer's pause (no CPU used, the processes and their memory
// kept), and a paused VM found paused again by a driver that restarts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { greets } from './probe.ts';
import { sshExec } from '../../test/support/vm-ssh.ts';
import { waitFor } from '../../test/support/wait.ts';

const IMAGE = 'base-macos-26';
const HOST = { name: 'forkpause', address: '127.0.0.1', model: 'm4' as const };
let dataDir: string;
let driver: LinuxDriver;
let host: LinuxHost;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sandbay-linux-forkpause-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 3 });
  host = driver.host(HOST);
  await host.createVm({ name: 'src', image: IMAGE, cpu: 2, memoryGiB: 4 });
  await host.startVm('src');
});

afterAll(async () => {
  await driver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function ssh(name: string, command: string) {
  return sshExec(host.describe(name).record, command);
}

/** CPU time (clock ticks, user + system) the processes of the VM's cgroup have used, from /proc. */
function cpuTicks(name: string): number {
  let ticks = 0;
  for (const pid of host.describe(name).cgroup.pids()) {
    try {
      // After the command's ')': state is field 3, utime and stime fields 14 and 15.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

describe('fork', () => {
  it("makes a VM whose disk is the source's: new, changed and deleted files, links, FIFOs, hard links", async () => {
    const made = await ssh(
      'src',
      [
        'mkdir -p ~/work && echo forked > ~/work/f.txt && echo x >> ~/.bashrc',
        'rm ~/Desktop/README.txt ~/.bash_logout',
        // An image dir removed and made again: an opaque dir in the upper layer.
        'rm -rf ~/Documents && mkdir ~/Documents && echo fresh > ~/Documents/only.txt',
        'ln -s /etc/shadow ~/work/shadow-link && mkfifo ~/work/fifo && ln ~/work/f.txt ~/work/hard.txt',
        'echo made',
      ].join(' && '),
    );
    expect(made.stdout).toBe('made\n');
    const { cgroup } = host.describe('src');
    let sawFrozen = false;
    const look = setInterval(() => (sawFrozen ||= cgroup.frozen()), 1);
    try {
      await host.forkVm('src', { name: 'fork', image: IMAGE, cpu: 2, memoryGiB: 4 });
    } finally {
      clearInterval(look);
    }
    expect(sawFrozen).toBe(true);
    expect(cgroup.frozen()).toBe(false);
    expect((await host.listVms()).find((v) => v.name === 'fork')).toMatchObject({ state: 'stopped' });
    try {
      await host.startVm('fork');
      const r = await ssh(
        'fork',
        [
          'cat ~/work/f.txt',
          'ls ~/Desktop',
          'tail -1 ~/.bashrc',
          'ls -A ~/Documents',
          'ls -A ~ | grep -c bash_logout',
          'readlink ~/work/shadow-link',
          'stat -c %F ~/work/fifo',
          'stat -c %h ~/work/hard.txt',
          'stat -c %U ~/work/f.txt ~/work ~/Documents/only.txt',
        ].join('; '),
      );
      const user = host.describe('fork').record.user;
      expect(r.stdout).toBe(`forked\nx\nonly.txt\n0\n/etc/shadow\nfifo\n2\n${user}\n${user}\n${user}\n`);
      expect(user).not.toBe(host.describe('src').record.user);
      // The source runs on, its disk its own: the fork's writes are not its.
      await ssh('fork', 'echo fork-only > ~/work/f.txt');
      expect((await ssh('src', 'cat ~/work/f.txt')).stdout).toBe('forked\n');
    } finally {
      await host.deleteVm('fork');
    }
  });

  it('copies the disk as of one instant, the source frozen while it is copied', async () => {
    // As in host.test.ts: a writer appends to one file then the other, without end.
    await ssh(
      'src',
      'mkdir -p ~/pit && head -c 20000000 /dev/urandom > ~/pit/bulk && ' +
        "{ nohup sh -c 'while :; do echo line >> ~/pit/1; echo line >> ~/pit/2; done' </dev/null >/dev/null 2>&1 & } && " +
        'while [ ! -s ~/pit/2 ]; do sleep 0.01; done; echo started',
    );
    try {
      await host.forkVm('src', { name: 'pit', image: IMAGE, cpu: 2, memoryGiB: 4 });
      const upper = join(host.describe('pit').paths.disk, 'upper', 'pit');
      const lines = (f: string) => readFileSync(join(upper, f), 'utf8').split('\n').length - 1;
      const [first, second] = [lines('1'), lines('2')];
      expect(first - second).toBeGreaterThanOrEqual(0);
      expect(first - second).toBeLessThanOrEqual(1);
    } finally {
      await ssh('src', 'pkill -u "$(id -u)" -f "while :"; rm -rf ~/pit');
      await host.deleteVm('pit');
    }
  });

  it('refuses a fork onto another image and leaves no VM behind', async () => {
    await expect(
      host.forkVm('src', { name: 'other', image: 'base-macos-26-whole', cpu: 2, memoryGiB: 4 }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      host.forkVm('gone', { name: 'other', image: IMAGE, cpu: 2, memoryGiB: 4 }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await host.listVms()).map((v) => v.name)).toEqual(['src']);
  });
});

describe('pause', () => {
  it('freezes the VM: no CPU used, its processes and memory kept, and it goes on after resume', async () => {
    // A busy counter: it counts as fast as it can and writes where it got to, from memory.
    await ssh(
      'src',
      "{ nohup sh -c 'i=0; while :; do i=$((i+1)); [ $((i % 1000)) -eq 0 ] && echo $i > ~/count; done' " +
        '</dev/null >/dev/null 2>&1 & } ; echo $! > ~/counter.pid; while [ ! -s ~/count ]; do sleep 0.01; done',
    );
    const pid = Number((await ssh('src', 'cat ~/counter.pid')).stdout);
    try {
      await host.pauseVm('src');
      expect(host.describe('src').cgroup.frozen()).toBe(true);
      const listed = async () => (await host.listVms()).find((v) => v.name === 'src');
      expect(await listed()).toMatchObject({ state: 'running', paused: true });
      await host.pauseVm('src'); // a second pause changes nothing
      const count = readFileSync(join(host.describe('src').paths.disk, 'upper', 'count'), 'utf8');
      const cpu = cpuTicks('src');
      // A measuring window, not a wait for something: half a second of the busy loop would be ~50
      // ticks of CPU (100 a second), and a frozen cgroup runs nothing at all.
      await new Promise((r) => setTimeout(r, 500));
      expect(cpuTicks('src') - cpu).toBe(0);
      expect(readFileSync(join(host.describe('src').paths.disk, 'upper', 'count'), 'utf8')).toBe(count);
      // Its delta can be read while paused, and it stays paused after.
      await host.exportDelta('src', join(dataDir, 'paused.tgz'));
      expect(host.describe('src').cgroup.frozen()).toBe(true);

      await host.resumeVm('src');
      await host.resumeVm('src'); // a second resume changes nothing
      expect(host.describe('src').cgroup.frozen()).toBe(false);
      expect((await listed())?.paused).toBeUndefined();
      // The same process counts on from where it was.
      await waitFor(
        async () => Number((await ssh('src', 'cat ~/count')).stdout) > Number(count),
        'the counter to go on',
      );
      expect((await ssh('src', `cat /proc/${pid}/cmdline | tr '\\0' ' '`)).stdout).toContain('while');
    } finally {
      await host.resumeVm('src');
      await ssh('src', 'kill "$(cat ~/counter.pid)"; rm -f ~/count ~/counter.pid');
    }
  });

  it('deletes a paused VM: no process of it is left', async () => {
    await host.createVm({ name: 'gone', image: IMAGE, cpu: 2, memoryGiB: 4 });
    await host.startVm('gone');
    const { cgroup } = host.describe('gone');
    await host.pauseVm('gone');
    await host.deleteVm('gone');
    expect(cgroup.exists() ? cgroup.pids() : []).toEqual([]);
  });
});

describe('restart', () => {
  it('finds a VM paused by a driver that died paused again, and resumes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbay-linux-paused-adopt-'));
    const ref = { ...HOST, name: 'pausedadopt' };
    const script = `
      import { createLinuxDriver } from ${JSON.stringify(new URL('./index.ts', import.meta.url).pathname)};
      const host = createLinuxDriver({ dataDir: ${JSON.stringify(dir)} }).host(${JSON.stringify(ref)});
      await host.createVm({ name: 'p', image: 'base-macos-26', cpu: 2, memoryGiB: 2 });
      await host.startVm('p');
      await host.pauseVm('p');
      console.log('paused');
      setInterval(() => {}, 1000);
    `;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      child.stdout.on('data', (b: Buffer) => {
        if (!b.toString().includes('paused')) return;
        child.kill('SIGKILL');
        child.once('exit', () => resolve());
      });
      child.once('exit', (code) => code !== null && reject(new Error(`driver exited ${code}: ${err}`)));
    });
    const again = createLinuxDriver({ dataDir: dir, discardOnClose: true });
    try {
      const h = again.host(ref);
      expect(await h.listVms()).toEqual([
        expect.objectContaining({ name: 'p', state: 'running', paused: true }),
      ]);
      expect(h.describe('p').cgroup.frozen()).toBe(true);
      await h.resumeVm('p');
      const r = h.describe('p').record;
      expect(h.describe('p').cgroup.frozen()).toBe(false);
      // Thawed, its sshd greets again (frozen, the kernel accepts but nothing answers).
      await waitFor(() => greets(r.ip, r.sshPort, 'SSH-2.0-'), 'its sshd to answer');
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
