// Root taking a recording out of a VM's /tmp: the tenant owns the file's name and may keep writing to
// it. The copy holds what the file had when opened, and anything but the VM user's own regular file
// is left unread.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.ts';
import { importVideo } from './recorder-import.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-recorder-import-'));
const vm = { uid: process.getuid!(), tmpDir: dir };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('copies the bytes a file had when opened, though the tenant keeps appending to it', async () => {
  const src = join(dir, 'growing.mp4');
  writeFileSync(src, Buffer.alloc(1 << 20, 1));
  // The tenant's writer, appending forever from now on.
  const writer = spawn('sh', ['-c', `while :; do head -c 65536 /dev/zero; done >> ${src}`], {
    stdio: 'ignore',
  });
  try {
    await waitFor(() => statSync(src).size > 2 << 20, 'the file to grow');
    const dest = join(dir, 'copy.mp4');
    expect(await importVideo(src, dest, vm)).toBe(true);
    const copied = statSync(dest).size;
    expect(copied).toBeGreaterThan(2 << 20);
    // Still growing after the copy ended: the copy stopped at the size it saw, not at the end.
    await waitFor(() => statSync(src).size > copied, 'the file to grow past the copy');
    expect(readFileSync(dest).subarray(0, 4)).toEqual(Buffer.from([1, 1, 1, 1]));
  } finally {
    writer.kill('SIGKILL');
  }
});

it('reads nothing through a link, and leaves a file of another user unread', async () => {
  const secret = join(dir, 'secret');
  writeFileSync(secret, 'root only');
  const link = join(dir, 'link.mp4');
  symlinkSync(secret, link);
  expect(await importVideo(link, join(dir, 'from-link.mp4'), vm)).toBe(false);
  expect(await importVideo(secret, join(dir, 'other-user.mp4'), { ...vm, uid: 65534 })).toBe(false);
});
