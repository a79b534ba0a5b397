// `GET /v1/me/tasks/{id}/harbor` on the sim driver: the Harbor task directory's files (task.toml
// as Harbor's TaskConfig reads it, instruction, the setup as sandbay steps with the blobs they name,
// tests/test.sh, the oracle solution) and the refusals: an unknown task, a reservation key, and a
// task whose grader or steps cannot be written, named. The scripts run for real in
// test/harbor-live.test.ts.
import path from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../operator/blob-store.ts';
import { seedAccount, startApiStack, tempDir, type ApiStack, type TempDir } from './api-harness.ts';
import { readHarborArchive, text } from './support/harbor-dir.ts';

let s: ApiStack;
let dir: TempDir;
let acme: string;
let acmeReservationKey: string;
let other: string;

/** Actions as an old `sandbay-atif/1` export carries them (a task import takes it). */
function trajectory(actions: { function: string; args: Record<string, unknown> }[]) {
  return {
    schema_version: 'sandbay-atif/1',
    task: { instruction: 'from the import' },
    steps: actions.map((a, index) => ({ index, tool_calls: [{ function: a.function, args: a.args }] })),
  };
}

async function createTask(body: Record<string, unknown>): Promise<void> {
  const r = await s.call(acme, 'POST', '/v1/me/tasks', body);
  expect(r.statusCode, r.body).toBe(201);
}

beforeAll(async () => {
  dir = await tempDir('sandbay-harbor-');
  s = await startApiStack([{ name: 'mini-1' }], { blobs: createBlobStore(path.join(dir.dir, 'blobs')) });
  acme = await seedAccount(s.f.store, 'acme');
  other = await seedAccount(s.f.store, 'other');
  acmeReservationKey = (await s.reserve(acme)).key;
}, 60_000);
afterAll(async () => {
  await s?.cleanup();
  await dir?.cleanup();
});

