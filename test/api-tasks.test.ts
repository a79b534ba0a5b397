// The trajectory endpoints on the sim driver under the real operator: list, detail, ATIF, step
// screenshots, the ZIP download, the recording, and replays end to end (setup script, actions and
// grader reaching the sim guest). Tasks are written as a recorder leaves them (store + blob store).
import path from 'node:path';
import { Readable } from 'node:stream';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, SANDBOX_ID } from '../crds/index.ts';
import { ZERO_TIMINGS } from './operator-fixtures.ts';
import { createBlobStore, type BlobStore } from '../operator/blob-store.ts';
import { seedAccount, startApiStack, tempDir, waitFor, type ApiStack, type TempDir } from './api-harness.ts';
import { HoldingClock, seedTask, stepPng } from './task-fixtures.ts';
import { expectValidAtif } from './support/atif.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const simClock = new HoldingClock();
const DELETE_MS = 1;

let s: ApiStack;
let dir: TempDir;
let blobs: BlobStore;
let acme: string;
let acmeReservationKey: string;
let other: string;

const STEPS = [
  { function: 'click', args: { x: 10, y: 20 } },
  { function: 'type', args: { text: 'hello world' } },
  { function: 'hotkey', args: { keys: 'ctrl+s' } },
  { function: 'move', args: { x: 300, y: 200 } },
];

beforeAll(async () => {
  dir = await tempDir('sandbay-tasks-');
  blobs = createBlobStore(path.join(dir.dir, 'blobs'));
  s = await startApiStack(
    [{ name: 'mini-1' }],
    { blobs },
    { sim: { clock: simClock, timings: { ...ZERO_TIMINGS, deleteMs: DELETE_MS } } },
  );
  acme = await seedAccount(s.f.store, 'acme');
  other = await seedAccount(s.f.store, 'other');
  acmeReservationKey = (await s.reserve(acme)).key;
  await seedTask(s.f.store, blobs, 'acme', 'login', {
    instruction: 'Log in and save',
    category: 'forms',
    setupScript: 'mkdir -p /tmp/replay; echo ready > /tmp/replay/setup.txt',
    grader: 'test -f /tmp/replay/setup.txt',
    steps: STEPS,
    recording: Buffer.from('fake mp4 bytes for the test'),
    appState: { app: 'TextEdit' },
  });
  await seedTask(s.f.store, blobs, 'acme', 'ungraded', {
    steps: [{ function: 'type', args: { text: 'no grader' }, screenshot: false }],
  });
}, 60_000);
afterAll(async () => {
  simClock.release();
  await s?.cleanup();
  await dir?.cleanup();
});

