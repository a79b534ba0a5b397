// The README's walkthrough, run as a new user would run it: its `sh` blocks, verbatim, one after the
// other in one bash (so the variables one block sets reach the next), next to a `sandbay server`
// started for this test. The only things changed are what differs between the user's machine and
// this test: the ports (`localhost:8080` → this server's; the CLI finds the admin port in SANDBAY_URL)
// and `data/` (a link to this server's data dir, in the scratch dir the blocks run in). Each step's
// result is checked by its effect.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeCheckout, Shell, walkthroughBlocks } from './support/readme.ts';
import { startServerProcess, stopServerProcess, type ServerProcess } from './support/server-process.ts';

const ROOT = join(import.meta.dirname, '..');

let scratch: string;
let server: ServerProcess;
let shell: Shell;
let blocks: string[];
let port: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'sandbay-readme-'));
  server = await startServerProcess(join(scratch, 'server-data'));
  port = new URL(server.url).port;
  // The blocks run where a user runs them, in a checkout: node_modules/ and cli/ as in the repo,
  // data/ the server's.
  const work = await readmeCheckout(ROOT, scratch, join(scratch, 'server-data'));
  shell = new Shell(work, { PATH: process.env.PATH, HOME: process.env.HOME, SANDBAY_URL: server.adminUrl });
  blocks = walkthroughBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'), port);
}, 120_000);

afterAll(async () => {
  shell?.close();
  if (server) await stopServerProcess(server);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Runs the next block and expects it to succeed. */
let next = 0;
async function step(): Promise<string> {
  const block = blocks[next++];
  if (block === undefined) throw new Error(`the README has no block ${next}`);
  const r = await shell.run(block);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return r.stdout;
}

const png = async (file: string) => sharp(await readFile(join(scratch, 'checkout', file))).metadata();

describe('the README walkthrough, pasted block by block', () => {
  it('has the blocks this test knows', () => {
    expect(blocks).toHaveLength(7);
  });

  it('0. sets up the admin key and the CLI', async () => {
    expect(await step()).toBe('');
  });

  it('1. creates an account and keeps its key', async () => {
    expect(await step()).toMatch(/^sbk_\S+\n$/);
  });

  it('2. reserves a Mac', async () => {
    const out = JSON.parse(await step()) as Record<string, unknown>;
    expect(out).toMatchObject({ status: 'active', mini_ips: ['127.0.0.1'] });
    expect(out.total_cents).toBeGreaterThan(0);
  });

  it('3. creates a sandbox and keeps its id', async () => {
    const out = JSON.parse(await step()) as Record<string, unknown>;
    expect(out).toMatchObject({ sandbox_id: expect.stringMatching(/^sb-/), cpu: 5, memory_gib: 8 });
    expect(out.boot).toBe('warm');
  });

  it('4. takes screenshots, starts a terminal, types a command into it and reads its file', async () => {
    const out = await step();
    const lines = out.split('\n');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ return_code: 0, timed_out: false });
    expect(out).toMatch(/\{"ok":true\}/);
    expect(out.endsWith('hello from sandbay\n')).toBe(true);
    expect(await png('screen.png')).toMatchObject({ format: 'png', width: 1280, height: 800 });
    expect(await png('after.png')).toMatchObject({ format: 'png', width: 1280, height: 800 });
  });

  it('5. prints a live view link that opens the viewer page', async () => {
    const link = (await step()).trim();
    expect(link).toMatch(new RegExp(`^http://localhost:${port}/view/sb-[0-9a-f]+\\?token=\\S+$`));
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('6. deletes the sandbox', async () => {
    expect(await step()).toBe('204\n');
  });
});
