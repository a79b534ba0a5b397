// The entry point: `new Client({ apiKey, baseUrl })` (defaults: SANDBAY_API_KEY, SANDBAY_URL).
// Account-level calls live here; per-sandbox calls on the Sandbox it returns.
import { envVar } from './env.ts';
import { readEvents } from './events.ts';
import { newIdempotencyKey, Transport } from './http.ts';
import { Sandbox } from './sandbox.ts';
import { Tasks } from './tasks.ts';
import { EvaluationRuns } from './evaluation-runs.ts';
import type {
  Account,
  AccountKey,
  Blob,
  EgressPolicy,
  Health,
  PlatformModel,
  Platforms,
  RotatedKey,
  Session,
  Reservation,
  ReservationCreated,
  SandboxCreated,
  SandboxInfo,
  Snapshot,
} from './types.ts';

export interface ClientOptions {
  /** Account or reservation key. Default: `SANDBAY_API_KEY`. */
  apiKey?: string;
  /**
   * In a browser on the API's own origin: authenticate with the dashboard's session cookie instead of
   * a key (sign in with `signIn(key)`, or resume with `session()`). No `apiKey` is needed then.
   */
  session?: boolean;
  /** The customer API. Default: `SANDBAY_URL`, else `http://127.0.0.1:8080`. */
  baseUrl?: string;
  /** Timeout of one attempt of an ordinary call, in ms (default 60 000); creates and snapshots wait longer. */
  timeoutMs?: number;
  /** Retries of a call that may be repeated safely (default 3). */
  maxRetries?: number;
  /** A fetch implementation (default: the runtime's). */
  fetch?: typeof fetch;
}

export interface ReserveOptions {
  /** At least 24. */
  hours: number;
  miniCount?: number;
  macModel?: 'm4' | 'm4-pro' | 'm5-pro';
  vmLayout?: 'split' | 'whole';
}

export interface CreateOptions {
  cpu?: number;
  memoryGib?: number;
  diskGib?: number;
  reservationId?: string;
  /** A snapshot version to restore. */
  snapshot?: string;
  /** Default **true** (the spec's SDK default): destroyed after about 2 idle minutes; keep it with startKeepalive(). */
  ephemeral?: boolean;
  /** A pool sandbox (outside reservations, account key only): paid per started hour, deleted after 24 hours. */
  pool?: boolean;
  /** With `pool`: the Mac model (default m4). */
  macModel?: 'm4' | 'm4-pro' | 'm5-pro';
  /** Pins the sandbox to one Mac of the reservation: its Mini name or IP (422 `host_not_reserved` otherwise). */
  host?: string;
  /** Where the VM may connect to (docs/api.md, Egress); default: its Mac's. */
  egress?: EgressPolicy;
  /** Default: a fresh key per call, so retries of this call never create twice. */
  idempotencyKey?: string;
}

/** The create waits for the VM: up to 10 minutes, 25 for a restore (spec: attempt deadlines). */
const CREATE_TIMEOUT_MS = 11 * 60_000;
const RESTORE_TIMEOUT_MS = 26 * 60_000;

export class Client {
  readonly tasks: Tasks;
  readonly evaluationRuns: EvaluationRuns;
  readonly #t: Transport;

