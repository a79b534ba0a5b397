// The one sandbay process: the store, the admin listener (admin key; Kubernetes-compatible resource
// API), the customer listener, and the operator. `sandbay server` calls startServer(); `sandbay api`
// calls it with `role: 'api'` (the listeners only: any number of replicas on one store, the
// operator runs apart, see operator/process.ts).
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { DriverKind } from '../crds/index.ts';
import type { Store } from '../store/store.ts';
import { DATABASE_FILE, openStore, type StoreChoice } from '../store/open-store.ts';
import { closeDrivers, createDrivers, type VmNetworkOptions } from '../hosts/create-drivers.ts';
import {
  createBlobStore,
  startOperator,
  type ControllerName,
  type WorkControllerName,
} from '../operator/index.ts';
import { buildAdminRoutes, buildCustomerApp } from './app.ts';
import { ApiMetrics } from './metrics.ts';
import { DEFAULT_MIN_FREE_BYTES } from './storage-guard.ts';
import { loadViewerSecret } from './viewer-token.ts';
import { frontPage } from './routes/front.ts';
import { viewerPage } from './routes/viewer.ts';
import { adminDashboardPage, dashboardPage, loadDashboard, type DashboardFiles } from './routes/dashboard.ts';
import { dashboardSecretFor } from './dashboard/secrets.ts';
import { buildAdminApp, type AdminAppOptions } from './admin-app.ts';
import { bootstrapAdminKey } from './admin-auth.ts';
import { createLogger } from './logger.ts';
import { allowList } from '../operator/evaluation/fetch-url.ts';
import { listenHttpAndHttps } from './admin-listener.ts';
import { ensureAdminTls, TLS_CERT_FILE, TLS_KEY_FILE } from './admin-tls.ts';
import type { Clock } from '../operator/runtime/clock.ts';

export interface ServerOptions {
  dataDir: string;
  /** Customer API port (0: any free port). */
  port?: number;
  /** Admin API port (0: any free port). */
  adminPort?: number;
  hostDriver: DriverKind;
  /** linux driver: VMs reach the internet through NAT as their egress policy says (docs/isolation.md). */
  vmOutboundNat?: boolean;
  vmEgressDefault?: VmNetworkOptions['vmEgressDefault'];
  vmDns?: string[];
  /** Address the customer listener binds; loopback unless told otherwise. */
  host?: string;
  /** New snapshots, recordings and uploads are refused while less is free in dataDir (default 1 GiB). */
  minFreeBytes?: number;
  /** CIDRs `download` setup steps may fetch from although they are not public (docs/evaluation.md). */
  setupFetchAllow?: string[];
  /** Requests per API key per minute on the customer listener (default 6,000); 0 turns it off. */
  rateLimitPerMinute?: number;
  /** Address the admin listener binds: its own, loopback unless told otherwise (not `host`). */
  adminHost?: string;
  /** The gateway environment idempotency keys are scoped to (default `production`). */
  environment?: string;
  logger?: FastifyBaseLogger;
  /** `all` (default): listeners and operator in one process; `api`: the listeners only. */
  role?: 'all' | 'api';
  /** Default `sqlite` (DATA_DIR/sandbay.db). */
  store?: StoreChoice;
  kubeconfig?: string;
  context?: string;
  /** The admin listener's Kubernetes API audit log (a file; one JSON line per resource request). */
  auditLog?: string;
  /** This API replica's id (unique among live API processes) and Lease duration: replica-lease.ts. */
  replica?: { id?: string; leaseDurationMs?: number };
  /** The customer API's clock (default the wall clock): tests move it to reach an expiry. */
  clock?: Clock;
}

/** Which reconciler a resource the API wrote concerns. */
const CONTROLLER_OF: Record<string, ControllerName | WorkControllerName | undefined> = {
  Sandbox: 'sandbox',
  Reservation: 'reservation',
  Snapshot: 'snapshot',
  Replay: 'replay',
};

