// The replay reconciler on a sim fleet: grading, failures (setup script, unknown action, sandbox
// refused), and a restart that resumes from status.stepsDone instead of starting over.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, type Replay, type Sandbox } from '../crds/index.ts';
import { createBlobStore, type BlobStore } from '../operator/blob-store.ts';
import { startOperator } from '../operator/index.ts';
import { ZERO_TIMINGS, startSimFleet, waitFor, type SimFleet } from './operator-fixtures.ts';
import { HoldingClock, seedTask } from './task-fixtures.ts';

const simClock = new HoldingClock();
let f: SimFleet;
let blobs: BlobStore;
let seq = 0;

beforeAll(async () => {
  simClock.release();
  f = await startSimFleet([{ name: 'mini-1' }], {
    sim: { clock: simClock, timings: { ...ZERO_TIMINGS, deleteMs: 1 } },
  });
  blobs = createBlobStore(path.join(f.dir, 'blobs'));
  await f.account('acme', 100_000_000);
  await f.reserve('acme', 'r1', {});
  await f.reservationSettled('acme', 'r1');
  await f.poolsReady();
}, 60_000);
afterAll(async () => {
  simClock.release();
  await f?.cleanup();
});

async function replay(task: string, reservation = 'r1'): Promise<Replay> {
  return f.store.create<Replay>({
    apiVersion: API_VERSION,
    kind: 'Replay',
    metadata: { name: `rp-${String(++seq).padStart(32, '0')}`, namespace: 'acme' },
    spec: { task, reservation },
  });
}

function finished(name: string): Promise<Replay> {
  return waitFor(async () => {
    const r = await f.store.get<Replay>({ kind: 'Replay', namespace: 'acme', name });
    return r?.status?.phase === 'completed' || r?.status?.phase === 'failed' ? r : undefined;
  }, `replay ${name} to finish`);
}

async function sandboxGone(name: string): Promise<void> {
  await waitFor(
    async () => !(await f.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'acme', name })),
    `sandbox ${name} to be deleted`,
  );
}

