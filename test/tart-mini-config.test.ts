// A Mini an operator got wrong, on the tart driver against an emulated Mac: a wrong address, a key
// the Mac does not accept, credentials that are not there, a Tart the driver does not support. Each
// is `Ready=False` with a reason and a message that say what to fix, the operator keeps probing on
// its period (a probe failure is a state of the Mini, never a crash), and once the Mini or the Mac is
// put right it is Ready=True again without a restart.
import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, type Mini } from '../crds/index.ts';
import type { Driver } from '../hosts/driver.ts';
import { generateSshKey } from '../hosts/linux/sshd.ts';
import { writeCredentials } from '../hosts/tart/credentials.ts';
import { createTartDriver } from '../hosts/tart/index.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { openStore, waitFor } from './api-harness.ts';
import { downAll, upMacs, type EmulatedMac } from './support/emulated-mac/macs.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-minis-'));
chmodSync(root, 0o755);
const dataDir = join(root, 'data');
let store: SqliteStore;
let driver: Driver;
let operator: RunningOperator;
let mac: EmulatedMac;

const readyOf = async (name: string) =>
  (await store.get<Mini>({ kind: 'Mini', name }))?.status?.conditions?.find((c) => c.type === 'Ready');

/** What `kubectl patch mini NAME --type merge -p '{"spec":…}'` writes. */
async function fix(spec: Partial<Mini['spec']>): Promise<void> {
  await store.patch<Mini>({ kind: 'Mini', name: NAME }, { spec });
}

async function readyFalse(name: string) {
  return waitFor(
    async () => {
      const c = await readyOf(name);
      return c?.status === 'False' ? c : undefined;
    },
    `${name} Ready=False`,
    60_000,
  );
}

/**
 * Puts a new script in place of an executable the Mac runs all the time (the operator's probes, the
 * pool's `tart list`): written beside it, then renamed over it. Writing it in place fails with
 * ETXTBSY whenever a `tart` is being exec'd at that instant, and an exec between the truncation and
 * the write would run an empty script.
 */
function replaceScript(path: string, text: string): void {
  writeFileSync(`${path}.new`, text, { mode: 0o755 });
  renameSync(`${path}.new`, path);
}

const readyTrue = () =>
  waitFor(async () => (await readyOf(NAME))?.status === 'True', `${NAME} Ready=True`, 90_000);

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 1);
  mac = fleet.macs[0]!;
  writeCredentials(dataDir, 'good', { username: 'root', privateKey: fleet.privateKey });
  writeCredentials(dataDir, 'stranger', {
    username: 'root',
    privateKey: generateSshKey('not-authorized').privateKey,
  });
  store = await openStore(root);
  driver = createTartDriver({ dataDir });
  operator = await startOperator({ store, drivers: { tart: driver }, blobDir: join(root, 'blobs') });
}, 120_000);

afterAll(async () => {
  await operator?.stop();
  await driver?.close();
  await store?.close();
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
}, 60_000);

// One Mini, put wrong and right in turn (several Minis on one Mac would fight over its VMs). Its
// layout is `whole`: one warm VM to rebuild each time it comes back.
const NAME = 'mini-1';

describe('a Mini the operator got wrong (tart driver, emulated Mac)', () => {
  it('a wrong address: HostUnreachable naming the address; right once the address is fixed', async () => {
    // A VM address of a Mac, not a Mac: routed nowhere on this machine (the emulation's unreachable route).
    await store.create<Mini>({
      apiVersion: API_VERSION,
      kind: 'Mini',
      metadata: { name: NAME },
      spec: {
        address: '192.168.64.250',
        model: 'm4',
        driver: 'tart',
        credentialsRef: 'good',
        schedulable: false,
        defaultLayout: 'whole',
      },
    });
    expect(await readyFalse(NAME)).toMatchObject({
      reason: 'HostUnreachable',
      message: expect.stringMatching(/192\.168\.64\.250.*(EHOSTUNREACH|No route)/),
    });
    expect((await store.get<Mini>({ kind: 'Mini', name: NAME }))?.status?.phase).toBe('down');
    await fix({ address: mac.address });
    await readyTrue();
  });

  it('a key the Mac refuses, or credentials that are not there: said as such, never the key', async () => {
    await fix({ credentialsRef: 'stranger' });
    const refused = await readyFalse(NAME);
    expect(refused).toMatchObject({
      reason: 'HostAuthFailed',
      message: expect.stringMatching(/authentication methods failed.*authorize its public key/),
    });
    expect(refused.message).not.toContain('PRIVATE KEY');
    await fix({ credentialsRef: 'absent' });
    expect(
      await waitFor(
        async () => ((await readyOf(NAME))?.reason === 'HostMisconfigured' ? readyOf(NAME) : undefined),
        'HostMisconfigured',
        60_000,
      ),
    ).toMatchObject({
      status: 'False',
      message: expect.stringMatching(/credentials absent not found \(expected .*\/absent\/user and/),
    });
    await fix({ credentialsRef: 'good' });
    await readyTrue();
  });

  it('a Tart the driver does not support: HostToolMissing with the version; right once Tart 2 is back', async () => {
    // The operator installed Tart 1.9 on the Mac: `tart --version` says so, the rest is as before.
    const wrapper = join(mac.dir, 'opt', 'homebrew', 'bin', 'tart');
    const tart2 = readFileSync(wrapper, 'utf8');
    replaceScript(
      wrapper,
      tart2.replace('#!/bin/sh\n', '#!/bin/sh\n[ "$1" = --version ] && { echo 1.9.0; exit 0; }\n'),
    );
    try {
      expect(await readyFalse(NAME)).toMatchObject({
        reason: 'HostToolMissing',
        message: `tart 1.9.0 on ${NAME}: sandbay needs Tart 2.x`,
      });
    } finally {
      replaceScript(wrapper, tart2);
    }
    await readyTrue();
  });
});
