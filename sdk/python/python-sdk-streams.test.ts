// The Python SDK's streaming exec, forwarded ports and clipboard (sdk/python/tests/test_streams.py)
// against a live sandbay on the linux driver, with the system Python; and the Kubernetes Python
// client's exec WebSocket on the same endpoint.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLiveSandbay, type LiveSandbay } from '../../test/support/live-sandbay.ts';

const run = promisify(execFile);
const HERE = import.meta.dirname;
let live: LiveSandbay;

beforeAll(async () => {
  live = await startLiveSandbay('sdkpystreams');
}, 180_000);

afterAll(async () => {
  await live?.close();
}, 60_000);

it('streams exec output, forwards a port and carries the clipboard from Python, sync and async', async () => {
  const result = await run('/usr/bin/python3', ['-m', 'unittest', '-v', 'tests.test_streams'], {
    cwd: HERE,
    env: {
      ...process.env,
      PYTHONPATH: path.join(HERE, 'src'),
      SANDBAY_URL: live.url,
      SANDBAY_API_KEY: live.accountKey,
      SANDBAY_ECHO_SERVER: fileURLToPath(new URL('../../test/fixtures/port-echo-server.py', import.meta.url)),
      PYTHONDONTWRITEBYTECODE: '1',
    },
    maxBuffer: 16 << 20,
  }).catch((err: { stdout: string; stderr: string }) => err);
  expect(result.stderr, result.stdout).toMatch(/\nOK\n?$/);
  expect(result.stderr).toMatch(/Ran 8 tests/);
}, 600_000);
