// Evaluation runs end to end through the API on real desktops (the linux driver under the real
// operator, the API on a real listener): a small task set of our own for the linux desktops, with
// an OSWorld and a macOSWorld task imported from their files (test/fixtures/), run K times each on
// fresh sandboxes; a results table in JSON and CSV whose every row says why it passed, failed or
// errored. An agent endpoint (an HTTP server of this test on loopback, which the server is
// configured to call) acts on its attempt's sandbox with the sandbox key it is given, which opens
// nothing else, and says when it is done.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluationAttempt, Sandbox } from '../crds/index.ts';
import { seedAccount, startLinuxApiStack, waitFor, type LinuxApiStack } from './api-harness.ts';

const runFile = promisify(execFile);
const ROOT = path.join(import.meta.dirname, '..');
const NODE = path.join(ROOT, 'node_modules', '.bin', 'node');

let stack: LinuxApiStack;
let key: string;
let agentServer: http.Server;
let agentUrl: string;
/** What the agent saw: each call it got, and the answers of its own calls to sandbay. */
const agentLog: { request: Record<string, string>; answers: Record<string, Answer> }[] = [];

const fixture = (dir: string, file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures', dir, `${file}.json`), 'utf8'));

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the API's JSON, asserted field by field
  text: string;
}

async function call(
  base: string,
  bearer: string,
  method: string,
  url: string,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json');
  return { status: res.status, text, body: json && text ? JSON.parse(text) : undefined };
}
const api = (method: string, url: string, body?: unknown) => call(stack.base, key, method, url, body);

async function runEnded(id: string): Promise<Answer> {
  return waitFor(
    async () => {
      const r = await api('GET', `/v1/me/evaluation-runs/${id}`);
      return r.body.status === 'completed' || r.body.status === 'cancelled' ? r : undefined;
    },
    `evaluation run ${id} to end`,
    900_000,
  );
}

/** The agent: acts through sandbay with the key it was given, then says it is done. */
async function actAsAgent(request: Record<string, string>): Promise<void> {
  const answers: Record<string, Answer> = {};
  const as = (method: string, url: string, body?: unknown) =>
    call(request.api_url!, request.api_key!, method, url, body);
  const on = `/v1/sandboxes/${request.sandbox_id}`;
  answers.exec = await as('POST', `${on}/exec`, { command: 'echo agent was here > ~/agent.txt' });
  answers.screenshot = await as('GET', `${on}/screenshot`);
  answers.tasks = await as('GET', '/v1/me/tasks');
  answers.sandboxes = await as('GET', '/v1/sandboxes');
  answers.delete = await as('DELETE', on);
  answers.grade = await as('POST', `${on}/grade`, { task_id: request.task_id });
  answers.done = await as('POST', request.done_url!.slice(request.api_url!.length), { message: 'wrote it' });
  agentLog.push({ request, answers });
}