  constructor(o: ClientOptions = {}) {
    const apiKey = o.session ? undefined : (o.apiKey ?? envVar('SANDBAY_API_KEY'));
    if (!apiKey && !o.session) throw new Error('sandbay: pass apiKey or set SANDBAY_API_KEY');
    this.#t = new Transport({
      apiKey,
      baseUrl: o.baseUrl ?? envVar('SANDBAY_URL') ?? 'http://127.0.0.1:8080',
      timeoutMs: o.timeoutMs ?? 60_000,
      maxRetries: o.maxRetries ?? 3,
      fetch: o.fetch ?? globalThis.fetch.bind(globalThis),
    });
    this.tasks = new Tasks(this.#t);
    this.evaluationRuns = new EvaluationRuns(this.#t);
  }

  get baseUrl(): string {
    return this.#t.baseUrl;
  }

  // ---- reservations ----

  /** Buys a reservation (account key); the answer carries its key once. */
  reserve(o: ReserveOptions): Promise<ReservationCreated> {
    return this.#t.json('POST', '/v1/reservations', {
      json: {
        hours: o.hours,
        ...(o.miniCount !== undefined && { mini_count: o.miniCount }),
        ...(o.macModel !== undefined && { mac_model: o.macModel }),
        ...(o.vmLayout !== undefined && { vm_layout: o.vmLayout }),
      },
      timeoutMs: 120_000,
    });
  }

  getReservation(id: string): Promise<Reservation> {
    return this.#t.json('GET', `/v1/reservations/${encodeURIComponent(id)}`);
  }

  /** The account's reservations, past ones included, oldest first. */
  listReservations(): Promise<Reservation[]> {
    return this.#t.json('GET', '/v1/reservations');
  }

  /** The reservation of the reservation key this client uses. */
  myReservation(): Promise<Reservation> {
    return this.#t.json('GET', '/v1/reservations/me');
  }

  /** Adds hours or changes the layout (account key). */
  editReservation(id: string, o: { hours?: number; vmLayout?: 'split' | 'whole' }): Promise<Reservation> {
    return this.#t.json('PATCH', `/v1/reservations/${encodeURIComponent(id)}`, {
      json: {
        ...(o.hours !== undefined && { hours: o.hours }),
        ...(o.vmLayout !== undefined && { vm_layout: o.vmLayout }),
      },
    });
  }

  platforms(o: { reservationId?: string } = {}): Promise<Platforms> {
    return this.#t.json('GET', '/v1/platforms', { query: { reservation_id: o.reservationId } });
  }

  health(): Promise<Health> {
    return this.#t.json('GET', '/health');
  }

  /**
   * Rates and availability per model and layout, live: the current models now, then again after
   * every change (server-sent events). Ends when `signal` aborts or the server closes the stream.
   */
  async *watchPlatforms(o: { signal?: AbortSignal } = {}): AsyncGenerator<PlatformModel[]> {
    const res = await this.#t.call('GET', '/v1/platforms/events');
    if (!res.body) return;
    for await (const e of readEvents(res.body, o.signal))
      if (e.event === 'models') yield JSON.parse(e.data) as PlatformModel[];
  }

  // ---- the account, and the dashboard's browser session ----

  /** The account this key acts for, with its credit left. */
  account(): Promise<Account> {
    return this.#t.json('GET', '/v1/me');
  }

  /** The account's live keys, each with its plaintext (account key only). */
  keys(): Promise<AccountKey[]> {
    return this.#t.json('GET', '/v1/me/keys');
  }

  /** Issues a new account key and revokes the one in use (a session moves to the new key). */
  async rotateKey(): Promise<RotatedKey> {
    const rotated = await this.#t.json<RotatedKey>('POST', '/v1/me/keys/rotate');
    if (this.#t.apiKey === undefined) await this.session();
    return rotated;
  }

  /** Signs a browser session in with the account key (sets the HttpOnly cookie). */
  async signIn(key: string): Promise<Session> {
    const session = await this.#t.json<Session>('POST', '/v1/session', { json: { key } });
    this.#t.csrfToken = session.csrf_token;
    return session;
  }

  /** The current browser session (401 when signed out); keeps its CSRF token for later calls. */
  async session(): Promise<Session> {
    const session = await this.#t.json<Session>('GET', '/v1/session');
    this.#t.csrfToken = session.csrf_token;
    return session;
  }

  /** Signs the browser session out (clears the cookie). */
  async signOut(): Promise<void> {
    await this.#t.none('DELETE', '/v1/session');
    this.#t.csrfToken = undefined;
  }

  // ---- sandboxes ----

  /** Creates a sandbox (ephemeral unless `ephemeral: false`), retried safely with one Idempotency-Key. */
  async create(o: CreateOptions = {}): Promise<Sandbox> {
    const created = await this.#t.json<SandboxCreated>('POST', '/v1/sandboxes', {
      json: {
        ephemeral: o.ephemeral ?? true,
        ...(o.cpu !== undefined && { cpu: o.cpu }),
        ...(o.memoryGib !== undefined && { memory_gib: o.memoryGib }),
        ...(o.diskGib !== undefined && { disk_gib: o.diskGib }),
        ...(o.reservationId !== undefined && { reservation_id: o.reservationId }),
        ...(o.snapshot !== undefined && { snapshot: o.snapshot }),
        ...(o.pool !== undefined && { pool: o.pool }),
        ...(o.macModel !== undefined && { mac_model: o.macModel }),
        ...(o.host !== undefined && { host: o.host }),
        ...(o.egress !== undefined && { egress: o.egress }),
      },
      idempotencyKey: o.idempotencyKey ?? newIdempotencyKey(),
      timeoutMs: o.snapshot === undefined ? CREATE_TIMEOUT_MS : RESTORE_TIMEOUT_MS,
    });
    return new Sandbox(this.#t, created.sandbox_id, created.ephemeral);
  }

  /** Restores a snapshot into a new sandbox (a create with `snapshot`). */
  restore(version: string, o: Omit<CreateOptions, 'snapshot'> = {}): Promise<Sandbox> {
    return this.create({ ...o, snapshot: version });
  }

  /** A handle on an existing sandbox (checked: 404 if it is not the caller's). */
  async get(id: string): Promise<Sandbox> {
    const info = await this.#t.json<SandboxInfo>('GET', `/v1/sandboxes/${encodeURIComponent(id)}`);
    return new Sandbox(this.#t, info.sandbox_id, info.ephemeral);
  }

  /**
   * A handle on a sandbox by id, without a request (for callers that hold only the id; the first
   * call on it answers 404 if it is not the caller's). Its dispose never deletes the sandbox.
   */
  sandbox(id: string): Sandbox {
    return new Sandbox(this.#t, id, false);
  }

  /** The caller's sandboxes, oldest first. */
  list(o: { reservationId?: string } = {}): Promise<SandboxInfo[]> {
    return this.#t.json('GET', '/v1/sandboxes', { query: { reservation_id: o.reservationId } });
  }

  // ---- snapshots ----

  /** The account's snapshots, oldest first (optionally of one sandbox). */
  snapshots(o: { sandboxId?: string } = {}): Promise<Snapshot[]> {
    return this.#t.json('GET', '/v1/snapshots', { query: { sandbox_id: o.sandboxId } });
  }

  getSnapshot(version: string): Promise<Snapshot> {
    return this.#t.json('GET', `/v1/snapshots/${encodeURIComponent(version)}`);
  }

  deleteSnapshot(version: string): Promise<void> {
    return this.#t.none('DELETE', `/v1/snapshots/${encodeURIComponent(version)}`);
  }

  // ---- uploaded blobs (for `download` setup steps) ----

  /** Uploads bytes (a string as UTF-8); the answer's `blob_id` is what a `download` step names. */
  uploadBlob(data: Uint8Array | string, o: { filename?: string } = {}): Promise<Blob> {
    return this.#t.json('POST', '/v1/blobs', {
      query: { filename: o.filename },
      body: typeof data === 'string' ? new TextEncoder().encode(data) : data,
    });
  }

  /** The account's uploaded blobs, oldest first. */
  blobs(): Promise<Blob[]> {
    return this.#t.json('GET', '/v1/blobs');
  }

  getBlob(id: string): Promise<Blob> {
    return this.#t.json('GET', `/v1/blobs/${encodeURIComponent(id)}`);
  }

  deleteBlob(id: string): Promise<void> {
    return this.#t.none('DELETE', `/v1/blobs/${encodeURIComponent(id)}`);
  }
}
