// The one sandbay process: the store, the admin listener (admin key; Kubernetes-compatible resource
// API), the customer listener, and the operator. `sandbay server` calls startServer().
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { DriverKind } from '../crds/index.ts';
import type { Store } from '../store/store.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';
import { closeDrivers, createDrivers } from '../hosts/create-drivers.ts';
import {
  createBlobStore,
  startOperator,
  type ControllerName,
  type WorkControllerName,
} from '../operator/index.ts';
import { buildAdminRoutes, buildCustomerApp } from './app.ts';
import { ApiMetrics } from './metrics.ts';
import { loadViewerSecret } from './viewer-token.ts';
import { viewerPage } from './routes/viewer.ts';
import { buildAdminApp } from './admin-app.ts';
import { bootstrapAdminKey } from './admin-auth.ts';
import { listenHttpAndHttps } from './admin-listener.ts';
import { ensureAdminTls, TLS_CERT_FILE, TLS_KEY_FILE } from './admin-tls.ts';

export interface ServerOptions {
  dataDir: string;
  /** Customer API port (0: any free port). */
  port?: number;
  /** Admin API port (0: any free port). */
  adminPort?: number;
  hostDriver: DriverKind;
  /** Address both listeners bind; loopback unless told otherwise. */
  host?: string;
  /** The gateway environment idempotency keys are scoped to (default `production`). */
  environment?: string;
  logger?: FastifyBaseLogger;
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
}

export const ADMIN_KEY_FILE = 'admin.key';
export const DATABASE_FILE = 'sandbay.db';

/** The blob store's directory: snapshot deltas, task screenshots and recordings. */
export function blobDir(dataDir: string): string {
  return join(dataDir, 'blobs');
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const dataDir = resolve(opts.dataDir);
  const logger: FastifyBaseLogger = opts.logger ?? pino({ level: process.env.LOG_LEVEL ?? 'info' });
  const host = opts.host ?? '127.0.0.1';
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const store = await openSqliteStore({ file: join(dataDir, DATABASE_FILE) });
  const closers: (() => Promise<void>)[] = [() => store.close()];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    const adminKeyFile = join(dataDir, ADMIN_KEY_FILE);
    await bootstrapAdminKey(store, adminKeyFile, logger);
    const drivers = createDrivers(opts.hostDriver, dataDir, (msg) =>
      logger.info({ driver: opts.hostDriver }, msg),
    );
    closers.push(() => closeDrivers(drivers));
    // One registry for the admin /metrics: the API's and the operator's (controllers, fleet).
    const metrics = new ApiMetrics();
    const operator = await startOperator({
      store,
      drivers,
      blobDir: blobDir(dataDir),
      logger,
      metricsRegistry: metrics.registry,
    });
    closers.push(() => operator.stop());
    const adminCaFile = join(dataDir, TLS_CERT_FILE);
    const tls = await ensureAdminTls(adminCaFile, join(dataDir, TLS_KEY_FILE), host);
    const adminApp = await buildAdminApp({
      store,
      logger: logger.child({ listener: 'admin' }),
      routes: [buildAdminRoutes({ metrics })],
    });
    const admin = await listenHttpAndHttps(adminApp, { port: opts.adminPort ?? 8081, host, tls });
    closers.push(() => admin.close());
    const customerApp = await buildCustomerApp({
      store,
      drivers,
      // The watch alone would do; a nudge saves the reconcilers a round of the informer's queue.
      operatorHooks: {
        written: (kind, key) => CONTROLLER_OF[kind] && operator.controllers[CONTROLLER_OF[kind]].enqueue(key),
      },
      logger: logger.child({ listener: 'customer' }),
      bootId: randomUUID(),
      environment: opts.environment ?? 'production',
      viewerSecret: await loadViewerSecret(dataDir),
      metrics,
      blobs: createBlobStore(blobDir(dataDir)),
      informers: operator.informers,
    });
    // The browser live view (noVNC) that a viewer link opens: /view/<sandbox id>?token=….
    await customerApp.register(viewerPage);
    closers.push(() => customerApp.close());
    const url = await listen(customerApp, opts.port ?? 8080, host);
    const running = {
      url,
      adminUrl: admin.httpUrl,
      adminHttpsUrl: admin.httpsUrl,
      adminKeyFile,
      adminCaFile,
      store,
      close,
    };
    logger.info(
      { url, adminUrl: running.adminUrl, adminCaFile, hostDriver: opts.hostDriver },
      'sandbay is serving',
    );
    return running;
  } catch (err) {
    await close();
    throw err;
  }
}

async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  await app.listen({ port, host });
  const address = app.server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shown}:${address.port}`;
}
