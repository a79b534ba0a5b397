import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayNumber, readCookie } from './x11-auth.ts';

const run = promisify(execFile);

describe('Xauthority cookies', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sbgt-xauth-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds the cookie of the asked display in a file written by xauth', async () => {
    const file = join(dir, 'two');
    await run('xauth', ['-f', file, 'add', ':7', 'MIT-MAGIC-COOKIE-1', '00112233445566778899aabbccddeeff']);
    await run('xauth', ['-f', file, 'add', ':8', 'MIT-MAGIC-COOKIE-1', 'ffeeddccbbaa99887766554433221100']);
    const cookie = await readCookie(file, ':8');
    expect(cookie.name).toBe('MIT-MAGIC-COOKIE-1');
    expect(Buffer.from(cookie.data, 'latin1').toString('hex')).toBe('ffeeddccbbaa99887766554433221100');
    expect(Buffer.from((await readCookie(file, ':7.0')).data, 'latin1').toString('hex')).toBe(
      '00112233445566778899aabbccddeeff',
    );
  });

  it('says which display it lacks, and keeps the complete entries of a truncated file', async () => {
    const file = join(dir, 'truncated');
    await run('xauth', ['-f', file, 'add', ':3', 'MIT-MAGIC-COOKIE-1', '00112233445566778899aabbccddeeff']);
    await expect(readCookie(file, ':4')).rejects.toThrow(/no MIT-MAGIC-COOKIE-1 for display :4/);
    const { readFile } = await import('node:fs/promises');
    const whole = await readFile(file);
    await writeFile(file, Buffer.concat([whole, whole.subarray(0, 9)]));
    expect((await readCookie(file, ':3')).data.length).toBe(16);
  });

  it('accepts only local display names', () => {
    expect(displayNumber(':12')).toBe('12');
    expect(displayNumber(':12.0')).toBe('12');
    expect(() => displayNumber('otherhost:0')).toThrow(/not a local X display/);
  });
});
