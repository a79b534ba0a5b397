// The whole service on the tart driver for the end-to-end tests, assembled as `sandbay server
// --host-driver tart` assembles it (no local Mac): a real SQLite store, the operator, the customer
// API and the admin listener's Kubernetes API on real ports. Emulated Macs come from `npm run
// emulated-macs -- up N`, and the YAML it prints is registered with the real `kubectl apply -f`.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildAdminApp } from '../api/admin-app.ts';
import { bootstrapAdminKey } from '../api/admin-auth.ts';
import { listenHttpAndHttps, type DualListener } from '../api/admin-listener.ts';
import { ensureAdminTls } from '../api/admin-tls.ts';
import { buildCustomerApp } from '../api/app.ts';
import type { Driver } from '../hosts/driver.ts';
import { createTartDriver } from '../hosts/tart/index.ts';
import { startOperator, type RunningOperator } from '../operator/index.ts';
import type { Logger } from '../operator/runtime/logger.ts';
import type { SqliteStore } from '../store/sqlite-store.ts';
import { openStore, seedAccount } from './api-harness.ts';
import { listMacs, downAll, type EmulatedMac } from './support/emulated-mac/macs.ts';
import { runProcess, type ProcessRun } from './support/process.ts';

const REPO = path.resolve(import.meta.dirname, '..');

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string | undefined;
  fields: Record<string, unknown>;
}

export interface ApiAnswer {
  status: number;
  type: string;
  bytes: Buffer;
}

export interface TartStack {
  root: string;
  store: SqliteStore;
  driver: Driver;
  operator: RunningOperator;
  /** The customer API's base URL and an account key with credit. */
  base: string;
  key: string;
  macs: EmulatedMac[];
  /** What `npm run emulated-macs -- up` printed: the Minis as YAML. */
  miniYaml: string;
  /** The operator's log lines (every level), for what a test must see reported. */
  logs: LogEntry[];
  /** A customer API call with the account's key. */
  api(method: string, url: string, body?: unknown): Promise<ApiAnswer>;
  kubectl(args: string[], stdin?: string): Promise<ProcessRun>;
  close(): Promise<void>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (r: { bytes: Buffer }): any => JSON.parse(r.bytes.toString('utf8'));

export interface TartStackOptions {
  macs: number;
  /** The tart driver's boot deadline (seconds); default the driver's own. */
  bootTimeoutS?: number;
}

/** A Logger that keeps every line (bounded), with the fields of its children. */
function recordingLogger(into: LogEntry[], bound: Record<string, unknown> = {}): Logger {
  const at =
    (level: LogEntry['level']) =>
    (obj: object, msg?: string): void => {
      if (into.length > 20_000) into.shift();
      into.push({ level, msg, fields: { ...bound, ...obj } });
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (b) => recordingLogger(into, { ...bound, ...b }),
  };
}

export async function startTartStack(prefix: string, opts: TartStackOptions): Promise<TartStack> {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  const macsRoot = path.join(root, 'macs');
  // Closed in reverse: the service first, then the Macs, then the files.
  const closers: (() => Promise<unknown>)[] = [
    async () => rmSync(root, { recursive: true, force: true }),
    async () => downAll(macsRoot),
  ];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  try {
    const up = await runProcess(
      'npm',
      // Going with this process: a test killed before its cleanup leaves Macs the sweep removes.
      [
        'run',
        '--silent',
        'emulated-macs',
        '--',
        'up',
        String(opts.macs),
        '--data-dir',
        dataDir,
        '--owner-pid',
        String(process.pid),
      ],
      { cwd: REPO, env: { ...process.env, SANDBAY_EMULATED_MACS_DIR: macsRoot } },
    );
    if (up.code !== 0) throw new Error(`emulated-macs up: exit ${up.code}: ${up.stderr}`);
    const macs = listMacs(macsRoot).sort((a, b) => a.link - b.link);

    const store = await openStore(root);
    closers.push(() => store.close());
    const driver = createTartDriver({
      dataDir,
      ...(opts.bootTimeoutS !== undefined && { bootTimeoutS: opts.bootTimeoutS }),
    });
    closers.push(() => driver.close());
    await mkdir(path.join(root, 'blobs'));
    const logs: LogEntry[] = [];
    const operator = await startOperator({
      store,
      drivers: { tart: driver },
      blobDir: path.join(root, 'blobs'),
      localMini: false,
      logger: recordingLogger(logs),
    });
    closers.push(() => operator.stop());
    const app: FastifyInstance = await buildCustomerApp({
      store,
      drivers: { tart: driver },
      bootId: 'boot-1',
      environment: 'test',
      rateLimit: false,
    });
    closers.push(() => app.close());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const key = await seedAccount(store, 'mac', 100_000_000);
    const api = async (method: string, url: string, body?: unknown): Promise<ApiAnswer> => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${url}`, {
        method,
        headers,
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      return { status: res.status, type: res.headers.get('content-type') ?? '', bytes };
    };

    // The admin listener (sandbay's own Kubernetes API) and a kubeconfig-free kubectl for it.
    const keyFile = path.join(dataDir, 'admin.key');
    await bootstrapAdminKey(store, keyFile, { info: () => {}, warn: () => {} });
    const tls = await ensureAdminTls(
      path.join(dataDir, 'admin-tls.crt'),
      path.join(dataDir, 'admin-tls.key'),
      '127.0.0.1',
    );
    const admin: DualListener = await listenHttpAndHttps(await buildAdminApp({ store }), {
      port: 0,
      host: '127.0.0.1',
      tls,
    });
    closers.push(() => admin.close());
    writeFileSync(path.join(root, 'kubeconfig'), '');
    const token = readFileSync(keyFile, 'utf8').trim();
    const kubectl = (args: string[], stdin?: string) =>
      runProcess(
        'kubectl',
        [
          `--server=${admin.httpsUrl}`,
          `--certificate-authority=${path.join(dataDir, 'admin-tls.crt')}`,
          `--token=${token}`,
          `--cache-dir=${path.join(root, 'kube-cache')}`,
          ...args,
        ],
        {
          env: { ...process.env, HOME: root, KUBECONFIG: path.join(root, 'kubeconfig') },
          ...(stdin !== undefined && { stdin }),
        },
      );
    const file = path.join(root, 'minis.yaml');
    writeFileSync(file, up.stdout);
    const applied = await kubectl(['apply', '-f', file]);
    if (applied.code !== 0) throw new Error(`kubectl apply: exit ${applied.code}: ${applied.stderr}`);
    return {
      root,
      store,
      driver,
      operator,
      base,
      key,
      macs,
      miniYaml: up.stdout,
      logs,
      api,
      kubectl,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
