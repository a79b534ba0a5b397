// The collector end to end on a live sandbay (the linux driver's real desktop, the real operator,
// the customer API on loopback) through the TypeScript SDK: a task with a setup script and grader
// is collected on a sandbox while a real RFB client sends pointer and key events through the VNC
// WebSocket and API calls are made on the sandbox; then the coalesced steps, their screenshots,
// the ATIF document, the ZIP, the MP4, and a replay of the task on a fresh sandbox with its reward.
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Client, type Sandbox, type Task } from '../sdk/typescript/src/index.ts';
import { RfbClient } from './api-rfb-client.ts';
import { expectValidAtif } from './support/atif.ts';
import { startLiveSandbay, waitForWarmVm, type LiveSandbay } from './support/live-sandbay.ts';
import { waitFor } from './support/wait.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const KEY = { shift: 0xffe1, ctrl: 0xffe3, ret: 0xff0d };

// The setup opens a terminal that writes the line typed into it to ~/note.txt, and waits until the
// window manager has given it the focus, so that what follows (collected or replayed) lands in it.
const SETUP = [
  `(setsid xterm -T note -geometry 60x8+40+40 -e sh -c 'read line; echo "$line" > ~/note.txt' >/dev/null 2>&1 &)`,
  `for i in $(seq 300); do [ "$(xdotool getactivewindow getwindowname 2>/dev/null)" = note ] && exit 0; sleep 0.1; done`,
  'exit 1',
].join('\n');
const GRADER = 'grep -qx "hello sandbay" ~/note.txt && grep -qx api ~/api.txt';

let live: LiveSandbay;
let client: Client;
let sb: Sandbox;
let rfb: RfbClient;
let ws: WebSocket;

beforeAll(async () => {
  live = await startLiveSandbay('collect');
  client = new Client({ apiKey: live.accountKey, baseUrl: live.url });
  sb = await client.create({ ephemeral: false });
}, 300_000);

afterAll(async () => {
  ws?.close();
  await live?.close();
}, 60_000);

async function viewer(): Promise<RfbClient> {
  const link = await sb.viewerLink();
  ws = new WebSocket(link.websocket_url);
  const c = RfbClient.overWebSocket(ws); // listening before the server's first bytes
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  await c.handshake();
  return c;
}

function tap(keysym: number): void {
  rfb.key(keysym, true);
  rfb.key(keysym, false);
}

function click(x: number, y: number): void {
  rfb.pointer(x, y, 0);
  rfb.pointer(x, y, 1);
  rfb.pointer(x, y, 0);
}

async function noteWindow() {
  return (await sb.display.getWindows()).find((w) => w.name === 'note');
}

