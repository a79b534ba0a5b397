// The sweep of test browsers' namespaces: only those no process is in, and not one just made.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { browserNamespaceName, sweepAbandonedBrowserNamespaces } from './browser-namespace.ts';

const made: string[] = [];
const add = () => {
  const name = browserNamespaceName();
  execFileSync('ip', ['netns', 'add', name]);
  made.push(name);
  return name;
};
const exists = (name: string) => existsSync(`/run/netns/${name}`);

afterAll(() => {
  for (const name of made) if (exists(name)) execFileSync('ip', ['netns', 'del', name]);
});

describe.skipIf(process.getuid?.() !== 0)('sweepAbandonedBrowserNamespaces', () => {
  it('removes an empty namespace once a minute old; keeps one a process is in', async () => {
    const empty = add();
    const inUse = add();
    const sleeper = spawn('ip', ['netns', 'exec', inUse, 'sleep', '600'], { stdio: 'ignore' });
    try {
      const inside = () => execFileSync('ip', ['netns', 'pids', inUse], { encoding: 'utf8' }).trim() !== '';
      while (!inside()) await new Promise((resolve) => setTimeout(resolve, 5));
      // Just made: perhaps another run's, whose bridge is not in it yet.
      expect(sweepAbandonedBrowserNamespaces()).not.toContain(empty);
      expect(exists(empty)).toBe(true);
      // Two minutes on; among this test's own only, since another test's browser may be starting.
      const removed = sweepAbandonedBrowserNamespaces(60_000, Date.now() + 120_000, [empty, inUse]);
      expect(removed).toContain(empty);
      expect(removed).not.toContain(inUse);
      expect(exists(empty)).toBe(false);
      expect(exists(inUse)).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
  });
});
