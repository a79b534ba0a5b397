import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkTools, missingToolsError } from './tools.ts';

describe('linux driver tool check', () => {
  it('finds everything on a machine set up by scripts/setup.sh', () => {
    expect(checkTools().missing).toEqual([]);
  });

  it('names each missing binary with the package that provides it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'sandbay-tools-'));
    try {
      const r = checkTools([empty]);
      expect(r.missing).toEqual(
        expect.arrayContaining([
          'Xvfb (package xvfb)',
          'x11vnc (package x11vnc)',
          'sshd (package openssh-server)',
        ]),
      );
      expect(r.missing).not.toContain(expect.stringContaining('python3-gi'));
      const err = missingToolsError(r);
      expect(err.code).toBe('missing_tool');
      expect(err.message).toMatch(
        /apt-get install xvfb xfce4-session xfwm4 xfce4-panel xfdesktop4 x11vnc openssh-server /,
      );
    } finally {
      rmSync(empty, { recursive: true });
    }
  });
});