describe('a task as a Harbor task directory', () => {
  it('writes task.toml, instruction.md, the setup, tests/test.sh and the oracle solution', async () => {
    const upload = await s.call(acme, 'POST', '/v1/blobs?filename=data.csv', Buffer.from('a,b\n1,2\n'), {
      'content-type': 'application/octet-stream',
    });
    expect(upload.statusCode).toBe(201);
    const blob = upload.json<{ blob_id: string }>().blob_id;
    const setup = [
      { type: 'download', blob, path: 'data.csv' },
      { type: 'launch', command: ['mousepad', 'data.csv'], wait_for: { name_contains: 'data.csv' } },
    ];
    const grader = { combine: 'all', checks: [{ type: 'file', path: 'out.txt', contains: 'done' }] };
    await createTask({
      id: 'edit',
      instruction: 'Edit the data\nand save it as out.txt',
      category: 'office',
      setup_script: 'echo ready > ~/ready.txt',
      setup,
      grader,
      trajectory: trajectory([
        { function: 'click', args: { x: 10, y: 20 } },
        { function: 'type', args: { text: 'done' } },
        { function: 'hotkey', args: { keys: 'cmd+s' } },
      ]),
    });

    const r = await s.call(acme, 'GET', '/v1/me/tasks/edit/harbor');
    expect(r.statusCode, r.body).toBe(200);
    expect(r.headers['content-type']).toBe('application/gzip');
    expect(r.headers['content-disposition']).toBe('attachment; filename="edit.harbor.tar.gz"');
    const files = await readHarborArchive(r.rawPayload);
    expect([...files.keys()].filter((p) => files.get(p)!.type === 'File').sort()).toEqual([
      `environment/blobs/${blob}`,
      'environment/setup.json',
      'environment/setup.sh',
      'instruction.md',
      'solution/actions.json',
      'solution/solve.sh',
      'task.toml',
      'tests/test.sh',
    ]);
    // Executable scripts, readable data.
    for (const p of ['tests/test.sh', 'solution/solve.sh', 'environment/setup.sh'])
      expect(files.get(p)!.mode & 0o777, p).toBe(0o755);
    expect(files.get('task.toml')!.mode & 0o777).toBe(0o644);

    // task.toml as Harbor's TaskConfig reads it: org/name, the verifier's and agent's limits.
    const toml = parse(text(files, 'task.toml'));
    expect(toml).toEqual({
      schema_version: '1.1',
      task: {
        name: 'acme/edit',
        description: 'Edit the data',
        keywords: ['sandbay', 'computer-use', 'office'],
      },
      metadata: {
        source: 'sandbay',
        sandbay_task: 'edit',
        category: 'office',
        recorded_at: expect.any(String),
        step_count: 3,
        graded: true,
      },
      verifier: { timeout_sec: 600 },
      agent: { timeout_sec: 1800 },
    });
    expect(String((toml.task as { name: string }).name)).toMatch(
      /^[a-zA-Z0-9][a-zA-Z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*$/,
    );
    expect(text(files, 'instruction.md')).toBe('Edit the data\nand save it as out.txt\n');

    // The setup as a replay runs it: the script as a command step, then the steps; the blob's bytes.
    expect(JSON.parse(text(files, 'environment/setup.json'))).toEqual([
      { type: 'command', command: 'echo ready > ~/ready.txt', timeout_s: 600 },
      ...setup,
    ]);
    expect(text(files, 'environment/setup.sh')).toBe('echo ready > ~/ready.txt');
    expect(text(files, `environment/blobs/${blob}`)).toBe('a,b\n1,2\n');

    expect(JSON.parse(text(files, 'solution/actions.json'))).toEqual([
      { function: 'click', args: { x: 10, y: 20 } },
      { function: 'type', args: { text: 'done' } },
      { function: 'hotkey', args: { keys: 'cmd+s' } },
    ]);
    const solve = text(files, 'solution/solve.sh');
    expect(solve).toMatch(/^#!\/bin\/sh\n/);
    // cmd is Control on a Linux desktop, as the driver maps it; keys go as keysyms.
    expect(solve).toContain('# step 2: hotkey\nxdotool key 0xffe3+0x73\n');
    expect(solve).toContain("xdotool type --delay 12 -- 'done'");
    const test = text(files, 'tests/test.sh');
    expect(test).toMatch(/^#!\/bin\/sh\n/);
    expect(test).toContain('# check 0 (file)');
    expect(test).toContain('/logs/verifier/reward.txt');
  });

  it('writes a task without a grader with a test.sh that gives reward 0 and says why', async () => {
    await createTask({
      id: 'free',
      instruction: 'Anything',
      trajectory: trajectory([{ function: 'move', args: { x: 1, y: 1 } }]),
    });
    const files = await readHarborArchive((await s.call(acme, 'GET', '/v1/me/tasks/free/harbor')).rawPayload);
    expect(text(files, 'tests/test.sh')).toContain("echo 'the sandbay task has no grader: reward 0'");
    expect(parse(text(files, 'task.toml')).metadata).toMatchObject({ graded: false, step_count: 1 });
    expect(files.has('environment/setup.sh')).toBe(false);
    expect(JSON.parse(text(files, 'environment/setup.json'))).toEqual([]);
  });

  it('answers the same bytes for the same task', async () => {
    const a = await s.call(acme, 'GET', '/v1/me/tasks/free/harbor');
    const b = await s.call(acme, 'GET', '/v1/me/tasks/free/harbor');
    expect(Buffer.compare(a.rawPayload, b.rawPayload)).toBe(0);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    [
      'a window check',
      {
        grader: {
          checks: [
            { type: 'command', command: 'true' },
            { type: 'window', name: 'dialog', match: { name: 'Save' } },
          ],
        },
      },
      /^check 1 \(window, "dialog"\) reads the window tree, which sandbay reads from outside the VM .* POST \/v1\/sandboxes\/\{id\}\/grade/,
    ],
    [
      'JSONPath beyond names and indexes',
      { grader: { checks: [{ type: 'file', path: 'a.json', json_path: '$..price' }] } },
      /^check 0 \(file\): json_path "\$\.\.price" uses JSONPath beyond names and indexes/,
    ],
    [
      'a recorded step a replay cannot carry out',
      {
        trajectory: trajectory([
          { function: 'move', args: { x: 1, y: 1 } },
          { function: 'teleport', args: {} },
        ]),
      },
      /^recorded step 1 \(teleport\): unknown function "teleport"/,
    ],
    [
      'a recorded click without coordinates',
      { trajectory: trajectory([{ function: 'click', args: { x: 'left' } }]) },
      /^recorded step 0 \(click\): x must be an integer/,
    ],
  ])('refuses a task with %s: 422 task_not_exportable naming it', async (_, body, message) => {
    const id = `bad-${Math.abs(
      JSON.stringify(body)
        .split('')
        .reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7),
    )}`;
    await createTask({ id, instruction: 'x', ...body });
    const r = await s.call(acme, 'GET', `/v1/me/tasks/${id}/harbor`);
    expect(r.statusCode).toBe(422);
    expect(r.json().error).toBe('task_not_exportable');
    expect(r.json().message).toMatch(message);
  });

  it('refuses a task whose download step names a blob the account deleted', async () => {
    const upload = await s.call(acme, 'POST', '/v1/blobs', Buffer.from('gone soon'), {
      'content-type': 'application/octet-stream',
    });
    const blob = upload.json<{ blob_id: string }>().blob_id;
    await createTask({ id: 'lost-blob', instruction: 'x', setup: [{ type: 'download', blob, path: 'x' }] });
    expect((await s.call(acme, 'DELETE', `/v1/blobs/${blob}`)).statusCode).toBe(204);
    const r = await s.call(acme, 'GET', '/v1/me/tasks/lost-blob/harbor');
    expect(r.statusCode).toBe(422);
    expect(r.json()).toEqual({
      error: 'task_not_exportable',
      message: `a download step names blob ${blob}, which the account no longer has`,
    });
  });

  it('answers 404 for an unknown task or another account’s, and 403 to a reservation key', async () => {
    for (const [key, url, status, code] of [
      [acme, '/v1/me/tasks/nope/harbor', 404, 'task_not_found'],
      [acme, '/v1/me/tasks/NOT..A..NAME/harbor', 404, 'task_not_found'],
      [other, '/v1/me/tasks/free/harbor', 404, 'task_not_found'],
      [acmeReservationKey, '/v1/me/tasks/free/harbor', 403, 'account_key_required'],
      [undefined, '/v1/me/tasks/free/harbor', 401, 'missing_api_key'],
    ] as const) {
      const r = await s.call(key, 'GET', url);
      expect([r.statusCode, r.json().error], url).toEqual([status, code]);
    }
  });
});
