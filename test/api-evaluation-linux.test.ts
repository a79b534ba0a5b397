// Setup and grading in the guest, end to end through the API on real desktops (the linux driver
// under the real operator, the API on a real listener): uploaded blobs and URLs put into the VM,
// apps launched and files opened until their windows show in the window tree, verified commands,
// graders of commands, windows and files combined into a reward; a task's setup steps and grader
// used by `…/setup`, `…/grade` and a replay. The URL is served by an HTTP server of this test on
// loopback, which the API is configured to fetch from (public addresses only by default).
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeResult, SetupResult } from '../crds/index.ts';
import { seedAccount, startLinuxApiStack, waitFor, type LinuxApiStack } from './api-harness.ts';

let stack: LinuxApiStack;
let base: string;
let key: string;
let sb: string;
let files: http.Server;
let filesUrl: string;
let blobId: string;

const TOOL = '#!/bin/sh\necho "tool says $1"\n';
const NOTES = 'first line\nsecond line\n';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the API's JSON, asserted field by field
}

async function api(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, ...headers } };
  if (body !== undefined) {
    const raw = typeof body === 'string';
    init.body = raw ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = raw
      ? 'application/octet-stream'
      : 'application/json';
  }
  const res = await fetch(`${base}${url}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}
const on = (rest: string) => `/v1/sandboxes/${sb}${rest}`;
const setup = async (body: unknown, headers?: Record<string, string>) =>
  api('POST', on('/setup'), body, headers);
const grade = async (body: unknown) => api('POST', on('/grade'), body);
const fileText = async (p: string) => {
  const r = await fetch(`${base}${on(`/files?path=${encodeURIComponent(p)}`)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return r.status === 200 ? r.text() : undefined;
};

beforeAll(async () => {
  files = http.createServer((req, res) => {
    if (req.url === '/tool.sh') return res.end(TOOL);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  stack = await startLinuxApiStack('sandbay-eval-', { setupFetch: { allow: ['127.0.0.0/8'] } });
  base = stack.base;
  key = await seedAccount(stack.store, 'evals', 100_000_000);
  await waitFor(
    async () => (await api('GET', '/v1/platforms')).body.models[0].available_minis > 0,
    'the local Mac',
    60_000,
  );
  expect((await api('POST', '/v1/reservations', { hours: 24 })).body.status).toBe('active');
  sb = (
    await waitFor(
      async () => {
        const c = await api('POST', '/v1/sandboxes', {});
        return c.status === 201 ? c.body : undefined;
      },
      'a warm VM to take',
      90_000,
    )
  ).sandbox_id;
}, 150_000);

afterAll(async () => {
  await stack?.close();
  await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
}, 60_000);

describe('uploaded blobs', () => {
  it('stores bytes under their SHA-256; the same bytes again are the same blob', async () => {
    const first = await api('POST', '/v1/blobs?filename=notes.txt', NOTES);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      blob_id: `sha256-${sha256(NOTES)}`,
      bytes: NOTES.length,
      filename: 'notes.txt',
    });
    blobId = first.body.blob_id;
    const again = await api('POST', '/v1/blobs', NOTES);
    expect([again.status, again.body.blob_id]).toEqual([200, blobId]);
    expect((await api('GET', '/v1/blobs')).body.map((b: { blob_id: string }) => b.blob_id)).toEqual([blobId]);
    expect((await api('GET', `/v1/blobs/${blobId}`)).body.sha256).toBe(sha256(NOTES));
    expect((await api('GET', `/v1/blobs/sha256-${'0'.repeat(64)}`)).body.error).toBe('blob_not_found');
  });
});

describe('setup', () => {
  it('runs every kind of step on a real desktop: blobs and URLs in, apps up, files open, commands verified', async () => {
    const r = await setup({
      steps: [
        { type: 'download', blob: blobId, path: 'Documents/notes-eval.txt' },
        {
          type: 'download',
          url: `${filesUrl}/tool.sh`,
          path: 'bin/tool.sh',
          sha256: sha256(TOOL),
          executable: true,
        },
        { type: 'command', command: ['bin/tool.sh', 'hello'], expect: { stdout_equals: 'tool says hello' } },
        {
          type: 'launch',
          command: ['xterm', '-T', 'eval-term', '-e', 'sh'],
          wait_for: { name: 'eval-term' },
        },
        { type: 'open', path: 'Documents/notes-eval.txt' },
        { type: 'sleep', seconds: 0.1 },
        {
          type: 'command',
          command: 'cat ~/Documents/notes-eval.txt',
          expect: { stdout_matches: '^second line$' },
          attempts: 3,
        },
        // No wait_for: any top-level window that was not there before.
        { type: 'launch', command: ['xterm', '-T', 'eval-default', '-e', 'sh'] },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const result = r.body as SetupResult;
    expect(result).toMatchObject({ status: 'completed', failed_step: null, message: '8 steps completed' });
    expect(result.steps.map((s) => [s.type, s.status])).toEqual([
      ['download', 'ok'],
      ['download', 'ok'],
      ['command', 'ok'],
      ['launch', 'ok'],
      ['open', 'ok'],
      ['sleep', 'ok'],
      ['command', 'ok'],
      ['launch', 'ok'],
    ]);
    expect(result.steps[7]!.window).toBe('eval-default');
    expect(result.steps[1]).toMatchObject({ bytes: TOOL.length });
    expect(result.steps[2]).toMatchObject({ attempts: 1, exit_code: 0 });
    expect(result.steps[3]!.window).toBe('eval-term');
    expect(result.steps[4]!.window).toContain('notes-eval.txt');
    expect(await fileText('Documents/notes-eval.txt')).toBe(NOTES);
    // The windows the steps waited for are in the tree.
    const names = (await api('GET', on('/display/windows'))).body.map((w: { name: string }) => w.name);
    expect(names).toContain('eval-term');
    expect(names.some((n: string) => n.includes('notes-eval.txt'))).toBe(true);
  }, 120_000);

  it('a failed step says which and why; the steps after it are skipped', async () => {
    const r = await setup({
      steps: [
        { type: 'command', command: 'echo one >> ~/fail-marker' },
        { type: 'command', command: 'echo broken >&2; exit 3' },
        { type: 'command', command: 'echo two >> ~/fail-marker' },
      ],
    });
    expect(r.body).toMatchObject({
      status: 'failed',
      failed_step: 1,
      message: 'step 1 (command) failed: exited with 3, expected 0: broken',
    });
    expect(r.body.steps.map((s: { status: string }) => s.status)).toEqual(['ok', 'failed', 'skipped']);
    expect(await fileText('fail-marker')).toBe('one\n');
    const noWindow = await setup({
      steps: [{ type: 'launch', command: ['true'], wait_for: { name: 'never-there' }, timeout_s: 1 }],
    });
    expect(noWindow.body.message).toMatch(
      /^step 0 \(launch\) failed: no window matching \{"name":"never-there"\} after/,
    );
    const missing = await setup({ steps: [{ type: 'open', path: 'no/such/file.txt' }] });
    expect(missing.body.message).toBe(
      'step 0 (open) failed: opening it exited with 66: open: no such file: no/such/file.txt',
    );
    const badSum = await setup({
      steps: [{ type: 'download', blob: blobId, path: 'wrong-sum.txt', sha256: '0'.repeat(64) }],
    });
    expect(badSum.body.message).toMatch(
      /has SHA-256 [0-9a-f]{64}, expected 0{64}; wrong-sum.txt was removed/,
    );
    expect(await fileText('wrong-sum.txt')).toBeUndefined();
  }, 60_000);

  it('refuses a URL the server may not fetch (cloud metadata), as a failed step', async () => {
    const r = await setup({
      steps: [{ type: 'download', url: 'http://169.254.169.254/latest', path: 'meta' }],
    });
    expect(r.body.message).toMatch(/refused to fetch .*169\.254\.169\.254, which is not a public address/);
  });

  it('a step or check of an unknown kind is a 400 naming it, and nothing runs', async () => {
    const r = await setup({
      steps: [{ type: 'command', command: 'touch ~/should-not-exist' }, { type: 'teleport' }],
    });
    expect([r.status, r.body]).toEqual([
      400,
      {
        error: 'invalid_setup_step',
        message:
          'setup step 1 has an unknown type "teleport" (known: download, launch, open, command, sleep)',
      },
    ]);
    expect(await fileText('should-not-exist')).toBeUndefined();
    const g = await grade({ grader: { checks: [{ type: 'pixel', x: 1 }] } });
    expect([g.status, g.body.error, g.body.message]).toEqual([
      400,
      'invalid_grader',
      'check 0 has an unknown type "pixel" (known: command, window, file)',
    ]);
    expect((await setup({ steps: [], task_id: 'x' })).body.error).toBe('invalid_request');
  });

  it('with an Idempotency-Key a retried setup replays its answer and runs nothing twice', async () => {
    const body = { steps: [{ type: 'command', command: 'echo ran >> ~/idem-count' }] };
    const headers = { 'idempotency-key': 'setup-once' };
    const first = await setup(body, headers);
    const second = await setup(body, headers);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await fileText('idem-count')).toBe('ran\n');
  });
});

describe('grading', () => {
  it('combines command, window and file checks into a reward, reporting each', async () => {
    await api('PUT', on('/files?path=data.json'), JSON.stringify({ a: [{ b: 'y' }, { b: 'x' }] }));
    const r = await grade({
      grader: {
        combine: 'weighted',
        checks: [
          { type: 'command', command: 'echo True', expect: { stdout_contains: 'true', ignore_case: true } },
          { type: 'window', name: 'terminal up', match: { name: 'eval-term', role: 'window' } },
          { type: 'window', match: { name_contains: 'no-such-window' }, absent: true },
          { type: 'file', path: 'Documents/notes-eval.txt', contains: 'second line' },
          { type: 'file', path: 'data.json', json_path: '$.a[1].b', json_equals: 'x' },
          { type: 'command', command: 'echo 0.25', reward_from_stdout: true },
          { type: 'file', path: 'missing.txt', weight: 2 },
        ],
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const result = r.body as GradeResult;
    expect(result.checks.map((c) => [c.passed, c.reward])).toEqual([
      [true, 1],
      [true, 1],
      [true, 1],
      [true, 1],
      [true, 1],
      [true, 0.25],
      [false, 0],
    ]);
    expect(result.checks[1]).toMatchObject({
      name: 'terminal up',
      message: '"eval-term" (window) matches {"name":"eval-term","role":"window"}',
    });
    expect(result.checks[6]!.message).toBe('missing.txt does not exist');
    expect(result).toMatchObject({ combine: 'weighted', reward: 5.25 / 8 });
  });

  it("grades macOSWorld's [[command, score]] as `any` of scored command checks", async () => {
    const r = await grade({
      grader: {
        combine: 'any',
        checks: [
          {
            type: 'command',
            command: '[ -f ~/nope ] && echo "True" || echo "False"',
            expect: { stdout_contains: 'true', ignore_case: true },
          },
          {
            type: 'command',
            command: '[ -f ~/fail-marker ] && echo "True" || echo "False"',
            expect: { stdout_contains: 'true', ignore_case: true },
            score: 0.5,
          },
        ],
      },
    });
    expect(r.body.reward).toBe(0.5);
    expect(r.body.checks[0]).toMatchObject({
      passed: false,
      message: 'stdout does not contain "true"',
      stdout: 'False\n',
    });
  });

  it('takes a grader script as it is: exit 0 earns 1', async () => {
    expect((await grade({ grader: 'test -f ~/fail-marker' })).body.reward).toBe(1);
    expect((await grade({ grader: 'test -f ~/nope' })).body).toMatchObject({
      reward: 0,
      checks: [{ exit_code: 1 }],
    });
  });
});

describe('tasks', () => {
  const task = {
    id: 'evaltask',
    instruction: 'Nothing to do: setup and grader only',
    setup_script: 'echo script > ~/script-ran',
    setup: [
      { type: 'download', blob: '', path: 'task-notes.txt' },
      { type: 'command', command: 'cat ~/script-ran', expect: { stdout_equals: 'script' } },
    ],
    grader: {
      checks: [
        { type: 'file', path: 'task-notes.txt', contains: 'first line' },
        { type: 'file', path: 'script-ran', equals: 'script' },
      ],
    },
  };

  it('a task carries setup steps and a grader: checked on create, edited like its other fields', async () => {
    task.setup[0]!.blob = blobId;
    const bad = await api('POST', '/v1/me/tasks', { ...task, setup: [{ type: 'warp' }] });
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_setup_step']);
    expect((await api('GET', '/v1/me/tasks/evaltask')).status).toBe(404);
    const created = await api('POST', '/v1/me/tasks', task);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ setup: task.setup, grader: task.grader, has_grader: true });
    // An edit replaces the grader whole (a merge would keep the old `combine`).
    await api('PATCH', '/v1/me/tasks/evaltask', { grader: { combine: 'any', checks: task.grader.checks } });
    const edited = await api('PATCH', '/v1/me/tasks/evaltask', { grader: task.grader });
    expect(edited.body.grader).toEqual(task.grader);
    const refused = await api('PATCH', '/v1/me/tasks/evaltask', { grader: { checks: [{ type: 'file' }] } });
    expect([refused.status, refused.body.message]).toEqual([400, 'check 0 (file): it needs `path`']);
  });

  it('sets up and grades an agent’s sandbox by task id', async () => {
    const s = await setup({ task_id: 'evaltask' });
    expect(s.body).toMatchObject({ status: 'completed', message: '3 steps completed' });
    const g = await grade({ task_id: 'evaltask' });
    expect(g.body).toMatchObject({ reward: 1, combine: 'all' });
  });

  it('a replay runs the task’s setup steps and grades it with its grader', async () => {
    const started = await api('POST', '/v1/me/tasks/evaltask/replay', {});
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const done = await waitFor(
      async () => {
        const r = (await api('GET', `/v1/me/tasks/replays/${started.body.id}`)).body;
        return r.status === 'completed' || r.status === 'failed' ? r : undefined;
      },
      'the replay to end',
      180_000,
    );
    expect(done, JSON.stringify(done)).toMatchObject({
      status: 'completed',
      reward: 1,
      message: 'replayed 0 steps; grader: reward 1 (2 of 2 checks passed)',
    });
    expect(done.grade.checks.map((c: { passed: boolean }) => c.passed)).toEqual([true, true]);
  }, 240_000);

  it('a deleted blob is gone for the steps that name it', async () => {
    expect((await api('DELETE', `/v1/blobs/${blobId}`)).status).toBe(204);
    expect((await api('GET', `/v1/blobs/${blobId}`)).status).toBe(404);
    const r = await setup({ steps: [{ type: 'download', blob: blobId, path: 'late.txt' }] });
    expect(r.body.message).toBe(`step 0 (download) failed: blob ${blobId} not found`);
  });
});
