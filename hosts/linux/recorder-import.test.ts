// Root copying a recording out of a VM's /tmp: only the VM user's own regular file on the VM's disk
// is read; a link, a FIFO, a device, a hard link, another user's file or a file elsewhere is not.
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  linkSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { importVideo } from './recorder-import.ts';

const UID = 65534; // nobody: a user that is not root, as a VM user is
let vmTmp: string;
let out: string;
const dest = () => join(out, 'video.mp4');

beforeEach(() => {
  vmTmp = mkdtempSync(join(tmpdir(), 'sandbay-rec-vm-'));
  out = mkdtempSync(join(tmpdir(), 'sandbay-rec-out-'));
});
afterEach(() => {
  rmSync(vmTmp, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

function usersFile(name: string, body = 'video'): string {
  const file = join(vmTmp, name);
  writeFileSync(file, body);
  chownSync(file, UID, UID);
  return file;
}

it("copies the VM user's own regular file", async () => {
  const src = usersFile('r.mp4', 'the video');
  expect(await importVideo(src, dest(), { uid: UID, tmpDir: vmTmp })).toBe(true);
  expect(readFileSync(dest(), 'utf8')).toBe('the video');
});

it('refuses a symbolic link, even to a file of the user, and reads nothing through it', async () => {
  const secret = join(out, 'secret');
  writeFileSync(secret, 'root only', { mode: 0o600 });
  symlinkSync(secret, join(vmTmp, 'to-root.mp4'));
  symlinkSync(usersFile('real.mp4'), join(vmTmp, 'to-own.mp4'));
  for (const name of ['to-root.mp4', 'to-own.mp4']) {
    expect(await importVideo(join(vmTmp, name), dest(), { uid: UID, tmpDir: vmTmp })).toBe(false);
    expect(existsSync(dest())).toBe(false);
  }
});

it('refuses a FIFO without blocking on it, and a device', async () => {
  execFileSync('mkfifo', [join(vmTmp, 'fifo.mp4')]);
  chownSync(join(vmTmp, 'fifo.mp4'), UID, UID);
  expect(await importVideo(join(vmTmp, 'fifo.mp4'), dest(), { uid: UID, tmpDir: vmTmp })).toBe(false);
  expect(await importVideo('/dev/zero', dest(), { uid: UID, tmpDir: vmTmp })).toBe(false);
  expect(existsSync(dest())).toBe(false);
});

it("refuses a hard link, another user's file and a file on another disk", async () => {
  const own = usersFile('own.mp4');
  linkSync(own, join(vmTmp, 'linked.mp4'));
  expect(await importVideo(join(vmTmp, 'linked.mp4'), dest(), { uid: UID, tmpDir: vmTmp })).toBe(false);
  writeFileSync(join(vmTmp, 'roots.mp4'), 'root');
  expect(await importVideo(join(vmTmp, 'roots.mp4'), dest(), { uid: UID, tmpDir: vmTmp })).toBe(false);
  // /dev/shm is a tmpfs of its own: not the disk the VM's /tmp is on.
  const elsewhere = mkdtempSync('/dev/shm/sandbay-rec-');
  try {
    const file = join(elsewhere, 'v.mp4');
    writeFileSync(file, 'x');
    chownSync(file, UID, UID);
    expect(await importVideo(file, dest(), { uid: UID, tmpDir: vmTmp })).toBe(false);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
  expect(existsSync(dest())).toBe(false);
});
