// `sandbay mcp` as an agent uses it: the CLI spawned as its own process, driven by the MCP SDK's own
// client over stdio and over Streamable HTTP, against a live sandbay on the linux driver. Every tool
// is called and checked by its effect on the sandbox (read back through the TypeScript SDK).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../sdk/typescript/src/index.ts';
import { startLiveSandbay, type LiveSandbay } from '../../test/support/live-sandbay.ts';
import { waitFor } from '../../test/support/wait.ts';

const BIN = path.join(import.meta.dirname, '..', 'bin.ts');
let live: LiveSandbay;
let sdk: Client;
let stdio: McpClient;
let httpServer: ChildProcess | undefined;
let httpUrl: string;

/** Calls a tool; returns its result, with the first text content parsed as JSON when it is JSON. */
async function call(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  let value: unknown = first?.type === 'text' ? first.text : undefined;
  try {
    value = JSON.parse(value as string);
  } catch {
    // plain text
  }
  return { result, value: value as never };
}

/** `sandbay mcp --http`, with `envKey` as its own key (none: each request must bring one). */
function startHttp(envKey = ''): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--url', live.url], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, SANDBAY_API_KEY: envKey },
  });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const line = err.split('\n').find((l) => l.includes('sandbay mcp is serving'));
      if (line) resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
    child.once('exit', (code) => reject(new Error(`sandbay mcp exited with ${code}: ${err}`)));
  });
}

beforeAll(async () => {
  live = await startLiveSandbay('mcp');
  sdk = new Client({ apiKey: live.accountKey, baseUrl: live.url });
  stdio = new McpClient({ name: 'test', version: '1' });
  await stdio.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--url', live.url],
      env: { ...(process.env as Record<string, string>), SANDBAY_API_KEY: live.accountKey },
      stderr: 'inherit',
    }),
  );
  const started = await startHttp();
  httpServer = started.child;
  httpUrl = started.url;
}, 180_000);

afterAll(async () => {
  await stdio?.close();
  if (httpServer && httpServer.exitCode === null) {
    const exited = new Promise((resolve) => httpServer!.once('exit', resolve));
    httpServer.kill('SIGTERM');
    await exited;
  }
  await live?.close();
}, 60_000);

