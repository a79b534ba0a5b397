// Harbor export on a live sandbay (the linux driver's real desktops, the real operator, the customer
// API on loopback):
// - the exported tests/test.sh, run in a sandbox, gives the reward sandbay's own grader gives in the
//   same sandbox, check by check, over every kind of check test.sh computes;
// - a task exported with `sandbay tasks export --harbor DIR` (the CLI in its own process) runs in a
//   Harbor-shaped trial (test/fixtures/harbor-interface/run_trial.py) with the environment class of
//   docs/agents.md, taken from the page: the oracle's solve.sh replays the actions with xdotool and
//   scores 1; without it the same task scores 0.
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, type Grader, type Task } from '../crds/index.ts';
import { harborTestScript } from '../api/compat/harbor/test-script.ts';
import { Client, type Sandbox } from '../sdk/typescript/src/index.ts';
import { apiCall } from './support/api-call.ts';
import { startLiveSandbay, waitForWarmVm, type LiveSandbay } from './support/live-sandbay.ts';
import { tempDir, type TempDir } from './api-harness.ts';

const run = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..');
const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');
const PY = '/usr/bin/python3';

let live: LiveSandbay;
let client: Client;
let scratch: TempDir;

beforeAll(async () => {
  live = await startLiveSandbay('harbor');
  client = new Client({ apiKey: live.accountKey, baseUrl: live.url });
  scratch = await tempDir('sandbay-harbor-live-');
}, 300_000);

afterAll(async () => {
  await live?.close();
  await scratch?.cleanup();
}, 60_000);

function taskWith(grader: Grader): Task {
  return {
    apiVersion: API_VERSION,
    kind: 'Task',
    metadata: { name: 'eq', namespace: live.account },
    spec: { instruction: 'x', grader },
  };
}

