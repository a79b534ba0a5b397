// How an SSH exit status or exit signal becomes an exit code.
import { expect, it } from 'vitest';
import { exitCode } from './ssh-client.ts';

it('is the status, or 128 + the number of the signal ssh2 names (SIGHUP is 129, SIGKILL 137)', () => {
  expect(exitCode(3)).toBe(3);
  expect(exitCode(null, 'SIGHUP')).toBe(129);
  expect(exitCode(null, 'SIGKILL')).toBe(137);
  expect(exitCode(null, 'SIGTERM')).toBe(143);
  expect(exitCode(undefined)).toBe(-1);
});
