// The examples (examples/) run as a user runs them, against a live sandbay on the linux driver: the
// agent loops for Anthropic's and OpenAI's computer-use tools in TypeScript and Python (the model
// scripted, the sandbox real) and the replay of a task, so that what docs/agents.md shows stays true.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLiveSandbay, waitForWarmVm, type LiveSandbay } from './support/live-sandbay.ts';
import { seedTask } from './task-fixtures.ts';

const run = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..');
let live: LiveSandbay;

beforeAll(async () => {
  live = await startLiveSandbay('examples');
  await seedTask(live.store, live.blobs, live.account, 'move-once', {
    setupScript: 'echo set > ~/setup.txt',
    grader: 'test -f ~/setup.txt',
    steps: [{ function: 'move', args: { x: 10, y: 10 } }],
    recording: Buffer.from('\0\0\0\x18ftypisom'),
  });
}, 240_000);

afterAll(async () => {
  await live?.close();
}, 60_000);

/** Runs an example with the user's environment: the service's URL and the account key. */
async function example(cmd: string, file: string): Promise<string> {
  await waitForWarmVm(live.url, live.accountKey);
  const { stdout } = await run(cmd, [path.join(ROOT, 'examples', file)], {
    cwd: ROOT,
    env: {
      ...process.env,
      SANDBAY_URL: live.url,
      SANDBAY_API_KEY: live.accountKey,
      PYTHONPATH: path.join(ROOT, 'sdk/python/src'),
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  return stdout;
}

it.each([
  [process.execPath, 'anthropic-agent.ts', 'hello from claude', 'image'],
  [process.execPath, 'openai-agent.ts', 'hello from openai', 'computer_screenshot'],
  ['/usr/bin/python3', 'anthropic_agent.py', 'hello from claude (python)', 'image'],
  ['/usr/bin/python3', 'openai_agent.py', 'hello from openai (python)', 'computer_screenshot'],
])(
  '%s %s: the scripted model types into the sandbox, the answer is read back',
  async (cmd, file, answer, shot) => {
    const out = await example(cmd, file);
    expect(out).toContain(`answer: ${answer}\n`);
    expect(out.split('\n').filter((l) => l.includes('→'))).toHaveLength(4);
    expect(out).toContain(shot);
    // The sandbox was ephemeral: the example's end deleted it.
    const list = await fetch(`${live.url}/v1/sandboxes`, {
      headers: { authorization: `Bearer ${live.accountKey}` },
    });
    expect(((await list.json()) as { state: string }[]).filter((s) => s.state === 'running')).toEqual([]);
  },
  300_000,
);

it('replay-task.ts: replays the account task to its verdict', async () => {
  const out = await example(process.execPath, 'replay-task.ts');
  expect(out).toContain('task move-once:');
  expect(out).toMatch(/replay \S+: completed, 1\/1 steps/);
}, 600_000);
