// Egress policy per sandbox on real desktops (docs/api.md, Egress; docs/isolation.md): `sandbay
// server` with outbound NAT runs in a machine namespace of the test's own whose only way out leads
// into the test's fake internet (an HTTP server per address, a DNS server: egress-world.ts). Every
// probe runs inside the VM as its tenant would, through the API's exec: curl to a name and to an
// address, and name lookups. Nothing leaves the real machine: the machine namespace routes nothing
// but the fake internet's /24.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, SandbayError } from '../sdk/typescript/src/index.ts';
import { startEgressWorld, WORLD, type EgressWorld } from './support/egress-world.ts';
import { waitFor } from './support/wait.ts';

const BIN = join(import.meta.dirname, '..', 'cli', 'bin.ts');
/** A test creates sandboxes and changes their policy several times: minutes on a machine shared by many runs. */
const LIFECYCLE_MS = 240_000;
let world: EgressWorld;
let key: string;

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${world.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A sandbox with `egress` (absent: the host's default), created as soon as a warm VM is there. */
async function create(egress?: unknown): Promise<string> {
  let id = '';
  await waitFor(
    async () => {
      const r = await call('POST', '/v1/sandboxes', egress === undefined ? {} : { egress });
      if (r.status !== 201 && r.json.error !== 'no_warm_vm' && r.json.error !== 'insufficient_capacity')
        throw new Error(`create: ${r.status} ${JSON.stringify(r.json)}`);
      id = (r.json.sandbox_id as string | undefined) ?? '';
      return r.status === 201;
    },
    'a warm sandbox',
    180_000,
  );
  return id;
}

const remove = (id: string) => call('DELETE', `/v1/sandboxes/${id}`);

async function sh(id: string, command: string): Promise<{ stdout: string; code: number }> {
  const r = await call('POST', `/v1/sandboxes/${id}/exec`, { command, timeout: 30 });
  expect(r.status).toBe(200);
  return { stdout: r.json.stdout as string, code: r.json.return_code as number };
}

/** What the VM gets from `http://<target>/` (its body), or `failed: …` with curl's exit code. */
async function fetchFromVm(id: string, target: string): Promise<string> {
  const r = await sh(id, `curl -sS -m 5 http://${target}/ 2>&1 || echo "failed: $?"`);
  return r.stdout.trim();
}

const resolves = async (id: string, name: string) => (await sh(id, `getent hosts ${name}`)).code === 0;
const asked = (name: string) => world.dnsQuestions.includes(name);

beforeAll(async () => {
  world = await startEgressWorld();
  const adminKey = (await readFile(join(world.dir, 'data', 'admin.key'), 'utf8')).trim();
  const { stdout: out } = await promisify(execFile)(
    process.execPath,
    [BIN, 'accounts', 'create', 'egress-co', '--credit-cents', '100000'],
    {
      env: { ...process.env, SANDBAY_URL: world.adminUrl, SANDBAY_ADMIN_KEY: adminKey },
    },
  );
  key = /api key:\s+(\S+)/.exec(out)?.[1] ?? '';
  const reserved = await call('POST', '/v1/reservations', { hours: 24, mini_count: 1, vm_layout: 'split' });
  expect(reserved.status).toBe(201);
}, 240_000);

afterAll(async () => {
  await world?.close();
}, 120_000);

describe('a sandbox’s egress policy, from inside its VM', { timeout: LIFECYCLE_MS }, () => {
  it('allow with a domain: the name resolves and its site answers; other names are NXDOMAIN unasked, other addresses refused', async () => {
    const id = await create({ mode: 'allow', allow: ['allowed.example'] });
    try {
      const info = await call('GET', `/v1/sandboxes/${id}`);
      expect(info.json.egress).toEqual({ mode: 'allow', allow: ['allowed.example'] });
      expect(await fetchFromVm(id, 'allowed.example')).toBe('allowed site');
      expect(asked('allowed.example')).toBe(true);
      expect(await resolves(id, 'other.example')).toBe(false);
      // Refused by the VM's answerer: the question never reached the internet's DNS server.
      expect(asked('other.example')).toBe(false);
      // The other site by its address: refused at once in the VM's namespace ("No route to host").
      expect(await fetchFromVm(id, '203.0.113.20')).toMatch(/failed: 7/);
    } finally {
      await remove(id);
    }
  });

  it('allow with a CIDR: that address answers, the rest does not', async () => {
    const id = await create({ mode: 'allow', allow: ['203.0.113.20/32'] });
    try {
      expect(await fetchFromVm(id, '203.0.113.20')).toBe('other site');
      expect(await fetchFromVm(id, '203.0.113.10')).toMatch(/failed: 7/);
      expect(await resolves(id, 'allowed.example')).toBe(false);
    } finally {
      await remove(id);
    }
  });

  it('none: no route out and no resolver, nothing reaches the internet', async () => {
    const before = world.dnsQuestions.length;
    const id = await create({ mode: 'none' });
    try {
      expect((await call('GET', `/v1/sandboxes/${id}/network`)).json).toMatchObject({
        egress: { mode: 'none', allow: [] },
        modes: ['none', 'all', 'allow'],
      });
      expect(await fetchFromVm(id, '203.0.113.10')).toMatch(/failed: 7/);
      expect(await resolves(id, 'allowed.example')).toBe(false);
      expect(world.dnsQuestions.length).toBe(before);
      expect((await sh(id, 'ip -4 route')).stdout).not.toContain('default');
    } finally {
      await remove(id);
    }
  });

  it('the host’s default (all, with --vm-outbound-nat): every site by name and address', async () => {
    const id = await create();
    try {
      expect((await call('GET', `/v1/sandboxes/${id}`)).json.egress).toEqual({ mode: 'all', allow: [] });
      expect(await fetchFromVm(id, 'allowed.example')).toBe('allowed site');
      expect(await fetchFromVm(id, 'other.example')).toBe('other site');
      expect(await fetchFromVm(id, '203.0.113.20')).toBe('other site');
      // Still never the machine namespace itself, nor a name nobody knows.
      expect(await fetchFromVm(id, WORLD.uplink)).toMatch(/failed: 7/);
      expect(await resolves(id, 'nowhere.example')).toBe(false);
    } finally {
      await remove(id);
    }
  });

  it('PATCH …/network changes a running sandbox’s policy, and a wildcard covers subdomains only', async () => {
    const id = await create({ mode: 'none' });
    try {
      expect(await fetchFromVm(id, 'allowed.example')).toMatch(/failed/);
      const widened = await call('PATCH', `/v1/sandboxes/${id}/network`, {
        egress: { mode: 'allow', allow: ['*.wild.example', 'Allowed.Example.'] },
      });
      expect(widened.status).toBe(200);
      expect(widened.json.egress).toEqual({ mode: 'allow', allow: ['*.wild.example', 'allowed.example'] });
      expect(await fetchFromVm(id, 'a.wild.example')).toBe('other site');
      expect(await fetchFromVm(id, 'allowed.example')).toBe('allowed site');
      expect(await resolves(id, 'wild.example')).toBe(false);
      // Narrowed: what the last policy let out is refused now, also an address it resolved before.
      const narrowed = await call('PATCH', `/v1/sandboxes/${id}/network`, {
        egress: { mode: 'allow', allow: ['allowed.example'] },
      });
      expect(narrowed.status).toBe(200);
      expect(await fetchFromVm(id, '203.0.113.20')).toMatch(/failed: 7/);
      expect(await resolves(id, 'a.wild.example')).toBe(false);
      expect(await fetchFromVm(id, 'allowed.example')).toBe('allowed site');
    } finally {
      await remove(id);
    }
  });

  it('a connection open under the old policy that the new one refuses stops at its next packet', async () => {
    const id = await create({ mode: 'all' });
    try {
      // One TCP connection kept open from inside the VM: a request on it now, and again after the PATCH.
      const probe = [
        'import os, socket, time',
        "req = b'GET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n'",
        "s = socket.create_connection(('203.0.113.10', 80), timeout=5)",
        's.sendall(req)',
        "open(os.path.expanduser('~/first.txt'), 'w').write(s.recv(4096).decode())",
        "while not os.path.exists(os.path.expanduser('~/go')): time.sleep(0.05)",
        'try:',
        '    s.sendall(req)',
        "    out = 'answer: ' + s.recv(4096).decode()",
        'except OSError as e:',
        "    out = 'error: ' + type(e).__name__",
        "open(os.path.expanduser('~/second.txt'), 'w').write(out)",
      ].join('\n');
      await sh(id, `cat > ~/probe.py <<'EOF'\n${probe}\nEOF\nnohup python3 ~/probe.py >/dev/null 2>&1 &`);
      await waitFor(
        async () => (await sh(id, 'cat ~/first.txt 2>/dev/null')).stdout.includes('allowed site'),
        'the first answer',
        15_000,
      );
      // Still a way out (the route stays), but not to this address: only the rules can stop it.
      const narrowed = await call('PATCH', `/v1/sandboxes/${id}/network`, {
        egress: { mode: 'allow', allow: ['203.0.113.20'] },
      });
      expect(narrowed.status).toBe(200);
      await sh(id, 'touch ~/go');
      const second = await waitFor(
        async () => (await sh(id, 'cat ~/second.txt 2>/dev/null')).stdout,
        'the second answer',
        20_000,
      );
      expect(second).toMatch(/^error: /);
    } finally {
      await remove(id);
    }
  });
});

describe('bad input and what the operator allows', { timeout: LIFECYCLE_MS }, () => {
  it('answers a rule that does not parse, or an unknown mode, with a JSON error and changes nothing', async () => {
    const id = await create({ mode: 'allow', allow: ['allowed.example'] });
    try {
      const cases: [unknown, number, string][] = [
        [{ mode: 'allow', allow: ['not a domain'] }, 400, 'invalid_egress'],
        [{ mode: 'allow', allow: ['10.0.0.0/8'] }, 400, 'invalid_egress'],
        [{ mode: 'allow', allow: ['2001:db8::/32'] }, 400, 'invalid_egress'],
        [{ mode: 'allow', allow: [] }, 400, 'invalid_egress'],
        [{ mode: 'none', allow: ['allowed.example'] }, 400, 'invalid_egress'],
        [{ mode: 'some' }, 400, 'invalid_request'],
      ];
      for (const [egress, status, error] of cases) {
        const r = await call('PATCH', `/v1/sandboxes/${id}/network`, { egress });
        expect({ egress, status: r.status, error: r.json.error }).toEqual({ egress, status, error });
        expect(r.json.message).toEqual(expect.any(String));
      }
      expect((await call('GET', `/v1/sandboxes/${id}/network`)).json.egress).toEqual({
        mode: 'allow',
        allow: ['allowed.example'],
      });
      expect(await fetchFromVm(id, 'allowed.example')).toBe('allowed site');
      const count = async () => ((await call('GET', '/v1/sandboxes')).json as unknown as unknown[]).length;
      const before = await count();
      const created = await call('POST', '/v1/sandboxes', { egress: { mode: 'allow', allow: ['exa mple'] } });
      expect(created).toMatchObject({ status: 400, json: { error: 'invalid_egress' } });
      expect(await count()).toBe(before);
    } finally {
      await remove(id);
    }
  });
});

describe('through the SDKs', { timeout: LIFECYCLE_MS }, () => {
  /** Creates through `make` as soon as a warm VM is there (503 no_warm_vm meanwhile). */
  const whenWarm = <T>(make: () => Promise<T>) => {
    let made: T | undefined;
    return waitFor(
      async () => {
        try {
          made = await make();
          return true;
        } catch (err) {
          if (err instanceof SandbayError && err.code === 'no_warm_vm') return false;
          throw err;
        }
      },
      'a warm sandbox',
      180_000,
    ).then(() => made!);
  };

  it('TypeScript: create with egress, read the network, change it while the sandbox runs', async () => {
    const client = new Client({ apiKey: key, baseUrl: world.url });
    const sb = await whenWarm(() =>
      client.create({ ephemeral: false, egress: { mode: 'allow', allow: ['allowed.example'] } }),
    );
    try {
      expect(await sb.network()).toEqual({
        egress: { mode: 'allow', allow: ['allowed.example'] },
        modes: ['none', 'all', 'allow'],
        domains: true,
      });
      expect(await fetchFromVm(sb.id, 'allowed.example')).toBe('allowed site');
      expect(await fetchFromVm(sb.id, 'other.example')).toMatch(/failed: 6/);
      expect((await sb.setEgress({ mode: 'allow', allow: ['other.example'] })).egress).toEqual({
        mode: 'allow',
        allow: ['other.example'],
      });
      expect(await fetchFromVm(sb.id, 'other.example')).toBe('other site');
      expect(await fetchFromVm(sb.id, '203.0.113.10')).toMatch(/failed: 7/);
      const refused = await sb.setEgress({ mode: 'allow', allow: ['10.1.2.3'] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SandbayError);
      expect((refused as SandbayError).code).toBe('invalid_egress');
      expect((await sb.network()).egress).toEqual({ mode: 'allow', allow: ['other.example'] });
    } finally {
      await sb.delete();
    }
  });

  it('Python: create with egress, read the network, change it while the sandbox runs', async () => {
    const script = `
import json, sys, time
from sandbay import Client, SandbayError
client = Client()
out = {}
for _ in range(180):
    try:
        sb = client.create(ephemeral=False, egress={"mode": "none"})
        break
    except SandbayError as e:
        if e.code != "no_warm_vm":
            raise
        time.sleep(1)
try:
    out["created"] = sb.network()
    out["none"] = sb.exec("curl -sS -m 5 http://203.0.113.10/ || echo failed $?")["stdout"]
    out["set"] = sb.set_egress("allow", ["203.0.113.10/32"])
    out["allowed"] = sb.exec("curl -sS -m 5 http://203.0.113.10/")["stdout"]
    out["other"] = sb.exec("curl -sS -m 5 http://203.0.113.20/ || echo failed $?")["stdout"]
    try:
        sb.set_egress("sometimes")
    except SandbayError as e:
        out["bad_mode"] = [e.status, e.code]
finally:
    sb.delete()
print(json.dumps(out))
`;
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', script], {
      env: {
        ...process.env,
        PYTHONPATH: join(import.meta.dirname, '..', 'sdk', 'python', 'src'),
        SANDBAY_URL: world.url,
        SANDBAY_API_KEY: key,
        PYTHONDONTWRITEBYTECODE: '1',
      },
      timeout: 300_000,
    });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out.created).toMatchObject({ egress: { mode: 'none', allow: [] } });
    expect(out.none).toMatch(/failed 7/);
    expect(out.set).toMatchObject({ egress: { mode: 'allow', allow: ['203.0.113.10/32'] } });
    expect(out.allowed).toBe('allowed site\n');
    expect(out.other).toMatch(/failed 7/);
    expect(out.bad_mode).toEqual([400, 'invalid_request']);
  }, 300_000);
});