describe('tests/test.sh against sandbay’s grader', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await client.create({ ephemeral: false });
    const r = await sb.exec(
      [
        'mkdir -p ~/eq && cd ~/eq',
        "printf 'Hello World\\nsecond line\\n' > hello.txt",
        `printf '%s' '{"a":{"b c":[0,{"x":1.0,"y":[true,null]}]},"n":3,"s":"3"}' > data.json`,
        "printf 'not json' > broken.json",
      ].join(' && '),
    );
    expect(r.return_code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await sb?.delete();
  }, 60_000);

  const cases: [string, Grader][] = [
    [
      'command checks: exit codes, stdout and stderr expectations, ignore_case, argv',
      {
        checks: [
          { type: 'command', command: 'echo True' },
          { type: 'command', command: 'exit 3', expect: { exit_code: 3 } },
          { type: 'command', command: 'exit 3' },
          { type: 'command', command: 'exit 5', expect: { exit_code: null, stdout_contains: '' } },
          { type: 'command', command: 'echo True', expect: { stdout_equals: 'true', ignore_case: true } },
          { type: 'command', command: 'echo True', expect: { stdout_equals: 'true' } },
          { type: 'command', command: "printf 'a\\nTrue\\nb'", expect: { stdout_matches: '^True$' } },
          { type: 'command', command: 'echo oops >&2', expect: { stderr_contains: 'oops' } },
          {
            type: 'command',
            command: ['printf', '%s', "it's $HOME"],
            expect: { stdout_equals: "it's $HOME" },
          },
          { type: 'command', command: 'sleep 5', timeout_s: 1 },
        ],
        combine: 'weighted',
      },
    ],
    [
      'reward_from_stdout, scores and weights',
      {
        combine: 'weighted',
        checks: [
          { type: 'command', command: 'echo; echo 0.25', reward_from_stdout: true, weight: 2 },
          { type: 'command', command: 'echo 1.5', reward_from_stdout: true },
          { type: 'command', command: 'echo nope', reward_from_stdout: true },
          { type: 'command', command: 'true', score: 0.5, weight: 3 },
        ],
      },
    ],
    [
      'file checks: exists, equals, contains, matches, ignore_case',
      {
        combine: 'any',
        checks: [
          { type: 'file', path: 'eq/hello.txt', equals: 'Hello World\nsecond line', score: 0.3 },
          { type: 'file', path: 'eq/hello.txt', contains: 'hello world', ignore_case: true, score: 0.4 },
          { type: 'file', path: 'eq/hello.txt', matches: '^second', score: 0.2 },
          { type: 'file', path: 'eq/missing.txt', score: 0.9 },
          { type: 'file', path: 'eq/missing.txt', exists: false, score: 0.1 },
          { type: 'file', path: 'eq/hello.txt', exists: false },
        ],
      },
    ],
    [
      'file checks on JSON: names, indexes, values, what is not JSON',
      {
        combine: 'weighted',
        checks: [
          { type: 'file', path: 'eq/data.json', json_path: "$.a['b c'][1].x", json_equals: 1 },
          { type: 'file', path: 'eq/data.json', json_path: '$.a["b c"][1].y', json_equals: [true, null] },
          { type: 'file', path: 'eq/data.json', json_path: '$.n', json_equals: '3' },
          { type: 'file', path: 'eq/data.json', json_path: '$.s', json_equals: '3' },
          { type: 'file', path: 'eq/data.json', json_path: '$.a.nope' },
          { type: 'file', path: 'eq/data.json', json_path: '$.a' },
          { type: 'file', path: '/etc/hostname', exists: true },
          { type: 'file', path: 'eq/broken.json', json_path: '$.a' },
        ],
      },
    ],
    [
      'all: the smallest',
      {
        checks: [
          { type: 'command', command: 'true' },
          { type: 'file', path: 'eq/none' },
        ],
      },
    ],
  ];

  it.each(cases)(
    '%s',
    async (_, grader) => {
      const expected = await sb.grade(grader);
      await sb.uploadBytes(harborTestScript(taskWith(grader)), '/tmp/eq-test.sh');
      const r = await sb.exec('rm -rf /tmp/harbor/logs; sh /tmp/eq-test.sh', { timeout: 300 });
      expect(r.return_code, r.stderr).toBe(0);
      const reward = Number(
        new TextDecoder().decode(await sb.downloadBytes('/tmp/harbor/logs/verifier/reward.txt')),
      );
      expect(reward).toBeCloseTo(expected.reward, 9);
      // Check by check: the same outcome, in order.
      const seen = [...r.stdout.matchAll(/^check (\d+) (passed|failed) \(reward ([^)]*)\)/gm)].map((m) => [
        Number(m[1]),
        m[2] === 'passed',
        Number(m[3]),
      ]);
      expect(seen).toEqual(expected.checks.map((c) => [c.index, c.passed, expect.closeTo(c.reward, 9)]));
    },
    120_000,
  );
});

