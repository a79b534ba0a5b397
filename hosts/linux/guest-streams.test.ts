// The guest streams contract (streaming exec, forwarded ports, clipboard) on a real desktop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runGuestStreamsSuite } from '../guest-streams-suite.ts';
import { createLinuxDriver } from './index.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-linux-streams-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

runGuestStreamsSuite({
  name: 'linux',
  newDriver: () => createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 }),
  hostRef: { name: 'streams', address: '127.0.0.1', model: 'm4' },
  serve: (port, dir) =>
    `cd ${dir} && nohup /usr/bin/python3 -m http.server ${port} --bind 127.0.0.1 >/dev/null 2>&1 &`,
  processes: true,
});