describe('reading tasks', () => {
  it('lists the account’s tasks with their step counts', async () => {
    const r = await s.call(acme, 'GET', '/v1/me/tasks');
    expect(r.statusCode).toBe(200);
    const login = r.json().find((t: { id: string }) => t.id === 'login');
    expect(login).toMatchObject({
      instruction: 'Log in and save',
      category: 'forms',
      step_count: 4,
      phase: 'saved',
      has_grader: true,
      has_recording: true,
    });
    expect(Date.parse(login.created_at)).not.toBeNaN();
    expect((await s.call(other, 'GET', '/v1/me/tasks')).json()).toEqual([]);
  });

  it('shows one task in full: steps, app state, setup script', async () => {
    const r = await s.call(acme, 'GET', '/v1/me/tasks/login');
    expect(r.statusCode).toBe(200);
    const t = r.json();
    expect(t.setup_script).toContain('/tmp/replay/setup.txt');
    expect(t.app_state).toEqual({ app: 'TextEdit' });
    expect(t.recording_url).toBe('/v1/me/tasks/login/recording');
    expect(t.steps.map((x: { function: string }) => x.function)).toEqual(['click', 'type', 'hotkey', 'move']);
    expect(t.steps[1]).toMatchObject({
      index: 1,
      args: { text: 'hello world' },
      screenshot_url: '/v1/me/tasks/login/steps/1/screenshot',
    });
  });

  it('serves the task as valid ATIF: the instruction, then one agent step per action with its screenshot', async () => {
    const r = await s.call(acme, 'GET', '/v1/me/tasks/login/trajectory');
    expect(r.statusCode).toBe(200);
    const atif = r.json();
    expectValidAtif(atif);
    expect(atif).toMatchObject({
      schema_version: 'ATIF-v1.6',
      session_id: 'login',
      agent: { name: 'sandbay-collector' },
    });
    expect(atif.extra?.task).toMatchObject({
      id: 'login',
      instruction: 'Log in and save',
      category: 'forms',
      setup_script: 'mkdir -p /tmp/replay; echo ready > /tmp/replay/setup.txt',
      grader: 'test -f /tmp/replay/setup.txt',
      app_state: { app: 'TextEdit' },
    });
    expect(atif.steps).toHaveLength(5);
    expect(atif.steps[0]).toMatchObject({ step_id: 1, source: 'user', message: 'Log in and save' });
    expect(atif.steps[3]).toMatchObject({
      step_id: 4,
      source: 'agent',
      tool_calls: [{ tool_call_id: 'call-0002', function_name: 'hotkey', arguments: { keys: 'ctrl+s' } }],
      observation: {
        results: [
          {
            source_call_id: 'call-0002',
            content: [{ type: 'image', source: { media_type: 'image/png', path: 'images/step-0002.png' } }],
          },
        ],
      },
      extra: { index: 2, screenshot: { url: '/v1/me/tasks/login/steps/2/screenshot' } },
    });
    const shot = await s.call(acme, 'GET', (atif.steps[3]!.extra!.screenshot as { url: string }).url);
    expect(shot.statusCode).toBe(200);
    expect(shot.headers['content-type']).toBe('image/png');
    expect(shot.rawPayload.equals(await stepPng(2))).toBe(true);
    const ungraded: unknown = (await s.call(acme, 'GET', '/v1/me/tasks/ungraded/trajectory')).json();
    expectValidAtif(ungraded);
    expect(ungraded.steps[1]!.observation).toBeUndefined();
    expect(ungraded.steps[1]!.extra!.screenshot).toBeNull();
    expect((await s.call(acme, 'GET', '/v1/me/tasks/ungraded/steps/0/screenshot')).json().error).toBe(
      'step_not_found',
    );
  });

  it('downloads a ZIP of trajectory.json, task.json, setup.sh, grader.sh and one PNG per step', async () => {
    const r = await s.call(acme, 'GET', '/v1/me/tasks/login/download');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('application/zip');
    const files = unzipSync(new Uint8Array(r.rawPayload));
    expect(Object.keys(files).sort()).toEqual([
      'grader.sh',
      'images/step-0000.png',
      'images/step-0001.png',
      'images/step-0002.png',
      'images/step-0003.png',
      'setup.sh',
      'task.json',
      'trajectory.json',
    ]);
    const atif: unknown = JSON.parse(Buffer.from(files['trajectory.json']!).toString('utf8'));
    expectValidAtif(atif, Object.keys(files));
    const agentSteps = atif.steps.filter((step) => step.source === 'agent');
    expect(agentSteps).toHaveLength(4);
    for (const [index, step] of agentSteps.entries()) {
      const part = (
        step.observation!.results[0]!.content as { type: string; source: { path: string } }[]
      )[0]!;
      const png = Buffer.from(files[part.source.path]!);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(png.equals(await stepPng(index))).toBe(true);
    }
    expect(Buffer.from(files['setup.sh']!).toString()).toBe(
      'mkdir -p /tmp/replay; echo ready > /tmp/replay/setup.txt',
    );
    expect(JSON.parse(Buffer.from(files['task.json']!).toString())).toMatchObject({
      id: 'login',
      step_count: 4,
      has_recording: true,
    });
  });

  it('serves the recording as MP4, and 404 when the task has none', async () => {
    const r = await s.call(acme, 'GET', '/v1/me/tasks/login/recording');
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toBe('video/mp4');
    expect(r.body).toBe('fake mp4 bytes for the test');
    const none = await s.call(acme, 'GET', '/v1/me/tasks/ungraded/recording');
    expect(none.statusCode).toBe(404);
    expect(none.json().error).toBe('recording_not_found');
  });

  it('never serves a blob outside the account’s task prefix', async () => {
    const foreign = await blobs.put('tasks/other/secret.png', Readable.from([await stepPng(9)]));
    await s.f.store.create({
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: { name: 'sneaky', namespace: 'acme' },
      spec: { instruction: 'x' },
    });
    await s.f.store.patch(
      { kind: 'Task', namespace: 'acme', name: 'sneaky' },
      {
        status: {
          steps: [{ index: 0, at: '2026-01-05T09:00:00Z', function: 'move', args: {}, screenshot: foreign }],
        },
      },
      { subresource: 'status' },
    );
    for (const url of ['/v1/me/tasks/sneaky/steps/0/screenshot', '/v1/me/tasks/sneaky/download']) {
      const r = await s.call(acme, 'GET', url);
      expect(r.statusCode, url).toBe(500);
      expect(r.json().error).toBe('artifact_unavailable');
    }
  });
});

