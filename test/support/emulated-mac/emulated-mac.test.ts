// The emulated Mac keeps Tart's contract (read from cirruslabs/tart's source) over a real SSH login,
// its VMs are real desktops reachable only through the Mac, and `down` leaves nothing behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { once } from 'node:events';
import { findUser } from '../../../hosts/linux/vm-user.ts';
import { downAll, listMacs, sweepAbandonedMacs, upMacs, type EmulatedMac } from './macs.ts';
import { claimedLinks, namespaces, readLinkClaim } from './network.ts';

let root: string;
let keyFile: string;
let mac: EmulatedMac;

interface Out {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One command line on the Mac as an operator's `ssh mac …` runs it, Homebrew's dir on PATH as their
 * `.zprofile` puts it for a login shell (`bare`: the non-login PATH an SSH command gets).
 */
function onMac(command: string, bare = false): Out {
  const r = spawnSync(
    'ssh',
    [
      '-i', keyFile,
      '-o', 'StrictHostKeyChecking=no',
      '-o', 'UserKnownHostsFile=/dev/null',
      '-o', 'LogLevel=ERROR',
      '-o', 'BatchMode=yes',
      `root@${mac.address}`,
      bare ? command : `PATH=/opt/homebrew/bin:$PATH; ${command}`,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  ); // prettier-ignore
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sandbay-emac-'));
  const fleet = await upMacs(root, 1);
  mac = fleet.macs[0]!;
  keyFile = join(root, 'key');
  writeFileSync(keyFile, fleet.privateKey, { mode: 0o600 });
});

afterAll(async () => {
  if (root) await downAll(root);
});

describe('an emulated Mac', () => {
  it('answers sysctl as macOS does and lists its images as Tart does', () => {
    expect(onMac('sysctl -n hw.ncpu hw.memsize').stdout).toBe('10\n17179869184\n');
    const list = onMac('tart list --format json');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^\[\n {2}\{\n {4}"Source" : "local",\n {4}"Name" : "base-macos-26",\n/);
    expect(JSON.parse(list.stdout)).toHaveLength(2);
  });

  it('has tart in /opt/homebrew/bin, not on the PATH of a non-login SSH command (as macOS sshd gives)', () => {
    expect(onMac('echo "$PATH"; command -v tart; /opt/homebrew/bin/tart --version', true)).toMatchObject({
      code: 0,
      stdout: '/usr/bin:/bin:/usr/sbin:/sbin\n2.30.0\n',
    });
    expect(onMac('tart --version', true).code).toBe(127);
  });

  it('keeps Tart’s messages and exit codes', () => {
    expect(onMac('tart get nope --format json')).toMatchObject({
      code: 2,
      stderr: 'the specified VM "nope" does not exist\n',
    });
    expect(onMac('tart clone base-macos-26 c1 && tart stop c1')).toMatchObject({
      code: 2,
      stderr: 'VM "c1" is not running\n',
    });
    expect(onMac('tart ip c1')).toMatchObject({
      code: 1,
      stderr: 'no IP address found, is your VM running?\n',
    });
    expect(onMac('tart set c1 --cpu x').code).toBe(64);
    expect(
      onMac('tart set c1 --cpu 3 --memory 5120 --display 1280x800px && tart get c1 --format json'),
    ).toMatchObject({ code: 0 });
    const got = JSON.parse(onMac('tart get c1 --format json').stdout) as Record<string, unknown>;
    expect(got).toMatchObject({
      OS: 'darwin',
      CPU: 3,
      Memory: 5120,
      Display: '1280x800px',
      State: 'stopped',
    });
    expect(onMac('tart delete c1 && tart delete c1')).toMatchObject({
      code: 2,
      stderr: 'the specified VM "c1" does not exist\n',
    });
  });

  it(
    'runs VMs detached, each a desktop reachable only through the Mac, at most two at once',
    { timeout: 180_000 },
    () => {
      const start = (vm: string) =>
        onMac(
          `tart clone base-macos-26 ${vm} && (setsid nohup tart run ${vm} --no-graphics --vnc-experimental ` +
            `> "$TART_HOME/vms/${vm}/run.log" 2>&1 &) && tart ip ${vm} --wait 30`,
        );
      const a = start('a');
      expect(a).toMatchObject({ code: 0, stdout: '192.168.64.2\n' });
      expect(onMac('cat "$TART_HOME/vms/a/run.log"').stdout).toMatch(
        /^VNC server is running at vnc:\/\/:[a-z]+-[a-z]+-[a-z]+-[a-z]+@127\.0\.0\.1:\d+\n$/,
      );
      expect(start('b').code).toBe(0);
      const c = onMac('tart clone base-macos-26 c && tart run c --no-graphics --vnc-experimental');
      expect(c).toMatchObject({
        code: 1,
        stderr: 'The number of VMs exceeds the system limit (other running VMs: a, b)\n',
      });
      expect(onMac('tart run a --no-graphics')).toMatchObject({
        code: 2,
        stderr: 'VM "a" is already running!\n',
      });
      expect(onMac('tart delete a')).toMatchObject({ code: 1, stderr: 'VM "a" is running\n' });

      // The guest: sshd for admin with the control plane's key, in the desktop's session.
      const guest = onMac(
        `ssh -i ${keyFile} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR ` +
          `admin@192.168.64.2 'id -un; xdpyinfo | grep dimensions'`,
      );
      expect(guest.stdout).toMatch(/^admin\n {2}dimensions: {4}1024x768 pixels/);
      // Not from the control plane's own namespace: the unreachable route refuses it at once.
      const direct = spawnSync('bash', ['-c', 'exec 3<>/dev/tcp/192.168.64.2/22'], { encoding: 'utf8' });
      expect(direct.stderr).toContain('No route to host');

      expect(onMac('tart stop a -t 5 && tart list --format json')).toMatchObject({ code: 0 });
      const states = JSON.parse(onMac('tart list --format json').stdout) as { Name: string; State: string }[];
      expect(states.filter((s) => s.State === 'running').map((s) => s.Name)).toEqual(['b']);
      // `tart stop` is a power cut (Virtualization.framework's stop()): a's file system was never
      // unmounted, its journal waits for recovery.
      const features = (vm: string) =>
        onMac(`dumpe2fs -h "$TART_HOME/vms/${vm}/disk.img" 2>/dev/null | grep '^Filesystem features'`).stdout;
      expect(features('a')).toContain('needs_recovery');
      // The guest's own `sudo shutdown -h now` powers it off cleanly: `tart run` exits, the disk is clean.
      const down = onMac(
        `ssh -i ${keyFile} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR ` +
          `admin@192.168.64.3 'echo written > after.txt; sudo -n shutdown -h now'; ` +
          `i=0; until tart get b --format json | grep -q '"Running" : false'; do ` +
          `i=$((i+1)); [ $i -lt 300 ] || exit 124; sleep 0.1; done; ` +
          `e2fsck -fn "$TART_HOME/vms/b/disk.img"`,
      );
      expect(down.code, down.stderr + down.stdout).toBe(0);
      expect(features('b')).not.toContain('needs_recovery');
    },
  );

  it(
    'suspends a VM run --suspendable and restores it where it was, its processes frozen meanwhile (Tart’s suspend)',
    { timeout: 240_000 },
    () => {
      const vms = '"$TART_HOME/vms"';
      // `tart run` detached, its exit code written when it exits.
      const start = (vm: string, flags = '') =>
        onMac(
          `(setsid nohup sh -c 'tart run "$1" --no-graphics --vnc-experimental ${flags} > "$2/run.log" 2>&1; echo $? > "$2/run.exit"' ` +
            `sh ${vm} "$TART_HOME/vms/${vm}" > /dev/null 2>&1 &) && tart ip ${vm} --wait 30`,
        );
      const exited = (vm: string) =>
        onMac(
          `i=0; until [ -s ${vms}/${vm}/run.exit ]; do i=$((i+1)); [ $i -lt 600 ] || exit 124; sleep 0.1; done; ` +
            `cat ${vms}/${vm}/run.exit ${vms}/${vm}/run.log; rm ${vms}/${vm}/run.exit`,
        );
      const state = (vm: string) =>
        (JSON.parse(onMac(`tart get ${vm} --format json`).stdout) as { State: string; Running: boolean })
          .State;
      const inGuest = (ip: string, command: string) =>
        onMac(
          `ssh -i ${keyFile} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR ` +
            `admin@${ip} '${command}'`,
        );
      const vncPort = (log: string) => Number(/@127\.0\.0\.1:(\d+)$/m.exec(log)?.[1]);

      expect(onMac('tart clone base-macos-26 s').code).toBe(0);
      const ip = start('s', '--suspendable').stdout.trim();
      expect(ip).toMatch(/^192\.168\.64\.\d+$/);
      const firstPort = vncPort(onMac(`cat ${vms}/s/run.log`).stdout);
      // A process of the guest's, and a clock it writes every 50 ms, ticking before the suspend
      // (on a loaded machine its first tick may come well after the shell that started it returns).
      const sleeper = inGuest(
        ip,
        'nohup sleep 1000 > /dev/null 2>&1 & echo $!; ' +
          'nohup sh -c "while :; do date +%s%N >> ticks; sleep 0.05; done" > /dev/null 2>&1 & ' +
          'i=0; until [ "$(cat ticks 2>/dev/null | wc -l)" -ge 2 ]; do ' +
          'i=$((i+1)); [ $i -lt 600 ] || exit 124; sleep 0.05; done',
      ).stdout.trim();
      expect(sleeper).toMatch(/^\d+$/);

      expect(onMac('tart suspend s')).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(exited('s').stdout).toMatch(
        /^0\nVNC server is running at .*\npausing VM to take a snapshot\.\.\.\ncreating a snapshot\.\.\.\nsnapshot created successfully! shutting down the VM\.\.\.\n$/,
      );
      expect(state('s')).toBe('suspended');
      expect(onMac(`test -e ${vms}/s/state.vzvmsave`).code).toBe(0);
      expect(onMac('tart suspend s')).toMatchObject({
        code: 2,
        stderr: 'VM "VM "s" is not running" is not running\n',
      });
      onMac('sleep 3');

      expect(start('s').stdout.trim()).toBe(ip);
      const log = onMac(`cat ${vms}/s/run.log`).stdout;
      expect(log).toMatch(
        /^restoring VM state from a snapshot\.\.\.\nresuming VM\.\.\.\nVNC server is running at vnc:\/\/:[a-z-]+@127\.0\.0\.1:\d+\n$/,
      );
      expect(vncPort(log)).not.toBe(firstPort);
      expect(state('s')).toBe('running');
      expect(onMac(`test -e ${vms}/s/state.vzvmsave`).code).toBe(1);
      // The same process, and a clock that stood still while the VM was suspended (3 s and more).
      expect(inGuest(ip, `kill -0 ${sleeper} && echo alive`).stdout).toBe('alive\n');
      const ticks = inGuest(ip, 'cat ticks').stdout.trim().split('\n').map(Number);
      const gaps = ticks.slice(1).map((t, i) => (t - ticks[i]!) / 1e9);
      expect(Math.max(...gaps)).toBeGreaterThan(3);

      // Suspended again, then stopped: the saved state is discarded and the VM is stopped.
      expect(onMac('tart suspend s').code).toBe(0);
      expect(exited('s').stdout).toMatch(/^0\n/);
      expect(onMac('tart stop s')).toMatchObject({ code: 0 });
      expect(state('s')).toBe('stopped');
      expect(onMac(`pgrep -f 'tart-cli.ts vm-keepe[r] s '`).code).toBe(1);

      // A VM not run suspendable: Tart's save fails and its run exits 1, the VM gone with it.
      expect(start('s').code).toBe(0);
      expect(onMac('tart suspend s').code).toBe(0);
      expect(exited('s').stdout).toMatch(/^1\nVNC server is running at .*\nFailed to suspend the VM: /);
      expect(state('s')).toBe('stopped');
      expect(onMac('tart delete s').code).toBe(0);
    },
  );

  it('is swept once the process that made it was killed before removing it, and only then', async () => {
    // A test killed mid-run: its Mac (with a running VM, so a guest user exists) outlives it.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { upMacs } from ${JSON.stringify(join(import.meta.dirname, 'macs.ts'))};
         import { onMacOk, runByHand } from ${JSON.stringify(join(import.meta.dirname, 'operator-shell.ts'))};
         const m = (await upMacs(${JSON.stringify(join(root, 'killed'))}, 1)).macs[0];
         await onMacOk(m, 'tart clone base-macos-26 v');
         await runByHand(m, 'v');
         process.stdout.write(JSON.stringify(m) + '\\n');
         setInterval(() => {}, 60_000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const killed = await new Promise<EmulatedMac>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.endsWith('\n')) resolve(JSON.parse(out) as EmulatedMac);
      });
      child.once('exit', (code) =>
        reject(new Error(`the Mac's process exited (${code}) before its Mac was up`)),
      );
    });
    expect(await namespaces()).toContain(`${killed.netns}-vm0`);
    expect(findUser(`sbemac${killed.link}s0`)).toBeDefined();
    child.kill('SIGKILL');
    await exited;

    const removed = await sweepAbandonedMacs();
    expect(removed).toContain(killed.link);
    expect(removed).not.toContain(mac.link); // this process's Mac stays
    expect(claimedLinks()).not.toContain(killed.link);
    expect(claimedLinks()).toContain(mac.link);
    expect((await namespaces()).filter((n) => n.startsWith(killed.netns))).toEqual([]);
    expect(findUser(`sbemac${killed.link}s0`)).toBeUndefined();
    expect(existsSync(killed.dir)).toBe(false);
  });

  it('made by `emulated-macs up --owner-pid`, goes with that process (a test that runs the command)', async () => {
    const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
    const exited = once(owner, 'exit');
    onTestFinished(() => {
      owner.kill('SIGKILL');
    });
    const cli = join(import.meta.dirname, 'cli.ts');
    const env = { ...process.env, SANDBAY_EMULATED_MACS_DIR: join(root, 'cli-owned') };
    const dataDir = join(root, 'cli-data');
    const up = (pid: string) =>
      spawnSync(process.execPath, [cli, 'up', '1', '--data-dir', dataDir, '--owner-pid', pid], {
        env,
        encoding: 'utf8',
      });
    expect(up('0')).toMatchObject({
      status: 2,
      stderr: 'emulated-macs up: --owner-pid 0: no such process\n',
    });
    const made = up(String(owner.pid));
    expect(made.status).toBe(0);
    const link = Number(/name: emulated-(\d+)/.exec(made.stdout)?.[1]);
    expect(readLinkClaim(link)?.owner?.pid).toBe(owner.pid);
    expect(await sweepAbandonedMacs()).not.toContain(link); // its owner lives
    owner.kill('SIGKILL');
    await exited;
    expect(await sweepAbandonedMacs()).toContain(link);
    expect(claimedLinks()).not.toContain(link);
  });

  it('is gone with every namespace, process and file after down', async () => {
    await downAll(root);
    expect(listMacs(root)).toEqual([]);
    expect((await namespaces()).filter((n) => n.startsWith(mac.netns))).toEqual([]);
    expect(existsSync(root)).toBe(false);
    expect(spawnSync('pgrep', ['-f', `sbmac${mac.link}`]).status).toBe(1);
  });
});
