// The shared Host lifecycle suite and the guest streams contract (streaming exec, forwarded ports,
// clipboard) on the tart driver, against one emulated Mac (a network namespace with a real sshd and
// a `tart` that keeps Tart's contract; its VMs are real Linux desktops, so the clipboard is xclip's).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { downAll, upMacs, type EmulatedMac } from '../../test/support/emulated-mac/macs.ts';
import { runDriverSuite } from '../driver-suite.ts';
import { runGuestStreamsSuite } from '../guest-streams-suite.ts';
import { writeCredentials } from './credentials.ts';
import { createTartDriver } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-suite-'));
const dataDir = join(root, 'data');
// The emulated guests' users reach their homes under it.
chmodSync(root, 0o755);
let mac: EmulatedMac;

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 1);
  mac = fleet.macs[0]!;
  writeCredentials(dataDir, 'suite', { username: 'root', privateKey: fleet.privateKey });
});
afterAll(async () => {
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

runDriverSuite({
  name: 'tart',
  newDriver: () => createTartDriver({ dataDir }),
  hostRef: () => ({
    name: `emulated-${mac.link}`,
    address: mac.address,
    model: 'm4',
    credentialsRef: 'suite',
  }),
  // An emulated VM boots a real desktop, is sealed at its first boot (a second SSH login) and shuts
  // its guest down before it stops; a few of these per test outlast 60 s on a busy machine.
  testTimeoutMs: 180_000,
});

runGuestStreamsSuite({
  name: 'tart',
  newDriver: () => createTartDriver({ dataDir }),
  hostRef: () => ({
    name: `emulated-${mac.link}`,
    address: mac.address,
    model: 'm4',
    credentialsRef: 'suite',
  }),
  serve: (port, dir) =>
    `cd ${dir} && nohup /usr/bin/python3 -m http.server ${port} --bind 127.0.0.1 >/dev/null 2>&1 &`,
  processes: true,
});
