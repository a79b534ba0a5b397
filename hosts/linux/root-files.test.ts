// Files root creates in a dir the VM's user writes to: whatever the user put at the name is never
// opened, written through or chowned.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createFileFor } from './root-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbay-root-files-'));
const nobody = { uid: 65534, gid: 65534 };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('creates the file with its content, mode and owner', () => {
  const file = join(dir, 'cookie');
  createFileFor(file, 'secret\n', nobody, 0o600);
  expect(readFileSync(file, 'utf8')).toBe('secret\n');
  const st = statSync(file);
  expect([st.uid, st.gid, st.mode & 0o777]).toEqual([nobody.uid, nobody.gid, 0o600]);
});

it('refuses a link at the name, and neither writes through it nor gives its target away', () => {
  const target = join(dir, 'machine-file');
  writeFileSync(target, 'root only', { mode: 0o600 });
  const link = join(dir, 'link');
  symlinkSync(target, link);
  expect(() => createFileFor(link, 'x', nobody)).toThrow(/EEXIST/);
  expect(readFileSync(target, 'utf8')).toBe('root only');
  expect(statSync(target).uid).toBe(0);
  // A dangling link (the tenant's guess at a name before root makes it) is refused the same way.
  const dangling = join(dir, 'dangling');
  symlinkSync(join(dir, 'not-yet'), dangling);
  expect(() => createFileFor(dangling, 'x', nobody)).toThrow(/EEXIST/);
  expect(() => lstatSync(join(dir, 'not-yet'))).toThrow(/ENOENT/);
});

it('refuses a FIFO at the name at once, without opening it', () => {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  expect(() => createFileFor(fifo, 'x', nobody)).toThrow(/EEXIST/);
  expect(lstatSync(fifo).isFIFO()).toBe(true);
});
