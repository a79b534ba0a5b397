// The one sandbay process: the store, the admin listener (admin key; Kubernetes-compatible resource
// API), the customer listener, and the operator. `sandbay server` calls startServer().
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { DriverKind } from '../crds/index.ts';
import type { Store } from '../store/store.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';
import { buildAdminApp, type AdminRoutes } from './admin-app.ts';
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
  logger?: FastifyBaseLogger;
}

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

/** What every part of the process is given. */
export interface ServerContext {
  store: Store;
  dataDir: string;
  hostDriver: DriverKind;
  logger: FastifyBaseLogger;
}

export interface RunningOperator {
  stop(): Promise<void>;
}

/**
 * Extension points: the parts of the process beyond the store and the Kubernetes API. The customer
 * API (`buildCustomerApp`), the admin routes of the spec (`/admin/*`) and the operator
 * (`startOperator`, which creates the host driver named by `ctx.hostDriver`) are wired in here.
 */
export interface ServerParts {
  buildCustomerApp(ctx: ServerContext): Promise<FastifyInstance>;
  adminRoutes: readonly AdminRoutes[];
  startOperator?: (ctx: ServerContext) => Promise<RunningOperator>;
}

/**
 * The parts this build of sandbay runs. Until the customer API (`api/app.ts`: `buildCustomerApp`,
 * `buildAdminRoutes`) and the operator (`operator/index.ts`: `startOperator`) are wired in here, the
 * customer listener answers only `/health`, and no reconciler drives the fleet.
 */
export const DEFAULT_PARTS: ServerParts = {
  buildCustomerApp: buildHealthOnlyApp,
  adminRoutes: [],
};

export const ADMIN_KEY_FILE = 'admin.key';
export const DATABASE_FILE = 'sandbay.db';

export async function startServer(
  opts: ServerOptions,
  parts: ServerParts = DEFAULT_PARTS,
): Promise<RunningServer> {
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
    const ctx: ServerContext = { store, dataDir, hostDriver: opts.hostDriver, logger };
    if (parts.startOperator) {
      const operator = await parts.startOperator(ctx);
      closers.push(() => operator.stop());
    }
    const adminCaFile = join(dataDir, TLS_CERT_FILE);
    const tls = await ensureAdminTls(adminCaFile, join(dataDir, TLS_KEY_FILE), host);
    const adminLogger = logger.child({ listener: 'admin' });
    const adminApp = await buildAdminApp({ store, logger: adminLogger, routes: parts.adminRoutes });
    const admin = await listenHttpAndHttps(adminApp, { port: opts.adminPort ?? 8081, host, tls });
    closers.push(() => admin.close());
    const customerApp = await parts.buildCustomerApp(ctx);
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

/** The customer listener while no customer API is wired in: `/health` only. */
async function buildHealthOnlyApp(ctx: ServerContext): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: ctx.logger.child({ listener: 'customer' }) });
  app.get('/health', async () => ({ status: 'ok' }));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'not_found', message: `no route ${request.method} ${request.url}` }),
  );
  return app;
}