beforeAll(async () => {
  agentServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string>;
      // Accepted at once; the agent acts after answering and says `done` on its own.
      res.writeHead(202, { 'content-type': 'application/json' }).end('{}');
      void actAsAgent(request);
    });
  });
  await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
  agentUrl = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}/act`;
  stack = await startLinuxApiStack('sandbay-evalrun-', { setupFetch: { allow: ['127.0.0.0/8'] } });
  key = await seedAccount(stack.store, 'labs', 100_000_000);
  await waitFor(
    async () => (await api('GET', '/v1/platforms')).body.models[0].available_minis > 0,
    'the local Mac',
    60_000,
  );
  expect((await api('POST', '/v1/reservations', { hours: 24 })).body.status).toBe('active');
  const tasks = [
    {
      id: 'greets',
      category: 'files',
      instruction: 'Leave a greeting in ~/greeting.txt.',
      setup: [{ type: 'command', command: 'echo hello > ~/greeting.txt' }],
      grader: {
        checks: [{ type: 'command', command: 'cat ~/greeting.txt', expect: { stdout_contains: 'hello' } }],
      },
    },
    {
      id: 'never-done',
      category: 'files',
      instruction: 'Create /nowhere.',
      grader: 'test -e /nowhere',
    },
    {
      id: 'broken-setup',
      category: 'shell',
      instruction: 'Anything.',
      setup: [{ type: 'command', command: 'echo broken >&2; exit 3' }],
      grader: 'true',
    },
  ];
  for (const t of tasks) expect((await api('POST', '/v1/me/tasks', t)).status).toBe(201);
}, 150_000);

afterAll(async () => {
  await stack?.close();
  await new Promise<void>((resolve) => (agentServer ? agentServer.close(() => resolve()) : resolve()));
}, 60_000);

describe('an evaluation run', () => {
  it('refuses what it could not carry out, naming it, and writes nothing', async () => {
    const cases: [unknown, number, string, RegExp][] = [
      [{ tasks: ['greets'], mode: 'agent' }, 400, 'invalid_evaluation_run', /agent\.url/],
      [{ tasks: ['greets', 'no-such-task'], mode: 'replay' }, 404, 'task_not_found', /no-such-task/],
      [{ tasks: ['greets'], mode: 'replay', attempts: 0 }, 400, 'invalid_request', /attempts/],
    ];
    await api('POST', '/v1/me/tasks', { id: 'ungraded', instruction: 'x' });
    cases.push([
      { tasks: ['ungraded'], mode: 'replay' },
      400,
      'invalid_evaluation_run',
      /ungraded has no grader/,
    ]);
    for (const [body, status, error, message] of cases) {
      const r = await api('POST', '/v1/me/evaluation-runs', body);
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([status, error]);
      expect(r.body.message).toMatch(message);
    }
    expect((await api('GET', '/v1/me/evaluation-runs')).body).toEqual([]);
    expect((await api('GET', '/v1/me/evaluation-runs/ev-0123456789abcdef')).body.error).toBe(
      'evaluation_run_not_found',
    );
  });

  it('runs our tasks and imported OSWorld and macOSWorld ones K times, each result saying why', async () => {
    const osworld = await api('POST', '/v1/me/tasks/import', {
      format: 'osworld',
      task: fixture('osworld', 'os/e0df059f-28a6-4169-924f-b9623e7184cc'),
      options: { client_password: 'password' },
    });
    expect(osworld.status, osworld.text).toBe(201);
    const macosworld = await api('POST', '/v1/me/tasks/import', {
      format: 'macosworld',
      task: fixture('macosworld', 'multi_apps/18f27e33-05c8-20f0-031a-96cbb066ea99'),
    });
    expect(macosworld.status, macosworld.text).toBe(201);
    const tasks = ['greets', 'never-done', 'broken-setup', osworld.body.id, macosworld.body.id];
    const created = await api('POST', '/v1/me/evaluation-runs', { tasks, attempts: 2, mode: 'replay' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ status: 'pending', mode: 'replay', attempts: 2, tasks });
    const run = await runEnded(created.body.id);
    expect(run.body).toMatchObject({
      status: 'completed',
      counts: { total: 10, queued: 0, running: 0, passed: 2, failed: 4, errored: 4, cancelled: 0 },
      message: '2 of 10 passed (4 failed, 4 errored, 0 cancelled)',
    });

    const results = await api('GET', `/v1/me/evaluation-runs/${created.body.id}/results`);
    expect(results.status).toBe(200);
    const rows = results.body.rows as {
      task: string;
      attempt: number;
      outcome: string;
      reward: number | null;
      message: string;
      trajectory_id: string | null;
      sandbox_id: string;
    }[];
    expect(rows.map((r) => [r.task, r.attempt, r.outcome])).toEqual(
      tasks.flatMap((t, i) =>
        [1, 2].map((k) => [t, k, ['passed', 'failed', 'errored', 'failed', 'errored'][i]]),
      ),
    );
    const byTask = (t: string) => rows.filter((r) => r.task === t);
    for (const r of byTask('greets')) {
      expect(r.reward).toBe(1);
      expect(r.message).toMatch(/^passed: replayed 0 steps; grader: reward 1/);
    }
    for (const r of byTask('never-done'))
      expect(r.message).toMatch(/^failed: replayed 0 steps; grader exited with 1/);
    for (const r of byTask('broken-setup')) {
      expect(r.reward).toBeNull();
      expect(r.trajectory_id).toBeNull();
      expect(r.message).toMatch(/^setup step 0 \(command\).*3/);
    }
    // OSWorld's Ubuntu task sets up (its `sudo` and `pyautogui` lines are not checked, as in its
    // harness) and fails its exact_match: the directory was not renamed.
    for (const r of byTask(osworld.body.id)) {
      expect(r.reward).toBe(0);
      expect(r.message).toMatch(/^failed: replayed 0 steps; grader: reward 0 .*check 0 \(exact_match/);
    }
    // macOSWorld's task must prepare without an error (force_error_free_prep): no osascript here.
    for (const r of byTask(macosworld.body.id)) expect(r.message).toMatch(/^setup step 0 \(command\)/);

    expect(results.body.by_task.greets).toMatchObject({
      attempts: 2,
      passed: 2,
      pass_rate: 1,
      mean_reward: 1,
    });
    expect(results.body.by_category).toMatchObject({
      files: { attempts: 4, passed: 2, graded: 4, pass_rate: 0.5 },
      shell: { attempts: 2, errored: 2, pass_rate: 0 },
    });
    expect(results.body.overall).toMatchObject({ attempts: 10, passed: 2, errored: 4, pass_rate: 0.2 });

    // Each graded attempt kept its trajectory; every sandbox is gone.
    const trajectory = await api('GET', `/v1/me/tasks/${byTask('greets')[0]!.trajectory_id}/trajectory`);
    expect(trajectory.status).toBe(200);
    expect(trajectory.body.schema_version).toMatch(/^ATIF-v1/);
    // The run deleted each attempt's sandbox as the attempt ended; a deletion finishes once its VM
    // is released (a finalizer), which on a loaded machine can be after the run's own end.
    const runSandboxes = async () =>
      (await stack.store.list<Sandbox>('Sandbox', { namespace: 'labs' })).items.filter((s) =>
        rows.some((r) => r.sandbox_id === s.metadata.name),
      );
    expect((await runSandboxes()).every((s) => s.metadata.deletionTimestamp)).toBe(true);
    await waitFor(async () => (await runSandboxes()).length === 0, "the run's sandboxes gone", 120_000);

    const csv = await api('GET', `/v1/me/evaluation-runs/${created.body.id}/results.csv`);
    expect(csv.status).toBe(200);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'task,category,attempt,outcome,reward,duration_s,message,attempt_id,sandbox_id,trajectory_id,started_at,finished_at',
    );
    expect(lines).toHaveLength(11);
    expect(lines[1]).toMatch(/^greets,files,1,passed,1,[0-9.]+,"?passed: replayed 0 steps/);
  }, 1_000_000);

  it('calls an agent endpoint with a key that acts on its sandbox only, and grades once it is done', async () => {
    await api('POST', '/v1/me/tasks', {
      id: 'agent-writes',
      category: 'agents',
      instruction: 'Write "agent was here" to ~/agent.txt.',
      grader: {
        checks: [
          { type: 'command', command: 'cat ~/agent.txt', expect: { stdout_contains: 'agent was here' } },
        ],
      },
    });
    const created = await api('POST', '/v1/me/evaluation-runs', {
      tasks: ['agent-writes'],
      mode: 'agent',
      agent: { url: agentUrl, timeout_s: 120 },
    });
    expect(created.status, created.text).toBe(201);
    const run = await runEnded(created.body.id);
    expect(run.body.counts).toMatchObject({ total: 1, passed: 1 });
    const [seen] = agentLog;
    expect(seen!.request).toMatchObject({
      run_id: created.body.id,
      task_id: 'agent-writes',
      instruction: 'Write "agent was here" to ~/agent.txt.',
      api_url: stack.base,
    });
    const a = seen!.answers;
    expect(a.exec).toMatchObject({ status: 200, body: { return_code: 0 } });
    expect(a.screenshot!.status).toBe(200);
    // Nothing but its sandbox's computer-use routes: not the account, not deleting or grading.
    for (const refused of [a.tasks, a.sandboxes, a.delete, a.grade])
      expect([refused!.status, refused!.body.error]).toEqual([403, 'sandbox_key_not_allowed']);
    expect(a.done).toMatchObject({ status: 200, body: { ok: true } });

    const { rows } = (await api('GET', `/v1/me/evaluation-runs/${created.body.id}/results`)).body;
    expect(rows[0]).toMatchObject({ outcome: 'passed', reward: 1 });
    expect(rows[0].message).toMatch(/^passed: the agent said it was done \(wrote it\); grader: reward 1/);
    // The key died with the attempt.
    const after = await call(
      stack.base,
      seen!.request.api_key!,
      'GET',
      `/v1/sandboxes/${seen!.request.sandbox_id}`,
    );
    expect(after.status).toBe(401);
    const attempt = await stack.store.get<EvaluationAttempt>({
      kind: 'EvaluationAttempt',
      namespace: 'labs',
      name: rows[0].attempt_id,
    });
    expect(attempt?.status?.agentAnswer).toEqual({ status: 202, done: false });
  }, 300_000);

  it('`sandbay evaluations run` (the CLI in its own process) waits for the run and prints each attempt and the pass rate', async () => {
    const cli = (...args: string[]) =>
      runFile(NODE, ['cli/bin.ts', 'evaluations', ...args, '--url', stack.base], {
        cwd: ROOT,
        env: { ...process.env, SANDBAY_API_KEY: key },
      });
    const { stdout, stderr } = await cli('run', 'greets', 'never-done', '--mode', 'replay');
    const id = /^(ev-[0-9a-f]{16}): 2 attempts$/m.exec(stderr)?.[1];
    expect(id, stderr).toBeDefined();
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TASK +ATTEMPT +OUTCOME +REWARD +MESSAGE$/);
    expect(lines[1]).toMatch(/^greets +1 +passed +1 +passed: /);
    expect(lines[2]).toMatch(/^never-done +1 +failed +0 +failed: /);
    expect(lines[3]).toBe(`${id} completed: 1 of 2 passed (50%), 0 errored`);
    const csv = await cli('results', id!, '--csv');
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^task,category,attempt,outcome,reward,/);
    // A refusal is the API's code and message on one line, and exit 1.
    const refused = await cli('run', 'no-such-task', '--mode', 'replay').catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(refused).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: 4\d\d \w+: .*no-such-task/),
    });
  }, 300_000);
});