describe('over stdio', () => {
  let id: string;

  it('lists the tools', async () => {
    const { tools } = await stdio.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'click',
        'create_sandbox',
        'delete_sandbox',
        'display_info',
        'double_click',
        'drag',
        'exec',
        'exec_stream',
        'fork_sandbox',
        'get_clipboard',
        'grade_sandbox',
        'hotkey',
        'key',
        'list_reservations',
        'list_sandboxes',
        'move',
        'pause_sandbox',
        'port_url',
        'read_file',
        'reserve',
        'resume_sandbox',
        'sandbox_network',
        'set_sandbox_egress',
        'screenshot',
        'scroll',
        'set_clipboard',
        'setup_sandbox',
        'type',
        'window_tree',
        'write_file',
      ].sort(),
    );
  });

  it('reservations: list; reserve answers the API’s code as a tool error', async () => {
    const { value } = await call(stdio, 'list_reservations');
    expect((value as { id: string }[]).map((r) => r.id)).toEqual([live.reservation!.id]);
    const refused = await call(stdio, 'reserve', { hours: 24 });
    expect(refused.result.isError).toBe(true);
    expect(refused.value).toMatch(/^minis_unavailable \(409\)/);
  });

  it('create_sandbox and list_sandboxes', async () => {
    const { value } = await call(stdio, 'create_sandbox', {});
    const info = value as { sandbox_id: string; state: string; ephemeral: boolean };
    expect(info).toMatchObject({ state: 'running', ephemeral: true });
    id = info.sandbox_id;
    const list = (await call(stdio, 'list_sandboxes')).value as { sandbox_id: string }[];
    expect(list.map((s) => s.sandbox_id)).toContain(id);
  }, 120_000);

  it('screenshot: image content, PNG or scaled JPEG', async () => {
    const png = (await call(stdio, 'screenshot', { sandbox_id: id })).result.content[0]!;
    expect(png).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const bytes = Buffer.from((png as { data: string }).data, 'base64');
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    const jpeg = (await call(stdio, 'screenshot', { sandbox_id: id, format: 'jpeg', scale: 0.5 })).result
      .content[0] as { data: string; mimeType: string };
    expect(jpeg.mimeType).toBe('image/jpeg');
    expect(await sharp(Buffer.from(jpeg.data, 'base64')).metadata()).toMatchObject({ width: 640 });
  });

  it('move, click, double_click, drag, scroll move the pointer', async () => {
    const mouse = sdk.sandbox(id).mouse;
    // After a click the window manager may hold the pointer a moment (click-to-focus grabs it
    // synchronously): the X server moves it once released, so the position is awaited.
    const pointerAt = (x: number, y: number) =>
      waitFor(async () => {
        const p = await mouse.getPosition();
        return p.x === x && p.y === y;
      }, `the pointer at ${x},${y}`);
    await call(stdio, 'move', { sandbox_id: id, x: 300, y: 200 });
    await pointerAt(300, 200);
    // On the wallpaper, away from the panel at the top (its Applications menu would take the focus).
    await call(stdio, 'click', { sandbox_id: id, x: 600, y: 500 });
    await pointerAt(600, 500);
    await call(stdio, 'double_click', { sandbox_id: id, x: 610, y: 510 });
    await pointerAt(610, 510);
    await call(stdio, 'drag', { sandbox_id: id, start_x: 600, start_y: 300, end_x: 640, end_y: 350 });
    await pointerAt(640, 350);
    const scrolled = await call(stdio, 'scroll', { sandbox_id: id, x: 600, y: 300, direction: 'down' });
    expect(scrolled.value).toEqual({ ok: true });
    await pointerAt(600, 300);
  });

  it('type, key and hotkey land in a real window found with window_tree; display_info', async () => {
    await call(stdio, 'exec', {
      sandbox_id: id,
      command: `(setsid xterm -T mcptyper -e sh -c 'read line; echo "$line" > ~/mcp.txt' >/dev/null 2>&1 &)`,
    });
    type Win = { name: string; x: number; y: number; width: number; height: number; focused?: boolean };
    const typer = async () =>
      ((await call(stdio, 'window_tree', { sandbox_id: id })).value as Win[]).find(
        (w) => w.name === 'mcptyper',
      );
    const win = await waitFor(typer, 'the xterm window', 20_000);
    await call(stdio, 'click', {
      sandbox_id: id,
      x: win.x + Math.round(win.width / 2),
      y: win.y + Math.round(win.height / 2),
    });
    await waitFor(async () => (await typer())?.focused === true, 'the xterm focused', 20_000);
    expect((await call(stdio, 'type', { sandbox_id: id, text: 'mcp' })).value).toEqual({ ok: true });
    expect((await call(stdio, 'hotkey', { sandbox_id: id, keys: 'shift+z' })).value).toEqual({ ok: true });
    expect((await call(stdio, 'key', { sandbox_id: id, key: 'return' })).value).toEqual({ ok: true });
    const typed = await waitFor(
      async () => {
        const r = await call(stdio, 'read_file', { sandbox_id: id, path: 'mcp.txt' });
        return r.result.isError ? undefined : (r.value as string);
      },
      'the typed line',
      20_000,
    );
    expect(typed).toBe('mcpZ\n');
    expect((await call(stdio, 'display_info', { sandbox_id: id })).value).toEqual({
      width: 1280,
      height: 800,
      scale: 1,
      platform: 'macos',
    });
  });

  it('exec, write_file and read_file (text and base64); errors name the API code', async () => {
    expect((await call(stdio, 'exec', { sandbox_id: id, command: 'echo hi; exit 2' })).value).toMatchObject({
      stdout: 'hi\n',
      return_code: 2,
    });
    await call(stdio, 'write_file', { sandbox_id: id, path: 'dir/note.txt', content: 'hé' });
    expect((await call(stdio, 'read_file', { sandbox_id: id, path: 'dir/note.txt' })).value).toBe('hé');
    const bin = Buffer.from([0, 1, 2, 255]);
    await call(stdio, 'write_file', {
      sandbox_id: id,
      path: 'dir/bin',
      content: bin.toString('base64'),
      encoding: 'base64',
    });
    expect(Buffer.from(await sdk.sandbox(id).downloadBytes('dir/bin')).equals(bin)).toBe(true);
    expect(
      (await call(stdio, 'read_file', { sandbox_id: id, path: 'dir/bin', encoding: 'base64' })).value,
    ).toBe(bin.toString('base64'));
    const missing = await call(stdio, 'read_file', { sandbox_id: id, path: 'none' });
    expect([missing.result.isError, missing.value]).toEqual([true, expect.stringMatching(/^file_not_found/)]);
  });

  it('exec_stream reports output as progress while it runs; port_url, get/set_clipboard', async () => {
    const progress: string[] = [];
    const streamed = (await stdio.callTool(
      {
        name: 'exec_stream',
        arguments: { sandbox_id: id, command: 'read x; echo "got $x"; echo e >&2; exit 3', stdin: 'in\n' },
      },
      undefined,
      { onprogress: (p) => progress.push(p.message ?? '') },
    )) as CallToolResult;
    const first = streamed.content[0] as { text: string };
    expect(JSON.parse(first.text)).toEqual({
      stdout: 'got in\n',
      stderr: 'e\n',
      exit_code: 3,
      timed_out: false,
    });
    expect(progress).toContain('got in\n');
    expect(progress).toContain('stderr: e\n');
    const url = (await call(stdio, 'port_url', { sandbox_id: id, port: 8000, path: '/x' })).value as string;
    expect(url).toMatch(new RegExp(`^${live.url}/v1/sandboxes/${id}/ports/8000/x\\?sandbay_token=`));
    await call(stdio, 'set_clipboard', { sandbox_id: id, content: 'from mcp' });
    expect((await call(stdio, 'get_clipboard', { sandbox_id: id })).value).toBe('from mcp');
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    await call(stdio, 'set_clipboard', {
      sandbox_id: id,
      content: png.toString('base64'),
      encoding: 'base64',
    });
    const image = (await call(stdio, 'get_clipboard', { sandbox_id: id, type: 'image' })).result.content[0];
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
  });

  it('setup_sandbox and grade_sandbox: steps run, a reward with each check; an unknown kind is named', async () => {
    const setup = await call(stdio, 'setup_sandbox', {
      sandbox_id: id,
      steps: [
        { type: 'command', command: 'echo graded > ~/mcp-eval.txt' },
        { type: 'sleep', seconds: 0 },
      ],
    });
    expect(setup.value).toMatchObject({ status: 'completed', failed_step: null });
    const grade = await call(stdio, 'grade_sandbox', {
      sandbox_id: id,
      grader: {
        combine: 'weighted',
        checks: [
          { type: 'file', path: 'mcp-eval.txt', equals: 'graded' },
          { type: 'command', command: 'exit 1' },
        ],
      },
    });
    expect(grade.value).toMatchObject({ reward: 0.5, combine: 'weighted' });
    const bad = await call(stdio, 'setup_sandbox', { sandbox_id: id, steps: [{ type: 'teleport' }] });
    expect([bad.result.isError, bad.value]).toEqual([
      true,
      expect.stringMatching(/^invalid_setup_step \(400\): setup step 0 has an unknown type "teleport"/),
    ]);
  });

  describe('over Streamable HTTP', () => {
    const connect = async (key: string) => {
      const client = new McpClient({ name: 'test-http', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(httpUrl), {
          requestInit: { headers: { authorization: `Bearer ${key}` } },
        }),
      );
      return client;
    };

    it('acts with the bearer key of each request', async () => {
      const client = await connect(live.accountKey);
      try {
        const list = (await call(client, 'list_sandboxes')).value as { sandbox_id: string }[];
        expect(list.map((s) => s.sandbox_id)).toEqual([id]);
        const shot = (await call(client, 'screenshot', { sandbox_id: id })).result.content[0]!;
        expect(shot.type).toBe('image');
        expect((await call(client, 'exec', { sandbox_id: id, command: 'echo http' })).value).toMatchObject({
          stdout: 'http\n',
        });
      } finally {
        await client.close();
      }
      const stranger = await connect('not-a-key');
      try {
        const denied = await call(stranger, 'list_sandboxes');
        expect([denied.result.isError, denied.value]).toEqual([
          true,
          expect.stringMatching(/^invalid_api_key/),
        ]);
      } finally {
        await stranger.close();
      }
    });

    it('acts with its own key from the environment when a request brings none', async () => {
      const own = await startHttp(live.accountKey);
      const client = new McpClient({ name: 'test-http-env', version: '1' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(own.url)));
        const list = (await call(client, 'list_sandboxes')).value as { sandbox_id: string }[];
        expect(list.map((s) => s.sandbox_id)).toEqual([id]);
      } finally {
        await client.close();
        const exited = new Promise((resolve) => own.child.once('exit', resolve));
        own.child.kill('SIGTERM');
        await exited;
      }
    });

    it('refuses a request without a key (the server has none of its own here)', async () => {
      const res = await fetch(httpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
    });
  });

  it('fork_sandbox, pause_sandbox and resume_sandbox', async () => {
    await sdk.sandbox(id).uploadBytes('forked', 'fork.txt');
    const forked = await call(stdio, 'fork_sandbox', { sandbox_id: id, count: 1 });
    const [fork] = forked.value as { sandbox_id: string; fork_of: string }[];
    expect(fork).toMatchObject({ fork_of: id });
    expect(new TextDecoder().decode(await sdk.sandbox(fork!.sandbox_id).downloadBytes('fork.txt'))).toBe(
      'forked',
    );
    await sdk.sandbox(fork!.sandbox_id).delete();
    expect((await call(stdio, 'pause_sandbox', { sandbox_id: id })).value).toMatchObject({ state: 'paused' });
    const refused = await call(stdio, 'exec', { sandbox_id: id, command: 'true' });
    expect([refused.result.isError, refused.value]).toEqual([
      true,
      expect.stringMatching(/^sandbox_paused \(409\)/),
    ]);
    expect((await call(stdio, 'resume_sandbox', { sandbox_id: id })).value).toMatchObject({
      state: 'running',
    });
  }, 300_000);

  it('delete_sandbox', async () => {
    expect((await call(stdio, 'delete_sandbox', { sandbox_id: id })).value).toBe(`deleted ${id}`);
    expect(await sdk.get(id).catch((e: unknown) => e)).toMatchObject({ code: 'sandbox_not_found' });
  });
});
