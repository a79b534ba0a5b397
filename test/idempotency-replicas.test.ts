// Idempotency-Key across API replicas (spec, Idempotency rule 4), with real processes: two
// `sandbay api` replicas and a `sandbay operator` on one SQLite store. A key in flight at replica 1
// is answered 409 by replica 2 (it must not run the work a second time); once replica 1 is
// SIGKILLed and its Lease lapses, replica 2 takes the key over and answers the sandbox replica 1's
// attempt had created (the record carries its name), not a second one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, type IdempotencyRecord, type Mini, type Sandbox } from '../crds/index.ts';
import { DATABASE_FILE } from '../store/open-store.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite-store.ts';
import { seedAccount } from './support/accounts.ts';
import { waitFor } from './support/wait.ts';

const CLI = path.join(import.meta.dirname, '..', 'cli', 'bin.ts');
// Short, so the takeover below comes soon; long enough that a loaded machine's stall of replica 1
// does not lapse it while the key is in flight there.
const LEASE_SECONDS = 5;

interface Proc {
  child: ChildProcess;
  lines: string[];
  exited: Promise<unknown>;
}
const procs: Proc[] = [];
let dir: string;
let store: SqliteStore;

function start(args: string[]): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(l));
  createInterface({ input: child.stderr! }).on('line', (l) => lines.push(l));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const proc = { child, lines, exited };
  procs.push(proc);
  return proc;
}

/** The customer URL once the process says it serves (or its output, when it exits instead). */
function servingUrl(proc: Proc, what: string): Promise<string> {
  return waitFor(
    () => {
      const line = proc.lines.find((l) => l.includes('sandbay is serving'));
      if (line) return (JSON.parse(line) as { url: string }).url;
      if (proc.child.exitCode !== null) throw new Error(`${what} exited:\n${proc.lines.join('\n')}`);
      return undefined;
    },
    what,
    60_000,
  );
}

const api = (id: string) =>
  start([
    'api',
    '--store',
    'sqlite',
    '--data-dir',
    dir,
    '--port',
    '0',
    '--admin-port',
    '0',
    '--host-driver',
    'sim',
    '--replica-id',
    id,
    '--replica-lease-seconds',
    String(LEASE_SECONDS),
  ]);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sandbay-idem-replicas-'));
  store = await openSqliteStore({ file: path.join(dir, DATABASE_FILE) });
}, 60_000);

afterAll(async () => {
  for (const p of procs) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
  }
  await Promise.all(procs.map((p) => p.exited));
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Whether every thread of a process is stopped (SIGSTOP is delivered to each thread in turn). */
async function stopped(pid: number): Promise<boolean> {
  const tasks = await readdir(`/proc/${pid}/task`);
  const states = await Promise.all(tasks.map((tid) => threadState(pid, tid)));
  return states.every((state) => state === 'T');
}

/** A thread's state letter in /proc (after the command name's closing parenthesis). */
async function threadState(pid: number, tid: string): Promise<string> {
  try {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2]!;
  } catch {
    return 'T'; // gone since the listing: it runs no more
  }
}

/**
 * Freezes a process at a moment it holds no write lock on the store: frozen inside a write, it would
 * hold every other process's writes for the whole busy timeout. Stopped at a bad moment, it is let
 * go and stopped again.
 */
