import { describe, expect, it } from 'vitest';
import type { WindowNode } from '../../hosts/driver.ts';
import { combine } from './graders.ts';
import { findWindow, patternMatches, unmetExpectation } from './matchers.ts';

const node = (name: string, role: string, extra: Partial<WindowNode> = {}): WindowNode => ({
  name,
  role,
  x: 0,
  y: 0,
  width: 10,
  height: 10,
  ...extra,
});

describe('window matching', () => {
  const tree = [
    node('notes.txt - Mousepad', 'window', {
      app: 'Mousepad',
      children: [node('Save', 'push button'), node('', 'text', { focused: true })],
    }),
    node('Terminal', 'window', { app: 'Xfce4-terminal' }),
  ];

  it('finds windows and their accessibility children by every field', () => {
    expect(findWindow(tree, { name_contains: 'notes.txt' })?.app).toBe('Mousepad');
    expect(findWindow(tree, { role: 'push button', name: 'Save' })?.name).toBe('Save');
    expect(findWindow(tree, { role: 'text', focused: true })?.role).toBe('text');
    expect(findWindow(tree, { app: 'xfce4-TERMINAL', ignore_case: true })?.name).toBe('Terminal');
    expect(findWindow(tree, { name_matches: '^Term', focused: false })?.name).toBe('Terminal');
    expect(findWindow(tree, { name: 'save' })).toBeUndefined();
  });
});

describe('command expectations', () => {
  const result = { stdout: 'Result: TRUE\n', stderr: 'warn\n', return_code: 0, timed_out: false };

  it('checks exit code (0 by default, null: any), stdout and stderr', () => {
    expect(unmetExpectation(result)).toBeUndefined();
    expect(unmetExpectation({ ...result, return_code: 2 })).toBe('exited with 2, expected 0');
    expect(unmetExpectation({ ...result, return_code: 2 }, { exit_code: null })).toBeUndefined();
    expect(unmetExpectation(result, { stdout_contains: 'true', ignore_case: true })).toBeUndefined();
    expect(unmetExpectation(result, { stdout_contains: 'true' })).toBe('stdout does not contain "true"');
    expect(unmetExpectation(result, { stdout_equals: 'Result: TRUE' })).toBeUndefined();
    expect(unmetExpectation(result, { stdout_matches: 'T[RU]+E$' })).toBeUndefined();
    expect(unmetExpectation(result, { stderr_contains: 'warn' })).toBeUndefined();
    expect(unmetExpectation({ ...result, timed_out: true, return_code: 124 })).toBe('timed out');
  });

  it('checks several texts that must all be there and texts that must not (OSWorld include/exclude)', () => {
    const out = { ...result, stdout: 'spotify is /snap/bin/spotify\n', stderr: 'Error: x\n' };
    expect(
      unmetExpectation(out, { stdout_contains: ['spotify', '/snap'], stdout_excludes: ['not found'] }),
    ).toBe(undefined);
    expect(unmetExpectation(out, { stdout_contains: ['spotify', 'vlc'] })).toBe(
      'stdout does not contain "vlc"',
    );
    expect(unmetExpectation(out, { stdout_excludes: ['not found', 'snap/bin'] })).toBe(
      'stdout contains "snap/bin"',
    );
    expect(unmetExpectation(out, { stderr_excludes: ['error:'], ignore_case: true })).toBe(
      'stderr contains "error:"',
    );
    expect(unmetExpectation(out, { stderr_contains: ['Error'], stderr_excludes: [] })).toBeUndefined();
  });

  it('matches in linear time a pattern that makes backtracking engines take forever', () => {
    // (a+)+$ against 5,000 a's then a b: exponential for a backtracking engine, nothing for RE2.
    expect(patternMatches('^(a+)+$', `${'a'.repeat(5000)}b`)).toBe(false);
  });
});

describe('combining checks', () => {
  const c = (reward: number, weight = 1) => ({
    index: 0,
    type: 'command',
    passed: reward > 0,
    reward,
    weight,
    message: '',
  });

  it('all: the smallest; any: the largest; weighted: the weighted mean', () => {
    expect(combine('all', [c(1), c(0.5)])).toBe(0.5);
    expect(combine('all', [c(1), c(0)])).toBe(0);
    expect(combine('any', [c(0), c(0.5)])).toBe(0.5);
    expect(combine('weighted', [c(1, 3), c(0, 1)])).toBe(0.75);
    expect(combine('weighted', [c(1, 0)])).toBe(0);
  });
});