describe('who may see tasks', () => {
  const urls = [
    ['GET', '/v1/me/tasks/login'],
    ['GET', '/v1/me/tasks/login/trajectory'],
    ['GET', '/v1/me/tasks/login/download'],
    ['GET', '/v1/me/tasks/login/recording'],
    ['GET', '/v1/me/tasks/login/steps/0/screenshot'],
    ['POST', '/v1/me/tasks/login/replay'],
  ] as const;

  it('answers 404 for another account’s task, like a task that does not exist', async () => {
    for (const [method, url] of urls) {
      const r = await s.call(other, method, url);
      expect(r.statusCode, url).toBe(404);
      expect(r.json().error, url).toBe('task_not_found');
      const missing = await s.call(acme, method, url.replace('login', 'no-such-task'));
      expect(missing.json().error, url).toBe('task_not_found');
    }
    expect((await s.call(acme, 'GET', '/v1/me/tasks/Not_A_Name')).statusCode).toBe(404);
    expect((await s.call(acme, 'GET', `/v1/me/tasks/replays/rp-${'0'.repeat(32)}`)).statusCode).toBe(404);
  });

  it('answers 403 account_key_required to a reservation key, 401 without a key', async () => {
    for (const [method, url] of [...urls, ['GET', '/v1/me/tasks'] as const]) {
      const r = await s.call(acmeReservationKey, method, url);
      expect(r.statusCode, url).toBe(403);
      expect(r.json().error).toBe('account_key_required');
      expect((await s.call(undefined, method, url)).statusCode, url).toBe(401);
    }
  });
});

describe('replays', () => {
  interface ReplayWire {
    id: string;
    status: string;
    sandbox_id: string | null;
    steps_done: number;
    steps_total: number;
    reward: number | null;
    message: string | null;
  }
  const settled = (id: string) =>
    waitFor(async () => {
      const r = (await s.call(acme, 'GET', `/v1/me/tasks/replays/${id}`)).json<ReplayWire>();
      return r.status === 'completed' || r.status === 'failed' ? r : undefined;
    }, `replay ${id} to finish`);

  it('boots a fresh sandbox, runs the setup script and the actions, grades, and deletes the sandbox', async () => {
    const start = await s.call(acme, 'POST', '/v1/me/tasks/login/replay');
    expect(start.statusCode).toBe(201);
    const started = start.json<ReplayWire>();
    expect(started.id).toMatch(/^rp-[0-9a-f]{32}$/);
    expect(started.sandbox_id).toMatch(SANDBOX_ID);
    expect(['pending', 'running', 'completed']).toContain(started.status);

    const done = await settled(started.id);
    expect(done).toMatchObject({ status: 'completed', steps_done: 4, steps_total: 4, reward: 1 });
    expect(done.message).toContain('grader exited with 0');
    // The sandbox is gone (or going), and another account cannot see the replay.
    await waitFor(
      async () => (await s.call(acme, 'GET', `/v1/sandboxes/${started.sandbox_id}`)).statusCode === 404,
      'the replay sandbox to be deleted',
    );
    expect((await s.call(other, 'GET', `/v1/me/tasks/replays/${started.id}`)).statusCode).toBe(404);

    // What reached the guest: the setup script's file, the typed text, the last pointer move.
    const vm = s.f.sim
      .inspect(s.f.addressOf('mini-1'))!
      .vms.find((v) => v.files.includes('/tmp/replay/setup.txt'));
    expect(vm).toBeDefined();
    expect(vm!.typed).toBe('hello world');
    expect(vm!.cursor).toEqual({ x: 300, y: 200 });
    expect(vm!.inputEvents).toBeGreaterThanOrEqual(3);
    simClock.release();
  });

  it('reports reward null for a task without a grader', async () => {
    const start = await s.call(acme, 'POST', '/v1/me/tasks/ungraded/replay', {});
    expect(start.statusCode).toBe(201);
    const done = await settled(start.json<ReplayWire>().id);
    expect(done).toMatchObject({ status: 'completed', steps_done: 1, steps_total: 1, reward: null });
  });

  it('refuses a task still recording, and a reservation that is not the account’s', async () => {
    await seedTask(s.f.store, blobs, 'acme', 'busy', { steps: [], phase: 'recording' });
    const busy = await s.call(acme, 'POST', '/v1/me/tasks/busy/replay');
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error).toBe('task_not_ready');
    const foreign = await s.call(acme, 'POST', '/v1/me/tasks/login/replay', {
      reservation_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe('reservation_not_found');
    const bad = await s.call(acme, 'POST', '/v1/me/tasks/login/replay', { sandbox: 'x' });
    expect(bad.statusCode).toBe(400);
  });
});
