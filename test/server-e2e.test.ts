// sandbay as a user runs it: `sandbay server` as its own process (plain Node 24, not vitest's module
// loader) on the linux driver, the CLI for the account, curl-like HTTP for the rest — the README's
// walkthrough, end to end on real desktops, and a clean stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ID } from '../crds/index.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';

const BIN = join(import.meta.dirname, '..', 'cli', 'bin.ts');
let dir: string;
let server: ChildProcess | undefined;
let url: string;
let adminUrl: string;
let adminKey: string;
let accountKey: string;
/** Everything the server wrote, for the message of a failed expectation about its exit. */
let serverOutput = '';

/** Starts `sandbay server` and resolves with its URLs once it logs that it is serving. */
function startServerProcess(
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; adminUrl: string }> {
  const child = spawn(
    process.execPath,
    [BIN, 'server', '--data-dir', dataDir, '--port', '0', '--admin-port', '0', '--host-driver', 'linux'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}\n${err}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      serverOutput += c.toString();
    });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      serverOutput += c.toString();
      for (const line of out.split('\n')) {
        if (!line.includes('sandbay is serving')) continue;
        const log = JSON.parse(line) as { url: string; adminUrl: string };
        clearTimeout(timer);
        resolve({ child, url: log.url, adminUrl: log.adminUrl });
        return;
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}\n${err}`));
    });
  });
}

function cli(args: string[]): string {
  return execFileSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, SANDBAY_URL: adminUrl, SANDBAY_ADMIN_KEY: adminKey },
    encoding: 'utf8',
  });
}

async function call(method: string, path: string, body?: unknown, key = accountKey): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-e2e-'));
  const started = await startServerProcess(join(dir, 'data'));
  server = started.child;
  url = started.url;
  adminUrl = started.adminUrl;
  adminKey = (await readFile(join(dir, 'data', 'admin.key'), 'utf8')).trim();
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGKILL');
    await new Promise((resolve) => server!.once('exit', resolve));
  }
  // The server powers its VMs off on stop and keeps their disks for the next start; discard them.
  const driver = createLinuxDriver({ dataDir: join(dir, 'data', 'linux'), discardOnClose: true });
  const host = driver.host({ name: 'local', address: '127.0.0.1', model: 'm4' });
  for (const vm of await host.listVms()) await host.deleteVm(vm.name);
  await driver.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sandbay server on the linux driver, as the README walks it', () => {
  let sandboxId: string;
  let vmIp: string;

  it('creates an account with the CLI and prints its key once', () => {
    const out = cli(['accounts', 'create', 'e2e-co', '--credit-cents', '100000']);
    accountKey = /api key:\s+(\S+)/.exec(out)?.[1] ?? '';
    expect(accountKey).toMatch(/^sbk_/);
  });

  it('reserves this machine (registered as an m4 Mac) and activates at once', async () => {
    const res = await call('POST', '/v1/reservations', {
      hours: 24,
      mini_count: 1,
      mac_model: 'm4',
      vm_layout: 'split',
    });
    expect(res.status).toBe(201);
    const reservation = (await res.json()) as { status: string; mini_ips: string[]; key: string };
    expect(reservation).toMatchObject({ status: 'active', mini_ips: ['127.0.0.1'] });
    expect(reservation.key).toMatch(/^sbk_/);
    const me = await call('GET', '/v1/reservations/me', undefined, reservation.key);
    expect(me.status).toBe(200);
  });

  it('creates a sandbox from the warm pool of real desktops', async () => {
    // The pool may still be cloning right after activation: 503 means "no warm VM yet", retry.
    const deadline = Date.now() + 60_000;
    let res = await call('POST', '/v1/sandboxes', {});
    while (res.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      res = await call('POST', '/v1/sandboxes', {});
    }
    expect(res.status).toBe(201);
    const created = (await res.json()) as Record<string, unknown>;
    expect(created).toMatchObject({ boot: 'warm', cpu: 5, memory_gib: 8 });
    sandboxId = created.sandbox_id as string;
    vmIp = created.vm_ip as string;
    expect(sandboxId).toMatch(SANDBOX_ID);
    expect(vmIp).toMatch(/^198\.19\.\d+\.2$/);
  });

  it('takes a screenshot, clicks, and runs a command in the sandbox', async () => {
    const shot = await call('GET', `/v1/sandboxes/${sandboxId}/screenshot`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await shot.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([1280, 800]);

    expect((await call('POST', `/v1/sandboxes/${sandboxId}/mouse/click`, { x: 321, y: 123 })).status).toBe(
      200,
    );
    const position = (await (await call('GET', `/v1/sandboxes/${sandboxId}/mouse/position`)).json()) as {
      x: number;
      y: number;
    };
    expect(position).toMatchObject({ x: 321, y: 123 });

    const exec = await call('POST', `/v1/sandboxes/${sandboxId}/exec`, { command: 'echo hi; exit 3' });
    expect(await exec.json()).toMatchObject({ stdout: 'hi\n', return_code: 3 });
  });

  it("runs ahead of its desktops: the server at nice -5, the sandbox's programs at 0", async () => {
    const stat = await readFile(`/proc/${server!.pid}/stat`, 'utf8');
    // Field 19 of stat(5), counted after the command name (which may hold spaces).
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])).toBe(-5);
    const exec = await call('POST', `/v1/sandboxes/${sandboxId}/exec`, { command: 'ps -o ni= -p $$' });
    expect(((await exec.json()) as { stdout: string }).stdout.trim()).toBe('0');
  });

  it('mints a viewer link that is not the account key', async () => {
    const res = await call('POST', `/v1/sandboxes/${sandboxId}/viewer-token`);
    const body = (await res.json()) as { vnc_url: string; token: string };
    expect(body.vnc_url).toContain(`/v1/sandboxes/${sandboxId}/vnc`);
    expect(body.vnc_url).not.toContain(accountKey);
  });

  it('deletes the sandbox (204), then it is gone (404)', async () => {
    expect((await call('DELETE', `/v1/sandboxes/${sandboxId}`)).status).toBe(204);
    expect((await call('GET', `/v1/sandboxes/${sandboxId}`)).status).toBe(404);
  });

  it('stops on SIGTERM with exit code 0, leaving no desktop of its VMs running', async () => {
    const slots = (await (
      await fetch(`${adminUrl}/admin/slots`, { headers: { authorization: `Bearer ${adminKey}` } })
    ).json()) as { vm_ip: string }[];
    const ips = slots.map((s) => s.vm_ip).filter(Boolean);
    expect(ips.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) => server!.once('exit', resolve));
    server!.kill('SIGTERM');
    expect(await exited, serverOutput.split('\n').slice(-30).join('\n')).toBe(0);
    const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    for (const ip of ips) expect(processes).not.toContain(`-listen ${ip} `);
  });
});
