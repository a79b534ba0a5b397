// The customer listener under fuzz: the customer API and the pages `sandbay server` serves beside it
// (api/server.ts `customerPages`), on a real loopback listener, over a sim fleet under the real
// operator and a real SQLite store. Two accounts, each with a reservation and a running sandbox; the
// fuzzed one also has a recording, a snapshot, tasks (one with steps and a replay, one empty), a
// dashboard session and a viewer link, so that valid ids reach the handlers. Sim guests keep time on
// a clock of their own that moves as soon as something waits on it (a typing delay, `sleep` in exec),
// so no sim wait holds a request for real time.
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { STORE_KINDS, type AnyResource, type Sandbox, type VM } from '../../../crds/index.ts';
import { createBlobStore } from '../../../operator/blob-store.ts';
import { FakeClock } from '../../../operator/runtime/clock.ts';
import { loadDashboard } from '../../../api/routes/dashboard.ts';
import { customerPages } from '../../../api/server.ts';
import { seedAccount, seedKey, startApiStack, tempDir, waitFor, type ApiStack } from '../../api-harness.ts';
import { seedTask } from '../../task-fixtures.ts';
import type { HttpWorld } from './http-targets.ts';
import type { WsWorld } from './ws-targets.ts';
import { routesOf, schemaInput, type RouteInput, type RouteRef } from './route-list.ts';

const ACCOUNT = 'fuzz';
const OTHER = 'other';
const TASK = 'fuzz-task';
const EMPTY_TASK = 'fuzz-empty';
const CREDIT_CENTS = 1_000_000_000;

/** Routes without a schema: pages and the docs page's files, which take no input but their path. */
const PAGE_ROUTES = /^\/(|openapi\.json|docs(\/.*)?|view\/.*|dashboard(\/.*)?)$/;

interface Ids {
  key: string;
  reservation: string;
  reservationKey: string;
  sandbox: string;
  recording: string;
  snapshot: string;
  replay: string;
  viewerToken: string;
  session: { cookie: string; csrf: string };
  otherKey: string;
  otherSandbox: string;
  otherReservation: string;
  adminKey: string;
  blob: string;
}

export interface CustomerWorld extends WsWorld {
  stack: ApiStack;
  /** The fuzzed account's sandbox, the other account's, and an id no sandbox has. */
  sandboxIds(): string[];
  routes: RouteRef[];
  inputOf(route: RouteRef): RouteInput | undefined;
  close(): Promise<void>;
}

