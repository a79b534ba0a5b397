// The shared Host lifecycle suite, on real Linux desktops.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runDriverSuite } from '../driver-suite.ts';
import { createLinuxDriver } from './index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-linux-suite-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

runDriverSuite({
  name: 'linux',
  newDriver: () => createLinuxDriver({ dataDir, discardOnClose: true }),
  hostRef: { name: 'suite', address: '127.0.0.1', model: 'm4' },
});
