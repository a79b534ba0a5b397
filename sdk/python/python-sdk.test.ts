// The Python SDK (sdk/python, package `sandbay`) run by vitest: its unittest suite against a live
// sandbay on the linux driver with the system Python (/usr/bin/python3, where Debian's paramiko
// lives), mypy --strict over it (Debian's python3-mypy), and its wheel built offline with the
// installed setuptools.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLiveSandbay, type LiveSandbay } from '../../test/support/live-sandbay.ts';
import { seedTask } from '../../test/task-fixtures.ts';

const run = promisify(execFile);
const PY = '/usr/bin/python3';
const HERE = import.meta.dirname;
let live: LiveSandbay;

beforeAll(async () => {
  live = await startLiveSandbay('sdkpy', { reserve: false });
  await seedTask(live.store, live.blobs, live.account, 'pyhello', {
    setupScript: 'echo set > ~/setup.txt',
    grader: 'test -f ~/setup.txt',
    steps: [{ function: 'move', args: { x: 10, y: 10 } }],
    recording: Buffer.from('\0\0\0\x18ftypisom'),
  });
}, 180_000);

afterAll(async () => {
  await live?.close();
}, 60_000);

it('the unittest suite passes against a live sandbay: every method of the sync and async clients', async () => {
  // Asynchronously: the server under test runs in this process.
  const result = await run(PY, ['-m', 'unittest', '-v', 'tests.test_live'], {
    cwd: HERE,
    env: {
      ...process.env,
      PYTHONPATH: path.join(HERE, 'src'),
      SANDBAY_URL: live.url,
      SANDBAY_API_KEY: live.accountKey,
      SANDBAY_TEST_TASK: 'pyhello',
      PYTHONDONTWRITEBYTECODE: '1',
    },
    maxBuffer: 16 << 20,
  }).catch((err: { stdout: string; stderr: string }) => err);
  expect(result.stderr).toMatch(/\nOK\n?$/);
  expect(result.stderr).toMatch(/Ran 22 tests/);
}, 900_000);

it('keeps its kept-alive connection clean when a reader stops before a chunked body ends', async () => {
  const result = await run(PY, ['-m', 'unittest', '-v', 'tests.test_transport'], {
    cwd: HERE,
    env: { ...process.env, PYTHONPATH: path.join(HERE, 'src'), PYTHONDONTWRITEBYTECODE: '1' },
  }).catch((err: { stdout: string; stderr: string }) => err);
  expect(result.stderr).toMatch(/\nOK\n?$/);
}, 60_000);

it('type-checks under mypy --strict (the package is PEP 561 typed; the tests use it as typed)', async () => {
  // --cache-dir=/dev/null: mypy writes no cache beside the sources.
  const result = await run(PY, ['-m', 'mypy', '--cache-dir=/dev/null', 'src/sandbay', 'tests'], {
    cwd: HERE,
  }).catch((err: { stdout: string }) => err);
  expect(result.stdout).toMatch(/^Success: no issues found/);
}, 300_000);

it('builds a wheel offline that ships py.typed', async () => {
  const out = await mkdtemp(path.join(tmpdir(), 'sandbay-wheel-'));
  try {
    // Built from a copy: setuptools writes build/ and *.egg-info beside the sources.
    const project = path.join(out, 'project');
    await cp(HERE, project, { recursive: true, filter: (src) => !src.includes('__pycache__') });
    await run(
      PY,
      ['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '--no-index', '-w', out, project],
      {
        env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
      },
    );
    const [wheel] = (await readdir(out)).filter((f) => f.endsWith('.whl'));
    expect(wheel).toMatch(/^sandbay-0\.1\.0-py3-none-any\.whl$/);
    const files = Object.keys(unzipSync(await readFile(path.join(out, wheel!))));
    expect(files).toEqual(
      expect.arrayContaining(['sandbay/py.typed', 'sandbay/client.py', 'sandbay/_ssh.py']),
    );
    expect(files.some((f) => f.startsWith('tests/'))).toBe(false);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 120_000);