export interface RunningServer {
  url: string;
  /** The admin listener over plain HTTP (`http://host:port`). */
  adminUrl: string;
  /** The same listener over HTTPS, for kubectl and client-go, which send tokens only over TLS. */
  adminHttpsUrl: string;
  /** Where the admin key's plaintext is kept (written on first start). */
  adminKeyFile: string;
  /** The admin listener's self-signed certificate: kubectl's `--certificate-authority`. */
  adminCaFile: string;
  store: Store;
  /** Stops listening, stops the operator, closes the store. */
  close(): Promise<void>;
  /** What the close has cut off (requests past their grace) or is still waiting on (`stopping …`). */
  abandoned(): string[];
}

export const ADMIN_KEY_FILE = 'admin.key';
export { DATABASE_FILE };

/**
 * The viewer-token secret: SANDBAY_VIEWER_SECRET (base64, ≥ 32 bytes; the same on every API
 * replica, e.g. from a Kubernetes Secret) or DATA_DIR/viewer.secret (replicas sharing a data dir).
 */
export async function viewerSecretFor(dataDir: string, env = process.env): Promise<Buffer> {
  const fromEnv = env.SANDBAY_VIEWER_SECRET;
  if (fromEnv === undefined || fromEnv === '') return loadViewerSecret(dataDir);
  const secret = Buffer.from(fromEnv, 'base64');
  if (secret.length < 32)
    throw new Error('SANDBAY_VIEWER_SECRET must hold at least 32 bytes, base64-encoded');
  return secret;
}

