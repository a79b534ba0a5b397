// The preparation scripts against an emulated Mac of the tart driver's tests (a network namespace with
// its own sshd, root's login, and the emulation's `tart` and `sysctl` on PATH): what the emulation
// answers — Tart's version, its VM list, the host's cores — is checked as on a Mac. The scripts that
// need Homebrew, `defaults`, `security` or a writable ~/.ssh run against fake tools in scripts.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGES } from '../crds/index.ts';
import { downAll, upMacs, type EmulatedMac } from '../test/support/emulated-mac/macs.ts';
import { scriptCommand, type ScriptName } from './scripts.ts';
import { sshRun } from './ssh-run.ts';

let root: string;
let mac: EmulatedMac;
let privateKey: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sandbay-fleet-emac-'));
  // As Homebrew left it: Softnet without its SUID bit (install-softnet's test below sets it).
  const fleet = await upMacs(root, 1, 'm4-pro', { prepared: false });
  mac = fleet.macs[0]!;
  privateKey = fleet.privateKey;
});

afterAll(async () => {
  if (root) await downAll(root);
});

const onMac = (name: ScriptName, vars: Record<string, string>) =>
  sshRun(
    { host: mac.address, port: 22, username: 'root', privateKey },
    scriptCommand(name, { MAC_NAME: mac.name, ...vars }),
  );

describe('preparation scripts on an emulated Mac', () => {
  it('install-tart accepts the pinned version it runs and refuses another, naming the Mac', async () => {
    expect(await onMac('install-tart', { TART_VERSION: '2.30.0' })).toMatchObject({
      code: 0,
      stdout: 'tart 2.30.0\n',
    });
    const other = await onMac('install-tart', { TART_VERSION: '2.31.0' });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(`Mac "${mac.name}": runs Tart 2.30.0, the fleet pins 2.31.0`);
  });

  it('pull-images finds the images the Mac already has and pulls nothing', async () => {
    const images = Object.values(IMAGES).map((i) => i.name);
    // The emulated Mac's images are local already, each with its model's disk size.
    const named = Object.values(IMAGES).map(
      (i) => `${i.name}=ghcr.io/cirruslabs/macos-tahoe-base:latest=${i.diskGiB}`,
    );
    const run = await onMac('pull-images', { IMAGES: images.join(' '), NAMED: named.join(' ') });
    expect(run).toMatchObject({
      code: 0,
      stdout: [...images, ...images].map((i) => `present ${i}\n`).join(''),
    });
  });

  it('check-licence counts running VMs from tart list and reports the host cores', async () => {
    expect(await onMac('check-licence', {})).toMatchObject({
      code: 0,
      stdout: 'running VMs: 0 of 2, host cores: 12\n',
    });
  });

  it('install-softnet sets the SUID bit that `tart run --net-softnet` needs over SSH, once', async () => {
    const ssh = (line: string) =>
      sshRun(
        { host: mac.address, port: 22, username: 'root', privateKey },
        `PATH=/opt/homebrew/bin:$PATH; ${line}`,
      );
    await ssh('tart clone base-macos-26 isolated');
    // Over SSH nobody answers Tart's sudo prompt: without the bit Softnet fails and so does the VM.
    const refused = await ssh('tart run isolated --no-graphics --vnc-experimental --net-softnet');
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toContain(
      'root privileges are required to run and passwordless sudo was not available',
    );
    const first = await onMac('install-softnet', {});
    expect(first).toMatchObject({ code: 0, stdout: expect.stringMatching(/^softnet \/\S+: SUID set\n$/) });
    expect(await onMac('install-softnet', {})).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^softnet \/\S+: root, SUID set\n$/),
    });
    const started = await ssh(
      '(setsid nohup tart run isolated --no-graphics --vnc-experimental --net-softnet > /dev/null 2>&1 < /dev/null &) && ' +
        'tart ip isolated --wait 60 && tart stop isolated && tart delete isolated',
    );
    expect(started).toMatchObject({ code: 0, stdout: expect.stringMatching(/^192\.168\.64\.\d+\n$/) });
  }, 180_000);
});