describe('the collector', () => {
  let task: Task;
  let recordingId: string;

  it('creates and edits a task', async () => {
    task = await client.tasks.create({
      id: 'note',
      instruction: 'Write a note',
      category: 'draft',
      setup_script: SETUP,
    });
    expect(task).toMatchObject({
      id: 'note',
      instruction: 'Write a note',
      category: 'draft',
      step_count: 0,
      phase: null,
    });
    task = await client.tasks.update('note', { category: 'terminal', grader: GRADER });
    expect(task).toMatchObject({ category: 'terminal', grader: GRADER, setup_script: SETUP });
    const taken = await client.tasks.create({ id: 'note', instruction: 'again' }).catch((e: unknown) => e);
    expect(taken).toMatchObject({ status: 409, code: 'task_exists' });
    const empty = await client.tasks.update('note', { instruction: '' }).catch((e: unknown) => e);
    expect(empty).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('refuses a setup script that fails, recording nothing', async () => {
    await client.tasks.create({ id: 'broken', instruction: 'x', setup_script: 'echo nope >&2; exit 3' });
    const failed = await client.tasks.startCollection(sb.id, 'broken').catch((e: unknown) => e);
    expect(failed).toMatchObject({ status: 409, code: 'setup_script_failed' });
    expect(String((failed as Error).message)).toContain('nope');
    const none = await client.tasks.getCollection(sb.id).catch((e: unknown) => e);
    expect(none).toMatchObject({ status: 404, code: 'collection_not_found' });
    await client.tasks.delete('broken');
  }, 60_000);

  it('records the viewer’s pointer and key input and the API calls as coalesced steps', async () => {
    rfb = await viewer();
    const started = await client.tasks.startCollection(sb.id, 'note');
    expect(started).toMatchObject({ sandbox_id: sb.id, task_id: 'note', phase: 'recording', step_count: 0 });
    expect(started.recording_id).not.toBeNull();
    recordingId = started.recording_id!;
    const again = await client.tasks.startCollection(sb.id, 'note').catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 409, code: 'collection_in_progress' });

    // The setup script (unrecorded) opened the terminal and waited for its focus.
    const win = (await noteWindow())!;
    const center = { x: win.x + Math.round(win.width / 2), y: win.y + Math.round(win.height / 2) };
    click(center.x, center.y);
    // A person looks at the screen between actions: the click's step (and its screenshot) first.
    await waitFor(async () => (await client.tasks.get('note')).steps.length === 1, 'the click step', 20_000);
    for (const ch of 'hello sandbay') tap(ch.codePointAt(0)!);
    tap(KEY.ret);
    // The line reached the terminal through the proxy: the input is relayed, not only read.
    await waitFor(async () => (await noteWindow()) === undefined, 'the terminal to finish', 20_000);
    expect(new TextDecoder().decode(await sb.downloadBytes('note.txt'))).toBe('hello sandbay\n');

    click(900, 600);
    click(901, 600); // a double click
    for (let i = 0; i < 3; i++) {
      rfb.pointer(900, 600, 16);
      rfb.pointer(900, 600, 0);
    }
    rfb.pointer(700, 500, 1);
    rfb.pointer(730, 520, 1);
    rfb.pointer(760, 540, 1);
    rfb.pointer(760, 540, 0);
    rfb.key(KEY.ctrl, true);
    rfb.key(KEY.shift, true);
    tap(0x58); // X, shifted
    rfb.key(KEY.shift, false);
    rfb.key(KEY.ctrl, false);
    await waitFor(
      async () => (await client.tasks.getCollection(sb.id)).step_count >= 7,
      'seven steps from the viewer',
    );

    await sb.exec('echo api > ~/api.txt');
    await sb.mouse.move(5, 5);
    await waitFor(
      async () => (await client.tasks.getCollection(sb.id)).step_count >= 9,
      'the API calls as steps',
    );

    task = await client.tasks.stopCollection(sb.id);
    expect(task.phase).toBe('finalizing');
    expect(task.steps.map((s) => [s.function, s.args])).toEqual([
      ['click', { x: center.x, y: center.y, button: 'left' }],
      ['type', { text: 'hello sandbay' }],
      ['key', { key: 'return' }],
      ['double_click', { x: 900, y: 600, button: 'left' }],
      ['scroll', { x: 900, y: 600, direction: 'down', amount: 3 }],
      ['drag', { start_x: 700, start_y: 500, end_x: 760, end_y: 540, button: 'left' }],
      ['hotkey', { keys: 'ctrl+shift+x' }],
      ['exec', { command: 'echo api > ~/api.txt' }],
      ['move', { x: 5, y: 5 }],
    ]);
    expect(task.steps.map((s) => s.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const gone = await client.tasks.getCollection(sb.id).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404, code: 'collection_not_found' });
    // Input after the stop is relayed but not recorded.
    click(10, 10);
    expect((await client.tasks.get('note')).step_count).toBe(9);
  }, 180_000);

  it('keeps a screenshot per step, taken after the action', async () => {
    for (const step of task.steps)
      expect(step.screenshot_url).toBe(`/v1/me/tasks/note/steps/${step.index}/screenshot`);
    const first = Buffer.from(await client.tasks.stepScreenshot('note', 0));
    expect(await sharp(first).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    // After the click the terminal is on screen; after Return it has closed: the pixels differ.
    const afterReturn = Buffer.from(await client.tasks.stepScreenshot('note', 2));
    const raw = async (png: Buffer) => sharp(png).raw().toBuffer();
    expect((await raw(first)).equals(await raw(afterReturn))).toBe(false);
  });

  it('exports the collection as valid ATIF, and a ZIP whose images are the steps’ screenshots', async () => {
    const atif = await client.tasks.trajectory('note');
    expectValidAtif(atif);
    expect(atif.steps).toHaveLength(10);
    expect(atif.steps[0]).toMatchObject({ source: 'user', message: 'Write a note' });
    expect(atif.extra?.task).toMatchObject({ category: 'terminal', setup_script: SETUP, grader: GRADER });
    expect(atif.steps[2]!.tool_calls).toEqual([
      { tool_call_id: 'call-0001', function_name: 'type', arguments: { text: 'hello sandbay' } },
    ]);
    const files = unzipSync(await client.tasks.download('note'));
    const archived: unknown = JSON.parse(Buffer.from(files['trajectory.json']!).toString('utf8'));
    expectValidAtif(archived, Object.keys(files));
    expect(archived).toEqual(atif);
    for (const step of atif.steps.slice(1)) {
      const part = (step.observation!.results[0]!.content as { source: { path: string } }[])[0]!;
      const png = Buffer.from(files[part.source.path]!);
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      const index = (step.extra as { index: number }).index;
      expect(png.equals(Buffer.from(await client.tasks.stepScreenshot('note', index)))).toBe(true);
    }
    expect(Buffer.from(files['setup.sh']!).toString()).toBe(SETUP);
  });

  it('finalizes the MP4 screen recording in the background', async () => {
    const ready = await waitFor(
      async () => {
        const t = await client.tasks.get('note');
        return t.phase === 'ready' ? t : undefined;
      },
      'the recording to finalize',
      60_000,
    );
    expect(ready.has_recording).toBe(true);
    const mp4 = await client.tasks.recording('note');
    expect(new TextDecoder().decode(mp4.subarray(4, 8))).toBe('ftyp');
    // Moved into the task: the sandbox keeps no copy.
    expect((await sb.recording.listAll()).map((r) => r.id)).not.toContain(recordingId);
  }, 90_000);

  it('replays the collected task on a fresh sandbox: completed with reward 1', async () => {
    const recorded = await client.tasks.startCollection(sb.id, 'note').catch((e: unknown) => e);
    expect(recorded).toMatchObject({ status: 409, code: 'task_already_recorded' });
    ws.close();
    await sb.delete(); // the reservation's capacity goes to the replay
    // A replay's sandbox fails at once when no VM is free (503 no_warm_vm, as a create would).
    await waitForWarmVm(live.url, live.accountKey);
    const replay = await client.tasks.replay('note');
    const done = await client.tasks.waitForReplay(replay.id, { timeoutMs: 240_000, pollMs: 200 });
    expect(done).toMatchObject({
      status: 'completed',
      reward: 1,
      steps_done: 9,
      steps_total: 9,
      message: 'replayed 9 steps; grader exited with 0',
    });
  }, 300_000);
});