/** The blob store's directory: snapshot deltas, task screenshots and recordings. */
export function blobDir(dataDir: string): string {
  return join(dataDir, 'blobs');
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const dataDir = resolve(opts.dataDir);
  // A CIDR that does not parse stops the start, not the first download that would use it.
  if (opts.setupFetchAllow) allowList(opts.setupFetchAllow);
  const logger: FastifyBaseLogger = opts.logger ?? createLogger();
  const host = opts.host ?? '127.0.0.1';
  const adminHost = opts.adminHost ?? '127.0.0.1';
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const store = await openStore({
    store: opts.store ?? 'sqlite',
    dataDir,
    ...(opts.kubeconfig !== undefined && { kubeconfig: opts.kubeconfig }),
    ...(opts.context !== undefined && { context: opts.context }),
  });
  const withOperator = (opts.role ?? 'all') === 'all';
  // Each closer with what it stops, so that a shutdown that runs out of time can say where it was.
  const closers: [string, () => Promise<void>][] = [['the store', () => store.close()]];
  let stopping: string | undefined;
  let customer: FastifyInstance | undefined;
  const close = async () => {
    for (const [what, closer] of closers.splice(0).reverse()) {
      stopping = what;
      await closer();
    }
    stopping = undefined;
  };
  const abandoned = () => [
    ...(customer?.abandoned ?? []),
    ...(stopping === undefined ? [] : [`stopping ${stopping}`]),
  ];
  try {
    const adminKeyFile = join(dataDir, ADMIN_KEY_FILE);
    await bootstrapAdminKey(store, adminKeyFile, logger);
    const drivers = createDrivers(
      opts.hostDriver,
      dataDir,
      (msg) => logger.info({ driver: opts.hostDriver }, msg),
      {
        vmOutboundNat: opts.vmOutboundNat ?? false,
        ...(opts.vmEgressDefault !== undefined && { vmEgressDefault: opts.vmEgressDefault }),
        ...(opts.vmDns !== undefined && { vmDns: opts.vmDns }),
      },
    );
    closers.push(['the host drivers (powering VMs off)', () => closeDrivers(drivers)]);
    // One registry for the admin /metrics: the API's and the operator's (controllers, fleet).
    const metrics = new ApiMetrics();
    const operator = withOperator
      ? await startOperator({
          store,
          drivers,
          blobDir: blobDir(dataDir),
          logger,
          metricsRegistry: metrics.registry,
          ...(opts.setupFetchAllow && { settings: { setupFetch: { allow: opts.setupFetchAllow } } }),
        })
      : undefined;
    if (operator) closers.push(['the operator', () => operator.stop()]);
    const adminCaFile = join(dataDir, TLS_CERT_FILE);
    const tls = await ensureAdminTls(adminCaFile, join(dataDir, TLS_KEY_FILE), adminHost);
    const dashboard = await loadDashboard();
    if (!dashboard) logger.warn({}, 'the dashboard is not built (npm run dashboard): /dashboard answers 503');
    const adminApp = await buildAdminApp({
      store,
      logger: logger.child({ listener: 'admin' }),
      ...adminListenerRoutes(metrics, dashboard),
      ...(opts.auditLog !== undefined && { auditLog: opts.auditLog }),
    });
    const admin = await listenHttpAndHttps(adminApp, {
      port: opts.adminPort ?? 8081,
      host: adminHost,
      tls,
    });
    closers.push(['the admin listener', () => admin.close()]);
    const customerApp = await buildCustomerApp({
      store,
      drivers,
      // The watch alone would do; a nudge saves the reconcilers a round of the informer's queue.
      ...(operator && {
        operatorHooks: {
          written: (kind: string, key: string) =>
            CONTROLLER_OF[kind] && operator.controllers[CONTROLLER_OF[kind]].enqueue(key),
        },
      }),
      logger: logger.child({ listener: 'customer' }),
      bootId: randomUUID(),
      ...(opts.clock && { clock: opts.clock }),
      ...(opts.replica && { replica: opts.replica }),
      environment: opts.environment ?? 'production',
      viewerSecret: await viewerSecretFor(dataDir),
      dashboardSecret: await dashboardSecretFor(dataDir),
      metrics,
      blobs: createBlobStore(blobDir(dataDir)),
      storageGuard: { dir: dataDir, minFreeBytes: opts.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES },
      ...(opts.setupFetchAllow && { setupFetch: { allow: opts.setupFetchAllow } }),
      ...(opts.rateLimitPerMinute !== undefined && {
        rateLimit:
          opts.rateLimitPerMinute === 0 ? false : { max: opts.rateLimitPerMinute, timeWindowMs: 60_000 },
      }),
      // In one process the API reads the operator's caches; `sandbay api` alone keeps its own.
      ...(operator && { informers: operator.informers }),
    });
    for (const page of customerPages(dashboard)) await customerApp.register(page);
    customer = customerApp;
    closers.push(['the customer listener', () => customerApp.close()]);
    const url = await listen(customerApp, opts.port ?? 8080, host);
    const running = {
      url,
      adminUrl: admin.httpUrl,
      adminHttpsUrl: admin.httpsUrl,
      adminKeyFile,
      adminCaFile,
      store,
      close,
      abandoned,
    };
    logger.info(
      { url, adminUrl: running.adminUrl, adminKeyFile, adminCaFile, hostDriver: opts.hostDriver },
      `sandbay is serving: API ${url} (docs ${url}/docs), admin API ${running.adminUrl} and ` +
        `${running.adminHttpsUrl} (admin key in ${adminKeyFile})`,
    );
    return running;
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The pages the customer listener serves beside the API: the browser live view (noVNC) that a
 * viewer link opens (/view/<sandbox id>?token=…), the dashboard (a single-page app: reservations,
 * rates, sandboxes and their live view, account), and what a person who opens the server's address
 * in a browser sees (what this is, where to go). Exported so that tests serve exactly these.
 */
export function customerPages(dashboard: DashboardFiles | undefined): FastifyPluginAsync[] {
  return [viewerPage, dashboardPage(dashboard), frontPage];
}

/** What the admin listener serves beyond the Kubernetes API: the spec's /admin/* views, /metrics, the admin view. */
export function adminListenerRoutes(
  metrics: ApiMetrics,
  dashboard: DashboardFiles | undefined,
): Pick<AdminAppOptions, 'routes' | 'publicPrefixes'> {
  return {
    routes: [buildAdminRoutes({ metrics }), adminDashboardPage(dashboard)],
    publicPrefixes: ['/admin/dashboard'],
  };
}

async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  await app.listen({ port, host });
  const address = app.server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}
