// The shared socket dirs on a machine that has none yet, and the power-off sweep around them: made
// in a fresh temp dir standing for /tmp (the real one holds the sockets of every VM on the machine;
// host.test.ts checks it with real desktops).
import { chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureSharedSocketDir } from './shared-socket-dirs.ts';
import { removeUserTempFiles } from './vm-user.ts';

// Two uids no VM uses (no process, no user needed: only files owned by them).
const UID_A = 64_001;
const UID_B = 64_002;

let tmp: string;
const servers: Server[] = [];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'sbsock-'));
});

afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  rmSync(tmp, { recursive: true, force: true });
});

function ownerAndMode(path: string): { uid: number; gid: number; mode: number } {
  const st = lstatSync(path);
  return { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
}

/** A listening Unix socket at `path` owned by `uid`, as an X server of that user would make. */
async function socketOf(path: string, uid: number): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chownSync(path, uid, uid);
}

describe('shared socket dirs', () => {
  it('creates a missing dir owned by root with mode 1777', () => {
    const dir = join(tmp, '.X11-unix');
    ensureSharedSocketDir(dir);
    expect(ownerAndMode(dir)).toEqual({ uid: 0, gid: 0, mode: 0o1777 });
    // A second driver start changes nothing.
    ensureSharedSocketDir(dir);
    expect(ownerAndMode(dir)).toEqual({ uid: 0, gid: 0, mode: 0o1777 });
  });

  it('takes back a dir a VM user made, keeping the sockets in it', async () => {
    const dir = join(tmp, '.X11-unix');
    mkdirSync(dir, { mode: 0o755 });
    chownSync(dir, UID_A, UID_A);
    await socketOf(join(dir, 'X7'), UID_A);
    ensureSharedSocketDir(dir);
    expect(ownerAndMode(dir)).toEqual({ uid: 0, gid: 0, mode: 0o1777 });
    expect(lstatSync(join(dir, 'X7')).isSocket()).toBe(true);
  });

  it('refuses a symlink or a file in its place', () => {
    const link = join(tmp, '.X11-unix');
    mkdirSync(join(tmp, 'elsewhere'));
    symlinkSync(join(tmp, 'elsewhere'), link);
    expect(() => ensureSharedSocketDir(link)).toThrow(/not a directory/);
    const file = join(tmp, '.ICE-unix');
    writeFileSync(file, '');
    expect(() => ensureSharedSocketDir(file)).toThrow(/not a directory/);
  });

  it("a VM's sweep removes its own socket and lock, never the dir or another VM's socket", async () => {
    const dir = join(tmp, '.X11-unix');
    ensureSharedSocketDir(dir);
    await socketOf(join(dir, 'X5'), UID_A);
    await socketOf(join(dir, 'X6'), UID_B);
    writeFileSync(join(tmp, '.X5-lock'), '5\n');
    chownSync(join(tmp, '.X5-lock'), UID_A, UID_A);
    removeUserTempFiles(UID_A, [tmp]);
    expect(ownerAndMode(dir)).toEqual({ uid: 0, gid: 0, mode: 0o1777 });
    expect(() => lstatSync(join(dir, 'X5'))).toThrow(/ENOENT/);
    expect(() => lstatSync(join(tmp, '.X5-lock'))).toThrow(/ENOENT/);
    expect(lstatSync(join(dir, 'X6')).isSocket()).toBe(true);
  });

  it('never removes a socket dir that the swept user made: other users have sockets in it', async () => {
    const dir = join(tmp, '.ICE-unix');
    mkdirSync(dir, { mode: 0o1777 });
    chownSync(dir, UID_A, UID_A);
    await socketOf(join(dir, '100'), UID_A);
    await socketOf(join(dir, '200'), UID_B);
    removeUserTempFiles(UID_A, [tmp]);
    expect(lstatSync(dir).isDirectory()).toBe(true);
    expect(() => lstatSync(join(dir, '100'))).toThrow(/ENOENT/);
    expect(lstatSync(join(dir, '200')).isSocket()).toBe(true);
  });
});