describe('an exported task in a Harbor trial with the environment of docs/agents.md', () => {
  let taskDir: string;
  let envModule: string;

  beforeAll(async () => {
    const blob = await client.uploadBlob(new TextEncoder().encode('{"n":3}'), { filename: 'data.json' });
    const body = {
      id: 'harbor-note',
      instruction: 'Type a line into the terminal, and note that the API ran',
      category: 'terminal',
      setup_script: 'echo ready > ~/ready.txt',
      setup: [
        { type: 'download', blob: blob.blob_id, path: 'data.json' },
        {
          type: 'launch',
          command: [
            'xterm',
            '-T',
            'harbor-note',
            '-geometry',
            '60x8+40+40',
            '-e',
            'sh',
            '-c',
            'read line; echo "$line" > ~/typed.txt',
          ],
          wait_for: { name: 'harbor-note' },
        },
        // The keyboard focus, so that what the oracle types lands in the terminal.
        {
          type: 'command',
          command: '[ "$(xdotool getactivewindow getwindowname 2>/dev/null)" = harbor-note ]',
          attempts: 300,
          interval_ms: 100,
        },
      ],
      grader: {
        checks: [
          { type: 'file', path: 'typed.txt', equals: 'typed by the oracle' },
          { type: 'command', command: 'cat ~/api.txt', expect: { stdout_equals: 'api' } },
          { type: 'file', path: 'data.json', json_path: '$.n', json_equals: 3 },
          { type: 'file', path: 'ready.txt', contains: 'ready' },
        ],
      },
      trajectory: {
        schema_version: 'sandbay-atif/1',
        task: { instruction: 'imported' },
        steps: [
          { index: 0, tool_calls: [{ function: 'type', args: { text: 'typed by the oracle' } }] },
          { index: 1, tool_calls: [{ function: 'key', args: { key: 'return' } }] },
          { index: 2, tool_calls: [{ function: 'exec', args: { command: 'echo api > ~/api.txt' } }] },
        ],
      },
    };
    const created = await apiCall(live.url, live.accountKey, 'POST', '/v1/me/tasks', body);
    expect(created.status, created.bytes.toString()).toBe(201);

    taskDir = path.join(scratch.dir, 'harbor-note');
    const cli = await run(
      NODE,
      ['cli/bin.ts', 'tasks', 'export', 'harbor-note', '--harbor', taskDir, '--url', live.url],
      {
        cwd: ROOT,
        env: { ...process.env, SANDBAY_API_KEY: live.accountKey },
      },
    );
    expect(cli.stdout).toContain(`wrote ${taskDir}: `);
    expect((await readdir(taskDir, { recursive: true })).sort()).toEqual([
      'environment',
      'environment/blobs',
      `environment/blobs/${blob.blob_id}`,
      'environment/setup.json',
      'environment/setup.sh',
      'instruction.md',
      'solution',
      'solution/actions.json',
      'solution/solve.sh',
      'task.toml',
      'tests',
      'tests/test.sh',
    ]);

    // The environment class exactly as docs/agents.md shows it.
    const doc = await readFile(path.join(ROOT, 'docs', 'agents.md'), 'utf8');
    const at = doc.indexOf('<!-- harbor-environment:');
    const code = /```python\n([\s\S]*?)^```$/m.exec(doc.slice(at))?.[1];
    expect(code).toContain('class SandbayEnvironment(BaseEnvironment):');
    envModule = path.join(scratch.dir, 'sandbay_harbor.py');
    await writeFile(envModule, code!);
  }, 120_000);

  async function trial(agent: 'oracle' | 'nop') {
    await waitForWarmVm(live.url, live.accountKey);
    const trialDir = path.join(scratch.dir, `trial-${agent}`);
    await mkdir(trialDir);
    const fixtures = path.join(ROOT, 'test', 'fixtures', 'harbor-interface');
    const r = await run(PY, [path.join(fixtures, 'run_trial.py'), envModule, taskDir, trialDir, agent], {
      env: {
        ...process.env,
        PYTHONPATH: [fixtures, path.join(ROOT, 'sdk', 'python', 'src')].join(':'),
        SANDBAY_URL: live.url,
        SANDBAY_API_KEY: live.accountKey,
        PYTHONDONTWRITEBYTECODE: '1',
      },
      maxBuffer: 16 << 20,
    });
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      reward: number;
      test_stdout: string;
      oracle_exit?: number;
      oracle_log?: string;
    };
  }

  it('scores 1 with the oracle: setup from environment/, solve.sh replays the actions, test.sh grades', async () => {
    const result = await trial('oracle');
    expect(result.oracle_exit, result.oracle_log).toBe(0);
    expect(result.test_stdout).toContain('reward 1 (all of 4 checks)');
    expect(result.reward).toBe(1);
    // The trial deleted its sandbox.
    expect(await client.list()).toEqual([]);
  }, 300_000);

  it('scores 0 without it, the setup’s files there and the agent’s work missing', async () => {
    const result = await trial('nop');
    expect(result.test_stdout).toMatch(/check 0 failed \(reward 0\): typed\.txt does not exist/);
    expect(result.test_stdout).toMatch(/check 2 passed \(reward 1\): data\.json is as expected/);
    expect(result.test_stdout).toMatch(/check 3 passed/);
    expect(result.reward).toBe(0);
  }, 300_000);
});
