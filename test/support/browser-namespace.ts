// The names of test browsers' network namespaces (test/support/browser.ts), and the sweep of those a
// killed test process left: kept apart from browser.ts so that the run's teardown does not load
// playwright.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';

const NAMESPACE = /^sbtest-chromium-[0-9a-f]{8}$/;

/** A fresh namespace name for one test browser. */
export const browserNamespaceName = () => `sbtest-chromium-${randomBytes(4).toString('hex')}`;

/**
 * Removes the test browsers' namespaces that no process is in any more (a killed test process's:
 * its bridge ends with it, Chromium with its pipe); a running test's browser keeps its own. One
 * younger than `minAgeMs` is left too: a test of another run may have just made it and not yet
 * started its bridge in it (milliseconds).
 */
export function sweepAbandonedBrowserNamespaces(
  minAgeMs = 60_000,
  now = Date.now(),
  /** Only these (a test of the sweep, which must not take other tests' browsers). */
  among?: readonly string[],
): string[] {
  const names = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter((name) => NAMESPACE.test(name) && (!among || among.includes(name)));
  const removed: string[] = [];
  for (const name of names) {
    if (now - statSync(`/run/netns/${name}`).mtimeMs < minAgeMs) continue;
    if (execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).trim() !== '') continue;
    execFileSync('ip', ['netns', 'del', name]);
    removed.push(name);
  }
  return removed;
}