export async function startCustomerWorld(opts: { deadlineMs: number }): Promise<CustomerWorld> {
  const guestClock = new FakeClock();
  // Whatever a sim guest waits for happens at once: its clock jumps to the next timer.
  const pump = setInterval(() => {
    const at = guestClock.nextTimerAt();
    if (at !== undefined) guestClock.advance(Math.max(0, at - guestClock.now()));
  }, 1);
  const blobDir = await tempDir('sandbay-fuzz-blobs-');
  await mkdir(path.join(blobDir.dir, 'blobs'));
  const blobs = createBlobStore(path.join(blobDir.dir, 'blobs'));
  const stack = await startApiStack(
    [{ name: 'mini-1' }, { name: 'mini-2' }, { name: 'mini-3' }, { name: 'mini-4', pool: true }],
    {
      blobs,
      ...(process.env.FUZZ_LOG && { logger: (await import('pino')).default({ level: 'debug' }) as never }),
    },
    { sim: { clock: guestClock } },
  );
  const { f, app } = stack;
  for (const page of customerPages(await loadDashboard())) await app.register(page);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;

  const call = async (key: string | undefined, method: string, url: string, body?: unknown) => {
    const r = await stack.call(key, method as 'GET', url, body);
    return { status: r.statusCode, body: r.body ? (JSON.parse(r.body) as Record<string, unknown>) : {} };
  };
  const createSandbox = async (key: string, reservation: string) => {
    let last = '';
    return waitFor(
      async () => {
        const r = await call(key, 'POST', '/v1/sandboxes', { reservation_id: reservation });
        last = `${r.status} ${JSON.stringify(r.body)}`;
        return r.status === 201 ? String(r.body.sandbox_id) : undefined;
      },
      () => `a sandbox to be created (last answer: ${last})`,
    );
  };

  const key = await seedAccount(f.store, ACCOUNT, CREDIT_CENTS);
  const otherKey = await seedAccount(f.store, OTHER, CREDIT_CENTS);
  const reservation = await stack.reserve(key);
  const otherReservation = await stack.reserve(otherKey);
  const ids: Ids = {
    key,
    reservation: reservation.id,
    reservationKey: reservation.key,
    sandbox: await createSandbox(key, reservation.id),
    recording: '',
    snapshot: '',
    replay: '',
    viewerToken: '',
    session: { cookie: '', csrf: '' },
    otherKey,
    otherSandbox: await createSandbox(otherKey, otherReservation.id),
    otherReservation: otherReservation.id,
    adminKey: await seedKey(f.store, { kind: 'admin' }),
    blob: '',
  };
  await seedTask(f.store, blobs, ACCOUNT, TASK, {
    steps: [
      { function: 'click', args: { x: 10, y: 20 } },
      { function: 'type', args: { text: 'hi' } },
    ],
    recording: Buffer.from('mp4 bytes'),
  });
  await seedTask(f.store, blobs, OTHER, TASK, { steps: [{ function: 'click', args: { x: 1, y: 1 } }] });

  const list = async <T extends AnyResource>(kind: string) => (await f.store.list<T>(kind)).items;

  /**
   * Waits until nothing started by a request is still going: nothing being deleted, sandboxes
   * running (or failed), replays and snapshots done, each VM in the phase its claim gives it (the
   * pool marks a claimed VM occupied in a pass of its own) and on its Mac, warm pools full.
   */
  async function quiet(): Promise<void> {
    let busy = '';
    await waitFor(
      async () => (busy = await unsettled()) === '',
      () => `the fleet to settle (still: ${busy})`,
      30_000,
    );
    await f.poolsReady();
  }

  /** What is still going on, or '' when nothing is. */
  async function unsettled(): Promise<string> {
    const name = (o: AnyResource) =>
      `${o.kind} ${o.metadata.name} ${String((o.status as { phase?: string })?.phase)}`;
    const all = (await Promise.all(STORE_KINDS.map(({ kind }) => list(kind)))).flat();
    const busy = all.filter((o) => {
      if (o.metadata.deletionTimestamp) return true;
      const phase = (o.status as { phase?: string } | undefined)?.phase ?? '';
      switch (o.kind) {
        case 'Sandbox':
          return !['running', 'failed'].includes(phase);
        case 'Replay':
          return !['completed', 'failed'].includes(phase);
        case 'Snapshot':
          return !['ready', 'failed'].includes(phase);
        // A stopped collection's task is finalized (its recording closed) in the background.
        case 'Task':
          return phase === 'finalizing';
        case 'VM':
          return (o as VM).spec.sandbox ? phase !== 'occupied' : !['warm', 'stopped'].includes(phase);
        default:
          return false;
      }
    });
    if (busy.length) return busy.map(name).join(', ');
    const known = new Set(all.filter((o) => o.kind === 'VM').map((vm) => (vm as VM).status?.vmName));
    const strays = f.sim
      .addresses()
      .flatMap((address) =>
        (f.sim.inspect(address)?.vms ?? []).filter((vm) => !known.has(vm.name)).map((vm) => vm.name),
      );
    return strays.length ? `VMs on the Macs but not in the store: ${strays.join(', ')}` : '';
  }

  /** Brings back what the fixture needs, after a request that may have deleted or revoked it. */
  async function repair(): Promise<void> {
    await quiet();
    // A collection left running would record the next cases' input in the background.
    if ((await call(ids.key, 'GET', `/v1/sandboxes/${ids.sandbox}/collection`)).status === 200)
      await call(ids.key, 'POST', `/v1/sandboxes/${ids.sandbox}/collection/stop`);
    // A key rotated (or a reservation key used up) by a request is replaced by a fresh one.
    if ((await call(ids.key, 'GET', '/v1/me')).status !== 200)
      ids.key = await seedKey(f.store, { kind: 'account', account: ACCOUNT });
    if ((await call(ids.otherKey, 'GET', '/v1/me')).status !== 200)
      ids.otherKey = await seedKey(f.store, { kind: 'account', account: OTHER });
    // Sandboxes a request created are deleted; the fixture's are made again if a request deleted them.
    await deleteStraySandboxes();
    if ((await call(ids.key, 'GET', `/v1/sandboxes/${ids.sandbox}`)).status !== 200) {
      await quiet();
      ids.sandbox = await createSandbox(ids.key, ids.reservation);
      ids.recording = '';
      ids.viewerToken = '';
    }
    if ((await call(ids.otherKey, 'GET', `/v1/sandboxes/${ids.otherSandbox}`)).status !== 200) {
      await quiet();
      ids.otherSandbox = await createSandbox(ids.otherKey, ids.otherReservation);
    }
    const recordings = (await call(ids.key, 'GET', `/v1/sandboxes/${ids.sandbox}/recordings`))
      .body as unknown as { id: string }[];
    if (!ids.recording || !recordings.some((r) => r.id === ids.recording))
      ids.recording = String(
        (await call(ids.key, 'POST', `/v1/sandboxes/${ids.sandbox}/recording/start`, {})).body.id,
      );
    if ((await call(ids.key, 'GET', `/v1/snapshots/${ids.snapshot || 'none'}`)).status !== 200) {
      const r = await call(ids.key, 'POST', `/v1/sandboxes/${ids.sandbox}/snapshots`, { name: 'fuzz' });
      ids.snapshot = String(r.body.version);
    }
    if ((await call(ids.key, 'GET', `/v1/me/tasks/${TASK}`)).status !== 200)
      await seedTask(f.store, blobs, ACCOUNT, TASK, {
        steps: [{ function: 'click', args: { x: 10, y: 20 } }],
      });
    const empty = await call(ids.key, 'GET', `/v1/me/tasks/${EMPTY_TASK}`);
    if (empty.status !== 200 || empty.body.phase !== 'recording') {
      if (empty.status === 200) await call(ids.key, 'DELETE', `/v1/me/tasks/${EMPTY_TASK}`);
      await call(ids.key, 'POST', '/v1/me/tasks', { id: EMPTY_TASK, instruction: 'nothing yet' });
    }
    if (!ids.replay || (await call(ids.key, 'GET', `/v1/me/tasks/replays/${ids.replay}`)).status !== 200) {
      ids.replay = String((await call(ids.key, 'POST', `/v1/me/tasks/${TASK}/replay`, {})).body.id);
    }
    if (
      !ids.viewerToken ||
      (await call(ids.key, 'GET', `/v1/sandboxes/${ids.sandbox}`)).body.vnc_url === undefined
    )
      ids.viewerToken = String(
        (await call(ids.key, 'POST', `/v1/sandboxes/${ids.sandbox}/viewer-token`)).body.token,
      );
    if (!ids.session.cookie || (await sessionWorks()) === false) await signIn();
    if (!ids.blob || (await call(ids.key, 'GET', `/v1/blobs/${ids.blob}`)).status !== 200) {
      const r = await app.inject({
        method: 'POST',
        url: '/v1/blobs?filename=fuzz.txt',
        headers: { authorization: `Bearer ${ids.key}`, 'content-type': 'application/octet-stream' },
        payload: Buffer.from('a blob the fuzzer reads'),
      });
      ids.blob = String(r.json<{ id: string }>().id);
    }
    await quiet();
    // The replay made above ran on a sandbox of its own, which would be deleted under later cases.
    await deleteStraySandboxes();
    await quiet();
  }

  /** Deletes every sandbox but the fixture's two (a request's, a replay's once it is done). */
  async function deleteStraySandboxes(): Promise<void> {
    const keep = new Set([ids.sandbox, ids.otherSandbox]);
    for (const s of await list<Sandbox>('Sandbox'))
      if (!keep.has(s.metadata.name))
        await f.store.delete({ kind: 'Sandbox', namespace: s.metadata.namespace!, name: s.metadata.name });
  }

  async function signIn(): Promise<void> {
    const r = await stack.call(undefined, 'POST', '/v1/session', { key: ids.key });
    const cookie = String(r.headers['set-cookie'] ?? '').split(';')[0]!;
    ids.session = { cookie, csrf: String(r.json<{ csrf_token: string }>().csrf_token) };
  }
  async function sessionWorks(): Promise<boolean> {
    const r = await stack.call(undefined, 'GET', '/v1/session', undefined, { cookie: ids.session.cookie });
    return r.statusCode === 200;
  }

  await repair();
  const routes = routesOf(app);

  const unknownSandbox = `sb-${'0'.repeat(31)}1`;
  const world: CustomerWorld = {
    stack,
    sandboxIds: () => [ids.sandbox, ids.otherSandbox, unknownSandbox],
    async viewerToken(sandbox) {
      const owner = sandbox === ids.otherSandbox ? ids.otherKey : ids.key;
      const r = await call(owner, 'POST', `/v1/sandboxes/${sandbox}/viewer-token`);
      return String(r.body.token);
    },
    port,
    deadlineMs: opts.deadlineMs,
    routes,
    inputOf: (route) => schemaInput(route) ?? (PAGE_ROUTES.test(route.url) ? {} : undefined),
    params(name) {
      switch (name) {
        case 'sandboxID':
          return [ids.sandbox, ids.sandbox, ids.otherSandbox, unknownSandbox];
        case 'reservationID':
          return [ids.reservation, ids.otherReservation, '00000000-0000-4000-8000-000000000000'];
        case 'recordingID':
          return [ids.recording, 'rec-unknown'];
        case 'version':
          return [ids.snapshot, 'snap-unknown'];
        case 'id':
          return [TASK, EMPTY_TASK, 'no-such-task', 'replays'];
        case 'index':
          return ['0', '1', '2', '999', '-1'];
        // Forwarded ports (main's api/routes/ports): a port a VM may serve, its sshd's, and out of range.
        case 'port':
          return ['8080', '22', '0', '65536'];
        case 'blobID':
          return [ids.blob, `sha256-${'0'.repeat(64)}`, 'not-a-blob'];
        case 'replayID':
          return [ids.replay, `rp-${'0'.repeat(32)}`];
        // Evaluation runs: none is made in this world (a run needs an agent endpoint); the id's shape is what is fuzzed.
        case 'runID':
          return [`ev-${'0'.repeat(16)}`, 'ev-not-hex', 'EV-0000000000000000'];
        case 'name':
          return ['index.js', 'index.css', 'missing.js'];
        case '*':
          return ['', 'index.html', 'core/rfb.js', 'static/index.html', 'json', 'a/../../package.json'];
        default:
          return undefined;
      }
    },
    credentials() {
      const bearer = (k: string): [string, string][] => [['Authorization', `Bearer ${k}`]];
      return [
        bearer(ids.key),
        bearer(ids.reservationKey),
        [
          ['Cookie', ids.session.cookie],
          ['X-CSRF-Token', ids.session.csrf],
        ],
        [['Cookie', ids.session.cookie]],
        [],
        bearer('sbk_not-a-key'),
        bearer(ids.otherKey),
        bearer(ids.adminKey),
        [['Authorization', `Basic ${Buffer.from(`x:${ids.key}`).toString('base64')}`]],
        [['Authorization', `bearer  ${ids.key}`]],
        [
          ['Authorization', `Bearer ${ids.key}`],
          ['Authorization', 'Bearer x'],
        ],
        [['Authorization', `Bearer ${ids.key}\u00ff`]],
      ];
    },
    hints(route) {
      const sb = ids.sandbox;
      const table: Record<string, ReturnType<HttpWorld['hints']>> = {
        'POST /v1/sandboxes': { body: { reservation_id: ids.reservation } },
        'GET /v1/sandboxes': { query: { reservation_id: ids.reservation } },
        'GET /v1/platforms': { query: { reservation_id: ids.reservation } },
        'PATCH /v1/reservations/:reservationID': { body: { hours: 48 } },
        'POST /v1/sandboxes/:sandboxID/exec': { body: { command: 'echo hi; sleep 2', timeout: 5 } },
        'POST /v1/sandboxes/:sandboxID/keyboard/type': { body: { text: 'hi', delay: 50 } },
        'POST /v1/sandboxes/:sandboxID/recording/stop': { body: { id: ids.recording } },
        'POST /v1/sandboxes/:sandboxID/collection': { body: { task_id: EMPTY_TASK, run_setup: false } },
        'POST /v1/me/tasks/:id/replay': { body: { reservation_id: ids.reservation } },
        'GET /v1/snapshots': { query: { sandbox_id: sb } },
        'POST /v1/sandboxes/:sandboxID/snapshots': { body: { name: 'fz' } },
        'GET /v1/sandboxes/:sandboxID/files': { query: { path: 'a.txt' } },
        'PUT /v1/sandboxes/:sandboxID/files': { query: { path: 'a.txt' }, raw: [Buffer.from('hello')] },
        'PUT /v1/sandboxes/:sandboxID/files/archive': { query: { path: 'dir' }, raw: [Buffer.alloc(1024)] },
        'GET /v1/sandboxes/:sandboxID/vnc': { query: { token: ids.viewerToken } },
        'POST /v1/session': { body: { key: ids.key } },
      };
      return table[route] ?? {};
    },
    errorShape: () => 'sandbay',
    // An act's wait action waits as long as it asks (OpenAI `ms`, Anthropic `duration` in seconds).
    askedMs(route, body) {
      if (!route.endsWith('/act') || typeof body !== 'object' || body === null) return 0;
      const { ms, duration, screenshot_delay_ms } = body as Record<string, unknown>;
      const n = (v: unknown, scale = 1) => (typeof v === 'number' && Number.isFinite(v) ? v * scale : 0);
      return n(ms) + n(duration, 1000) + n(screenshot_delay_ms);
    },
    // The sim's VMs have no sshd nor VNC server: a request that passes every check answers 502 there.
    worldFailure: (route, e) =>
      /\/(ssh\/credentials|ssh|vnc)$/.test(route) &&
      e.kind === 'answer' &&
      e.status === 502 &&
      (route.startsWith('HEAD') || e.body.toString().includes('"guest_unreachable"')),
    async state({ keyed }) {
      const out = new Map<string, string>();
      for (const { kind } of STORE_KINDS) {
        // The replica's Lease is renewed on a timer; a keyed 4xx is recorded as the key's answer (spec).
        if (kind === 'Lease' || (keyed && kind === 'IdempotencyRecord')) continue;
        for (const o of await list(kind)) {
          const {
            resourceVersion: _rv,
            managedFields: _mf,
            ...metadata
          } = o.metadata as AnyResource['metadata'] & {
            managedFields?: unknown;
          };
          const status = { ...(o.status as Record<string, unknown> | undefined) };
          // Activity is recorded on any call that reaches a sandbox, refused or not (the idle reaper's input).
          delete status.lastActive;
          out.set(
            `${kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`,
            JSON.stringify([metadata, o.spec, status]),
          );
        }
      }
      for (const address of f.sim.addresses()) {
        type SimVmView = {
          guest?: { cursor: unknown; typed: string; inputEvents: number; recordings: Map<string, unknown> };
        };
        const host = f.sim.host({ name: address, address, model: 'm4' }) as unknown as {
          vms(): {
            name: string;
            state: string;
            disk?: { files: Map<string, Buffer> };
            guest?: { cursor: unknown; typed: string; inputEvents: number; recordings: Map<string, unknown> };
            guestState(): NonNullable<SimVmView['guest']>;
          }[];
        };
        for (const vm of host.vms()) {
          const files = [...(vm.disk?.files ?? new Map<string, Buffer>())].map(([p, b]) => [
            p,
            b.toString('base64'),
          ]);
          // The sim makes a running VM's guest state on first touch (a screenshot makes it too):
          // made here, so that a request that only looked does not count as a change.
          const g = vm.guest ?? (vm.state === 'running' ? vm.guestState() : undefined);
          const guest = g && [g.cursor, g.typed, g.inputEvents, JSON.stringify([...g.recordings])];
          out.set(`guest/${address}/${vm.name}`, JSON.stringify([vm.state, files, guest]));
        }
      }
      return out;
    },
    async settle(route: string) {
      if (/^(GET|HEAD) /.test(route)) return;
      await repair();
    },
    async close() {
      clearInterval(pump);
      await stack.cleanup();
      await blobDir.cleanup();
    },
  };
  return world;
}
