// Fork and pause through the customer API on real desktops: the linux driver under the real
// operator, two linux "Macs" on this machine, the API on a real listener. A fork lands beside its
// source (its disk copied there) and on the other Mac (its disk delta moved); a paused desktop's VM
// is frozen and its processes go on after the resume. The sim driver's side: api-fork-pause.test.ts.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, type Mini, type Sandbox } from '../crds/index.ts';
import { seedAccount, startLinuxApiStack, waitFor, type LinuxApiStack } from './api-harness.ts';

let stack: LinuxApiStack;
let key: string;
let source: string;

async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${stack.base}${url}`, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, bytes, json: () => JSON.parse(bytes.toString('utf8')) as never, type };
}

async function exec(id: string, command: string): Promise<string> {
  const r = await api('POST', `/v1/sandboxes/${id}/exec`, { command });
  expect(r.status, r.bytes.toString()).toBe(200);
  return (r.json() as { stdout: string }).stdout;
}

/** The VM of a sandbox on the linux driver (its cgroup, to see the freezer at work). */
async function vmOf(id: string) {
  const sb = (await stack.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'forks', name: id }))!;
  const host = stack.driver.host({ name: sb.status!.mini!, address: '127.0.0.1', model: 'm4' });
  return host.describe(sb.status!.vm!);
}

beforeAll(async () => {
  stack = await startLinuxApiStack('sandbay-api-forkpause-');
  // A second "Mac": another linux host on this machine, with its own VMs.
  await stack.store.create<Mini>({
    apiVersion: API_VERSION,
    kind: 'Mini',
    metadata: { name: 'local-2' },
    spec: { address: '127.0.0.1', model: 'm4', driver: 'linux', schedulable: true, defaultLayout: 'split' },
  });
  key = await seedAccount(stack.store, 'forks', 100_000_000);
  await waitFor(
    async () =>
      ((await api('GET', '/v1/platforms')).json() as { models: { available_minis: number }[] }).models[0]!
        .available_minis >= 2,
    'both Macs for sale',
    120_000,
  );
  const r = await api('POST', '/v1/reservations', { hours: 24, mini_count: 2 });
  expect((r.json() as { status: string }).status, r.bytes.toString()).toBe('active');
  const created = await waitFor(
    async () => {
      const c = await api('POST', '/v1/sandboxes', { host: 'local' });
      return c.status === 201 ? (c.json() as { sandbox_id: string }) : undefined;
    },
    'a warm VM to take',
    120_000,
  );
  source = created.sandbox_id;
}, 300_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe('fork', () => {
  it("forks a running desktop into 2, one beside it and one on the other Mac, each with the source's disk", async () => {
    await exec(source, 'mkdir -p ~/work && echo state > ~/work/s.txt && rm ~/Desktop/README.txt');
    // Every VM of both Macs warm: each fork takes one (the pool may still be booting the other Mac's).
    let seen = '';
    await waitFor(
      async () => {
        const p = await api('GET', '/v1/platforms');
        seen = p.bytes.toString();
        const minis = (p.json() as { reservation: { minis: { warm_vms: unknown[] }[] } }).reservation.minis;
        return minis.every((m) => m.warm_vms.length >= 1);
      },
      () => `a warm VM on each Mac (last: ${seen})`,
      240_000,
    );
    const headers = { 'idempotency-key': `fork-of-${source}` };
    const r = await api('POST', `/v1/sandboxes/${source}/fork`, { count: 2 }, headers);
    expect(r.status, r.bytes.toString()).toBe(201);
    const forks = (r.json() as { sandboxes: { sandbox_id: string; host: string; fork_of: string }[] })
      .sandboxes;
    expect(forks.map((f) => f.host).sort()).toEqual(['local', 'local-2']);
    for (const f of forks) {
      expect(f.fork_of).toBe(source);
      expect(await exec(f.sandbox_id, 'cat ~/work/s.txt; ls ~/Desktop; whoami')).toMatch(
        /^state\n[a-z0-9]+\n$/,
      );
      const shot = await api('GET', `/v1/sandboxes/${f.sandbox_id}/screenshot`);
      expect(await sharp(shot.bytes).metadata()).toMatchObject({ format: 'png', width: 1280, height: 800 });
    }
    // A retry under the same key answers the same forks and makes none.
    const again = await api('POST', `/v1/sandboxes/${source}/fork`, { count: 2 }, headers);
    expect([again.status, again.json()]).toEqual([201, r.json()]);
    expect(await exec(source, 'cat ~/work/s.txt')).toBe('state\n');
    for (const f of forks) expect((await api('DELETE', `/v1/sandboxes/${f.sandbox_id}`)).status).toBe(204);
  }, 600_000);
});

describe('pause', () => {
  it('freezes a desktop (every process of its VM stopped), refuses calls meanwhile, and resumes it as it was', async () => {
    const pid = (await exec(source, 'sleep 100000 >/dev/null 2>&1 & echo $!')).trim();
    const paused = await api('POST', `/v1/sandboxes/${source}/pause`);
    expect(paused.status, paused.bytes.toString()).toBe(200);
    expect(paused.json()).toMatchObject({ state: 'paused' });
    const vm = await vmOf(source);
    expect(vm.cgroup.frozen()).toBe(true);
    for (const path of ['/screenshot', '/display/windows']) {
      const refused = await api('GET', `/v1/sandboxes/${source}${path}`);
      expect([refused.status, (refused.json() as { error: string }).error]).toEqual([409, 'sandbox_paused']);
    }
    const again = await api('POST', `/v1/sandboxes/${source}/pause`);
    expect([again.status, (again.json() as { error: string }).error]).toEqual([409, 'sandbox_paused']);
    const resumed = await api('POST', `/v1/sandboxes/${source}/resume`);
    expect(resumed.json()).toMatchObject({ state: 'running', paused_at: null });
    expect(vm.cgroup.frozen()).toBe(false);
    expect(await exec(source, `kill -0 ${pid} && echo same process; kill ${pid}`)).toBe('same process\n');
    const shot = await api('GET', `/v1/sandboxes/${source}/screenshot`);
    expect([shot.status, shot.type]).toEqual([200, 'image/png']);
  }, 300_000);
});