describe('the replay reconciler', () => {
  it('grades with the task grader: a non-zero exit is reward 0', async () => {
    await seedTask(f.store, blobs, 'acme', 'fails-grade', {
      steps: [{ function: 'click', args: { x: 1, y: 1 } }],
      grader: 'test -f /nowhere',
    });
    const r = await finished((await replay('fails-grade')).metadata.name);
    expect(r.status).toMatchObject({ phase: 'completed', stepsDone: 1, reward: 0 });
    expect(r.status?.message).toBe('replayed 1 step; grader exited with 1');
    await sandboxGone(r.status!.sandbox!);
  });

  it('fails with the exit code when the setup script fails, and deletes its sandbox', async () => {
    await seedTask(f.store, blobs, 'acme', 'bad-setup', {
      steps: [{ function: 'type', args: { text: 'x' } }],
      setupScript: 'echo no; exit 3',
    });
    const r = await finished((await replay('bad-setup')).metadata.name);
    expect(r.status?.phase).toBe('failed');
    expect(r.status?.message).toMatch(/^setup script exited with 3/);
    expect(r.status?.stepsDone).toBeUndefined();
    await sandboxGone(r.status!.sandbox!);
  });

  it('fails a task written past the API whose setup step cannot run, naming it, before anything runs', async () => {
    // The store's schema takes it (both sources are well-formed); the checks beyond the schema do not.
    await f.store.create({
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: { name: 'two-sources', namespace: 'acme' },
      spec: {
        instruction: 'x',
        setupScript: 'touch ~/ran',
        setup: [
          { type: 'download', path: 'f', url: 'https://example.com/f', blob: `sha256-${'0'.repeat(64)}` },
        ],
      },
    });
    const r = await finished((await replay('two-sources')).metadata.name);
    expect(r.status).toMatchObject({
      phase: 'failed',
      message: 'setup step 0 (download): needs exactly one of `url` and `blob`',
    });
    expect(r.status?.stepsDone).toBeUndefined();
  });

  it('grades with a grader of checks: the combined reward and each check', async () => {
    await f.store.create({
      apiVersion: API_VERSION,
      kind: 'Task',
      metadata: { name: 'checks', namespace: 'acme' },
      spec: {
        instruction: 'x',
        grader: {
          combine: 'weighted',
          checks: [
            { type: 'command', command: 'true', weight: 3 },
            { type: 'window', match: { name: 'no such window' } },
          ],
        },
      },
    });
    const r = await finished((await replay('checks')).metadata.name);
    expect(r.status).toMatchObject({
      phase: 'completed',
      reward: 0.75,
      message: 'replayed 0 steps; grader: reward 0.75 (1 of 2 checks passed)',
    });
    expect(r.status?.grade?.checks.map((c) => c.passed)).toEqual([true, false]);
  });

  it('fails at a step it cannot carry out, naming it, after the steps before it', async () => {
    await seedTask(f.store, blobs, 'acme', 'bad-step', {
      steps: [
        { function: 'move', args: { x: 5, y: 5 } },
        { function: 'teleport', args: {} },
        { function: 'move', args: { x: 6, y: 6 } },
      ],
    });
    const r = await finished((await replay('bad-step')).metadata.name);
    expect(r.status).toMatchObject({ phase: 'failed', stepsDone: 1 });
    expect(r.status?.message).toContain('step 1 (teleport): unknown function "teleport"');
    await seedTask(f.store, blobs, 'acme', 'bad-args', { steps: [{ function: 'click', args: { x: 'a' } }] });
    const bad = await finished((await replay('bad-args')).metadata.name);
    expect(bad.status?.message).toBe('step 0 (click): x must be an integer');
  });

  it('fails when its sandbox cannot start (a reservation that does not exist)', async () => {
    await seedTask(f.store, blobs, 'acme', 'nowhere', { steps: [] });
    const r = await finished((await replay('nowhere', 'no-such-reservation')).metadata.name);
    expect(r.status?.phase).toBe('failed');
    expect(r.status?.message).toMatch(/failed to start/);
  });

  it('fails a replay whose task is gone', async () => {
    const r = await finished((await replay('never-recorded')).metadata.name);
    expect(r.status).toMatchObject({ phase: 'failed', message: 'task never-recorded not found' });
  });

  it('resumes after a restart from status.stepsDone: no second setup, only the steps left', async () => {
    await seedTask(f.store, blobs, 'acme', 'resume', {
      setupScript: 'echo ran > /tmp/setup-ran',
      grader: 'test -f /tmp/setup-ran',
      steps: ['aaa', 'bbb', 'ccc', 'ddd'].map((text) => ({ function: 'type', args: { text } })),
    });
    // The state a crash leaves: the replay's own sandbox running, setup done, two steps done.
    const sb = await f.createSandbox('acme', { reservation: 'r1' });
    expect((await f.sandboxSettled('acme', sb.metadata.name)).status?.phase).toBe('running');
    await f.stopOperator();
    const rp = await replay('resume');
    await f.store.updateStatus<Replay>({
      ...rp,
      status: { phase: 'running', sandbox: sb.metadata.name, stepsDone: 2 },
    });
    const current = (await f.store.get<Sandbox>({
      kind: 'Sandbox',
      namespace: 'acme',
      name: sb.metadata.name,
    }))!;
    await f.store.update<Sandbox>({
      ...current,
      metadata: {
        ...current.metadata,
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'Replay',
            name: rp.metadata.name,
            uid: rp.metadata.uid!,
            controller: true,
          },
        ],
      },
    });
    simClock.hold();
    f.op = await startOperator({
      store: f.store,
      drivers: { sim: f.sim },
      blobDir: path.join(f.dir, 'blobs'),
      clock: f.clock,
      settings: { heartbeatMs: 60_000, probeRetryMs: 1_000 },
    });
    const r = await finished(rp.metadata.name);
    // The grader looks for the setup script's file: reward 0 shows setup did not run again.
    expect(r.status).toMatchObject({ phase: 'completed', stepsDone: 4, reward: 0 });
    await sandboxGone(sb.metadata.name);
    const vm = f.sim.inspect(f.addressOf('mini-1'))!.vms.find((v) => v.name === current.status?.vm);
    expect(vm?.typed).toBe('cccddd');
    simClock.release();
  });
});