async function freezeOutsideWrites(proc: Proc): Promise<void> {
  const probe = new DatabaseSync(path.join(dir, DATABASE_FILE), { timeout: 0 });
  try {
    for (;;) {
      proc.child.kill('SIGSTOP');
      await waitFor(() => stopped(proc.child.pid!), 'the process stopped');
      try {
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        return;
      } catch (err) {
        if (!/locked|busy/i.test(String(err))) throw err;
      }
      proc.child.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    probe.close();
  }
}

async function post(url: string, key: string, body: unknown, idem?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(idem !== undefined && { 'idempotency-key': idem }),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('Idempotency-Key across two API processes', () => {
  it(
    'keeps a key in flight at the other replica until that replica dies, then takes it over',
    { timeout: 240_000 },
    async () => {
      for (let i = 1; i <= 2; i++) {
        await store.create<Mini>({
          apiVersion: API_VERSION,
          kind: 'Mini',
          metadata: { name: `mini-${i}` },
          spec: { address: `10.0.0.${i}`, model: 'm4', driver: 'sim', schedulable: true },
        });
      }
      const accountKey = await seedAccount(store, 'acme', 1_000_000_000);
      const operator = start([
        'operator',
        '--store',
        'sqlite',
        '--data-dir',
        dir,
        '--host-driver',
        'sim',
        '--health-port',
        '0',
      ]);
      // One after the other: the first start of a data directory writes its admin key and TLS
      // material, which two processes starting at once would both write (api/admin-tls.ts).
      const replica1 = api('api-1');
      const url1 = await servingUrl(replica1, 'api-1');
      const url2 = await servingUrl(api('api-2'), 'api-2');
      const reserved = await post(`${url1}/v1/reservations`, accountKey, {
        hours: 24,
        mini_count: 2,
        mac_model: 'm4',
        vm_layout: 'split',
      });
      expect(reserved.status, JSON.stringify(reserved.body)).toBe(201);
      const key = reserved.body.key as string;
      // Replica 2 learns of the active reservation through its own watch (a 409 until then).
      await waitFor(
        async () => (await post(`${url2}/v1/sandboxes`, key, {})).status === 201,
        'a sandbox through replica 2 once the fleet is warm',
        60_000,
      );

      // The operator frozen: a create waits for it, in flight at replica 1.
      await freezeOutsideWrites(operator);
      // Its connection breaks when replica 1 dies below.
      const first = post(`${url1}/v1/sandboxes`, key, { cpu: 3 }, 'k-replicas').catch((err: unknown) => err);
      const record = await waitFor(async () => {
        const { items } = await store.list<IdempotencyRecord>('IdempotencyRecord', { namespace: 'acme' });
        return items.find((r) => r.status?.phase !== 'completed');
      }, 'the key in flight at replica 1');
      expect(record.spec.replica).toBe('api-1');
      // The attempt wrote its sandbox (under the name its record carries) before it died below.
      const orphan = await waitFor(async () => {
        const { items } = await store.list<Sandbox>('Sandbox', { namespace: 'acme' });
        return items.find((s) => s.spec.cpu === 3);
      }, 'the sandbox of the attempt in flight');
      expect(orphan.metadata.name).toBe(record.spec.resource);
      const atReplica2 = await post(`${url2}/v1/sandboxes`, key, { cpu: 3 }, 'k-replicas');
      expect([atReplica2.status, atReplica2.body.error]).toEqual([409, 'idempotency_in_flight']);

      // Replica 1 dies without a word; its Lease lapses; replica 2 runs the key.
      replica1.child.kill('SIGKILL');
      await replica1.exited;
      expect(await first).toBeInstanceOf(Error);
      operator.child.kill('SIGCONT');
      const retried = await waitFor(
        async () => {
          const r = await post(`${url2}/v1/sandboxes`, key, { cpu: 3 }, 'k-replicas');
          return r.status === 409 ? undefined : r;
        },
        'replica 2 to take the key over',
        60_000,
      );
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      // The retry answers the dead attempt's sandbox: never a second one (docs/api.md, Crash consistency).
      expect(retried.body.sandbox_id).toBe(orphan.metadata.name);
      const { items: sandboxes } = await store.list<Sandbox>('Sandbox', { namespace: 'acme' });
      expect(sandboxes.filter((s) => s.spec.cpu === 3).map((s) => s.metadata.name)).toEqual([
        orphan.metadata.name,
      ]);
      const taken = await store.get<IdempotencyRecord>({
        kind: 'IdempotencyRecord',
        namespace: 'acme',
        name: record.metadata.name,
      });
      expect(taken?.spec.replica).toBe('api-2');
      expect(taken?.status?.phase).toBe('completed');
    },
  );
});
