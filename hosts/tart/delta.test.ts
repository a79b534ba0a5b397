// Snapshots between Macs: a disk delta computed on one emulated Mac (perl and gzip on the Mac, the
// guest's files in the VM's disk.img) and applied over a fresh clone of the same image on another.
import { chmodSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downAll, upMacs, type EmulatedMac } from '../../test/support/emulated-mac/macs.ts';
import { onMac } from '../../test/support/emulated-mac/operator-shell.ts';
import { waitFor } from '../../test/support/wait.ts';
import type { Driver, Host } from '../driver.ts';
import { writeCredentials } from './credentials.ts';
import { createTartDriver } from './index.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbay-tart-delta-'));
chmodSync(root, 0o755);
let driver: Driver;
let a: Host;
let b: Host;
let macB: EmulatedMac;

async function text(r: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

beforeAll(async () => {
  const fleet = await upMacs(join(root, 'macs'), 2);
  writeCredentials(join(root, 'data'), 'd', { username: 'root', privateKey: fleet.privateKey });
  driver = createTartDriver({ dataDir: join(root, 'data') });
  macB = fleet.macs[1]!;
  [a, b] = fleet.macs.map((m) =>
    driver.host({ name: m.name, address: m.address, model: 'm4', credentialsRef: 'd' }),
  ) as [Host, Host];
});

afterAll(async () => {
  await driver?.close();
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
});

describe('tart disk deltas between two Macs', () => {
  // Each boots VMs, and a running VM's delta boots it again: minutes on a loaded machine.
  it('carries files from a running VM on one Mac to a clone on the other', { timeout: 240_000 }, async () => {
    await a.createVm({ name: 'src', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    await a.startVm('src');
    const g = a.guest('src');
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    await g.putFile('work/big.bin', big);
    await g.putFile('work/note.txt', Buffer.from('from mac a'));
    const file = join(root, 'src.delta');
    const delta = await a.exportDelta('src', file);
    expect(delta.bytes).toBe(readFileSync(file).length);
    // A few MiB of changed blocks (gzip squeezes the 3 MiB of sevens), not the 50 GB disk.
    expect(delta.bytes).toBeLessThan(2 * 1024 * 1024);

    await b.createVm({ name: 'dst', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    await b.importDelta('dst', file);
    await b.startVm('dst');
    const h = b.guest('dst');
    expect(await text(await h.getFile('work/note.txt'))).toBe('from mac a');
    expect((await h.exec('sha256sum work/big.bin')).stdout).toBe(
      (await g.exec('sha256sum work/big.bin')).stdout,
    );
  });

  it(
    'refuses a delta on a VM that has run or of another image; one cut short fails, the whole one applies after',
    { timeout: 240_000 },
    async () => {
      const file = join(root, 'src.delta');
      // `dst` of the test above has run since it was cloned.
      await b.stopVm('dst');
      await expect(b.importDelta('dst', file)).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringContaining('has run'),
      });
      await b.createVm({ name: 'whole', image: 'base-macos-26-whole', cpu: 2, memoryGiB: 4 });
      await expect(b.importDelta('whole', file)).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringContaining('is a clone of base-macos-26-whole'),
      });
      const cut = join(root, 'cut.delta');
      writeFileSync(cut, readFileSync(file));
      truncateSync(cut, Math.floor(readFileSync(file).length / 2));
      await b.createVm({ name: 'fresh', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
      await expect(b.importDelta('fresh', cut)).rejects.toMatchObject({ code: 'command_failed' });
      // Every write of a delta is absolute: the whole delta applies after a failed one.
      await b.importDelta('fresh', file);
      await b.startVm('fresh');
      expect(await text(await b.guest('fresh').getFile('work/note.txt'))).toBe('from mac a');
    },
  );

  it(
    "takes a running VM's delta at one point in time: written throughout, the restored disk passes fsck, the VM runs on",
    { timeout: 240_000 },
    async () => {
      await a.createVm({ name: 'busy', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
      await a.startVm('busy');
      // A writer that never stops: it rewrites 64 files of 64 KiB in turn until the guest goes down.
      await a
        .guest('busy')
        .exec(
          'mkdir -p w && (i=0; while :; do i=$(( (i + 1) % 64 )); head -c 65536 /dev/urandom > w/$i.bin; ' +
            'echo $i >> w/log; done) >/dev/null 2>&1 &',
        );
      await waitFor(
        async () => Number((await a.guest('busy').exec('wc -l < w/log')).stdout) > 100,
        'the writer at work',
        20_000,
      );
      const file = join(root, 'busy.delta');
      // The pool lists the Mac's VMs all along (every few seconds): the VM, stopped and booted again
      // inside the capture, is running in every listing, or the pool would take it for lost and
      // clone it afresh under the same name while the capture waits.
      let capturing = true;
      const captured = a.exportDelta('busy', file).finally(() => (capturing = false));
      const listed: string[] = [];
      while (capturing) listed.push((await a.listVms()).find((v) => v.name === 'busy')?.state ?? 'absent');
      await captured;
      expect(listed.length).toBeGreaterThan(0);
      expect(new Set(listed)).toEqual(new Set(['running']));
      // The VM is running again (a new boot), and the stopped copy the delta was read from is gone.
      expect((await a.listVms()).map((v) => [v.name, v.state])).toContainEqual(['busy', 'running']);
      expect((await a.guest('busy').exec('cat w/log | wc -l')).return_code).toBe(0);
      expect((await a.listVms()).map((v) => v.name).filter((n) => n.startsWith('busy'))).toEqual(['busy']);

      await b.createVm({ name: 'restored', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
      await b.importDelta('restored', file);
      // The guest's file system check on the restored disk: a cleanly unmounted file system (no journal
      // left to recover, which a disk read while its guest was writing always has), without errors.
      const disk = '"$TART_HOME/vms/restored/disk.img"';
      const fsck = await onMac(
        macB,
        `dumpe2fs -h ${disk} 2>/dev/null | grep '^Filesystem features'; e2fsck -fn ${disk}`,
      );
      expect(fsck.stdout).not.toContain('needs_recovery');
      expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0);
      await b.startVm('restored');
      expect(Number((await b.guest('restored').exec('wc -l < w/log')).stdout)).toBeGreaterThan(100);
    },
  );
});
