// `sandbay operator`: the reconcilers in a process of their own, on any store, with several replicas
// of which one leads. Each replica contends for a coordination.k8s.io/v1 Lease; the leader runs the
// operator (informers, controllers), a follower only waits; a leader that loses the Lease stops the
// operator at once and contends again. A small HTTP listener answers the probes: /healthz (the
// process is alive) and /readyz (leading with synced caches, or following).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DriverKind } from '../crds/index.ts';
import { closeDrivers, createDrivers, type Drivers, type VmNetworkOptions } from '../hosts/create-drivers.ts';
import { openStore, type StoreChoice } from '../store/open-store.ts';
import { startOperator, type RunningOperator } from './index.ts';
import { LeaderElector } from './runtime/leader.ts';
import type { Logger } from './runtime/logger.ts';

export interface OperatorProcessOptions {
  dataDir: string;
  hostDriver: DriverKind;
  /** linux driver: VMs reach the internet through NAT as their egress policy says (docs/isolation.md). */
  vmOutboundNat?: boolean;
  vmEgressDefault?: VmNetworkOptions['vmEgressDefault'];
  vmDns?: string[];
  store?: StoreChoice;
  kubeconfig?: string;
  context?: string;
  /** The Lease: `namespace/name`. Default `sandbay-system/sandbay-operator`. */
  leaseNamespace?: string;
  leaseName?: string;
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Probe listener port (0: any free port); host default loopback. */
  healthPort?: number;
  host?: string;
  logger: Logger;
  /** The rates file seeded into a store without Rates (default config/rates.yaml). */
  rates?: string;
  /**
   * Opens the host drivers; called on winning the Lease and closed on losing it, so that only the
   * leader holds connections to the Macs. Default: the drivers of `hostDriver`.
   */
  openDrivers?: () => Drivers | Promise<Drivers>;
}

export interface RunningOperatorProcess {
  healthUrl: string;
  elector: LeaderElector;
  isLeader(): boolean;
  close(): Promise<void>;
}

export async function startOperatorProcess(opts: OperatorProcessOptions): Promise<RunningOperatorProcess> {
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const log = opts.logger;
  const store = await openStore({
    store: opts.store ?? 'sqlite',
    dataDir,
    ...(opts.kubeconfig !== undefined && { kubeconfig: opts.kubeconfig }),
    ...(opts.context !== undefined && { context: opts.context }),
  });
  const openDrivers =
    opts.openDrivers ??
    (() =>
      createDrivers(opts.hostDriver, dataDir, (msg) => log.info({ driver: opts.hostDriver }, msg), {
        vmOutboundNat: opts.vmOutboundNat ?? false,
        ...(opts.vmEgressDefault !== undefined && { vmEgressDefault: opts.vmEgressDefault }),
        ...(opts.vmDns !== undefined && { vmDns: opts.vmDns }),
      }));
  let operator: { running: RunningOperator; drivers: Drivers } | undefined;
  let starting: Promise<void> | undefined;
  let ready = false;

  const elector = new LeaderElector({
    store,
    namespace: opts.leaseNamespace ?? 'sandbay-system',
    name: opts.leaseName ?? 'sandbay-operator',
    ...(opts.identity !== undefined && { identity: opts.identity }),
    ...(opts.leaseDurationMs !== undefined && { leaseDurationMs: opts.leaseDurationMs }),
    ...(opts.renewDeadlineMs !== undefined && { renewDeadlineMs: opts.renewDeadlineMs }),
    ...(opts.retryPeriodMs !== undefined && { retryPeriodMs: opts.retryPeriodMs }),
    logger: log,
    onStartedLeading: () => {
      starting = (async () => {
        const drivers = await openDrivers();
        const running = await startOperator({
          store,
          drivers,
          blobDir: join(dataDir, 'blobs'),
          logger: log,
          ...(opts.rates !== undefined && { seedRates: opts.rates }),
        });
        operator = { running, drivers };
        // Lost the Lease while starting: stop what just started.
        if (!elector.isLeader) await stopOperator();
        else ready = true;
      })().catch((err: unknown) => {
        log.error({ err: (err as Error).message }, 'the operator failed to start');
      });
    },
    onStoppedLeading: async () => {
      ready = false;
      await starting;
      await stopOperator();
    },
  });
  async function stopOperator(): Promise<void> {
    const current = operator;
    operator = undefined;
    if (!current) return;
    await current.running.stop();
    await closeDrivers(current.drivers);
  }

  const server = probeServer(() => !elector.isLeader || ready);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.healthPort ?? 8082, opts.host ?? '127.0.0.1', () => resolveListen());
  });
  const address = server.address() as AddressInfo;
  elector.start();
  log.info({ identity: elector.identity, store: opts.store ?? 'sqlite' }, 'operator replica started');
  return {
    healthUrl: `http://${opts.host ?? '127.0.0.1'}:${address.port}`,
    elector,
    isLeader: () => elector.isLeader,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await elector.stop();
      await store.close();
    },
  };
}

function probeServer(isReady: () => boolean): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz' || (path === '/readyz' && isReady())) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    } else if (path === '/readyz') {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('starting\n');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
}
