// The operator: informers over the store, and one controller per kind driving the fleet toward
// spec. `startOperator` wires them; everything it starts, `stop()` ends (the store and the drivers
// belong to the caller).
import type { AnyResource, DriverKind, Reservation, Sandbox, Snapshot, VM } from '../crds/index.ts';
import type { Driver } from '../hosts/driver.ts';
import type { Store } from '../store/store.ts';
import { createBlobStore } from './blob-store.ts';
import { ownerInStore, sweepBlobs } from './blob-sweep.ts';

const BLOB_SWEEP_INTERVAL_MS = 60 * 60_000;
import {
  createInformers,
  DEFAULT_SETTINGS,
  Indexes,
  reservationKeyOf,
  sandboxKeyOf,
  type Informers,
  type OperatorContext,
  type OperatorSettings,
} from './context.ts';
import { HostRegistry } from './mini/hosts.ts';
import { ensureLocalMini, type LocalMiniOptions } from './mini/local.ts';
import { miniReconciler } from './mini/reconciler.ts';
import { poolReconciler } from './pool/reconciler.ts';
import { replayReconciler } from './replay/reconciler.ts';
import { attemptReconciler } from './evaluation/run/attempt-reconciler.ts';
import { runReconciler } from './evaluation/run/run-reconciler.ts';
import { reservationReconciler } from './reservation/reconciler.ts';
import type { Registry } from 'prom-client';
import { registerFleetMetrics } from './fleet-metrics.ts';
import {
  Client,
  Controller,
  ControllerMetrics,
  silentLogger,
  systemClock,
  type Clock,
  type Informer,
  type Logger,
} from './runtime/index.ts';
import { sandboxReconciler } from './sandbox/reconciler.ts';
import { seedRates } from './seed.ts';
import { snapshotReconciler } from './snapshot/reconciler.ts';

export type ControllerName = 'mini' | 'pool' | 'sandbox' | 'reservation' | 'snapshot';
/** Controllers of work a customer starts (not of the fleet converging): replays of recorded tasks. */
export type WorkControllerName = 'replay' | 'evaluationRun' | 'evaluationAttempt';
type AnyControllerName = ControllerName | WorkControllerName;

export interface StartOperatorOptions {
  store: Store;
  /** Host drivers by kind; a Mini whose driver is missing is reported down. */
  drivers: Partial<Record<DriverKind, Driver>>;
  /** Directory of the blob store (snapshot deltas). */
  blobDir: string;
  clock?: Clock;
  logger?: Logger;
  /** Registers this machine as a Mini (linux driver). Default: on when a linux driver is given. */
  localMini?: boolean | LocalMiniOptions;
  /** Seeds `config/rates.yaml` (or this file) into a store without Rates. Default true. */
  seedRates?: boolean | string;
  settings?: Partial<OperatorSettings>;
  /** Reconciles run at once per controller. */
  concurrency?: Partial<Record<AnyControllerName, number>>;
  /**
   * Where controller, work-queue and fleet metrics are registered (the admin /metrics serves the
   * API's registry, so the server passes that one). Default: a registry of the operator's own.
   */
  metricsRegistry?: Registry;
}

export interface RunningOperator {
  readonly informers: Informers;
  readonly controllers: Record<AnyControllerName, Controller>;
  readonly metrics: ControllerMetrics;
  /** Stops taking work, waits for reconciles in flight, stops the informers. */
  stop(): Promise<void>;
}

// Pool and probe work waits on hosts (SSH to a Mac, a desktop booting), so many run at once; the
// work of one Mac is still serialized (one key per Mini).
const DEFAULT_CONCURRENCY: Record<AnyControllerName, number> = {
  mini: 32,
  pool: 64,
  sandbox: 64,
  reservation: 8,
  snapshot: 4,
  // A replay holds its reconcile for the whole run (setup, actions, grader).
  replay: 8,
  evaluationRun: 4,
  // An attempt holds its reconcile through a setup, a replay, a grading or a synchronous agent:
  // as many at once as sandboxes the Macs run (a run admits no more than its reservation's places).
  evaluationAttempt: 64,
};

/**
 * How long the pool pass of a Mac waits after a change of one of its VMs, and a reservation's pass
 * after a change of one of its sandboxes (`WatchSpec.coalesceMs`). Neither pass is on a create's
 * path (the create answers once its claim is written), and a burst of creates changes every VM
 * and sandbox it touches: without the wait each change ran its Mac's whole pass (host listing,
 * plan, a status write) in the middle of the burst, 1.7 passes per create. Longer than a burst of
 * 100 creates takes (bench/README.md), so the passes follow it: one per Mac for the whole burst.
 * Direct requests (a cold claim's boot, a release) still run at once.
 */
const COALESCE_MS = 250;

export async function startOperator(opts: StartOperatorOptions): Promise<RunningOperator> {
  const logger = (opts.logger ?? silentLogger).child({ component: 'operator' });
  const clock = opts.clock ?? systemClock;
  if (opts.seedRates !== false) {
    const created = await seedRates(
      opts.store,
      typeof opts.seedRates === 'string' ? opts.seedRates : undefined,
    );
    if (created.length > 0) logger.info({ rates: created }, 'seeded rates');
  }
  const informers = createInformers(opts.store, logger);
  const client = new Client(opts.store, Object.values(informers) as Informer[]);
  const controllers = {} as Record<AnyControllerName, Controller>;
  const metrics = new ControllerMetrics(opts.metricsRegistry);
  registerFleetMetrics(metrics.registry, informers);
  const ctx: OperatorContext = {
    store: opts.store,
    client,
    informers,
    clock,
    logger,
    hosts: new HostRegistry(opts.drivers),
    blobs: createBlobStore(opts.blobDir),
    settings: { ...DEFAULT_SETTINGS, ...opts.settings },
    enqueue: {
      pool: (k) => controllers.pool.enqueue(k),
      sandbox: (k) => controllers.sandbox.enqueue(k),
      reservation: (k) => controllers.reservation.enqueue(k),
      mini: (k) => controllers.mini.enqueue(k),
      evaluationRun: (k) => controllers.evaluationRun.enqueue(k),
      evaluationAttempt: (k) => controllers.evaluationAttempt.enqueue(k),
    },
  };
  const make = (name: AnyControllerName, spec: Omit<ConstructorParameters<typeof Controller>[0], 'name'>) =>
    new Controller({
      name,
      clock,
      // Retries of failed reconciles wait in real time; expiry, reaping and heartbeats use `clock`.
      backoffClock: systemClock,
      logger: logger.child({ controller: name }),
      concurrency: opts.concurrency?.[name] ?? DEFAULT_CONCURRENCY[name],
      metrics,
      ...spec,
    });
  const i = informers as unknown as Record<keyof Informers, Informer>;

  controllers.mini = make('mini', { for: i.minis, reconcile: miniReconciler(ctx) });
  controllers.pool = make('pool', {
    for: i.minis,
    watches: [{ informer: i.vms, map: (o) => [(o as VM).spec.mini], coalesceMs: COALESCE_MS }],
    reconcile: poolReconciler(ctx),
  });
  controllers.sandbox = make('sandbox', {
    for: i.sandboxes,
    watches: [
      { informer: i.vms, map: (o) => claimsOf(o as VM) },
      { informer: i.reservations, map: (o) => sandboxesOfReservation(informers, o as Reservation) },
      {
        informer: i.snapshots,
        map: (o) => keysOf(informers.sandboxes.byIndex(Indexes.sandboxBySnapshot, keyOfNs(o))),
      },
    ],
    reconcile: sandboxReconciler(ctx),
  });
  controllers.reservation = make('reservation', {
    for: i.reservations,
    watches: [
      {
        informer: i.sandboxes,
        map: (o) => optional(reservationKeyOf(o as Sandbox)),
        coalesceMs: COALESCE_MS,
      },
      {
        informer: i.minis,
        map: (o) => optional((o as { status?: { reservation?: string } }).status?.reservation),
      },
      {
        informer: i.apiKeys,
        map: (o) => optional((o as { spec: { reservation?: string } }).spec.reservation),
      },
      { informer: i.rates, map: () => pendingReservations(informers) },
    ],
    reconcile: reservationReconciler(ctx),
  });
  controllers.snapshot = make('snapshot', {
    for: i.snapshots,
    watches: [
      { informer: i.sandboxes, map: (o) => snapshotsOfSource(informers, sandboxKeyOf(o as Sandbox)) },
      { informer: i.vms, map: (o) => claimsOf(o as VM).flatMap((k) => snapshotsOfSource(informers, k)) },
    ],
    reconcile: snapshotReconciler(ctx),
  });
  controllers.replay = make('replay', {
    for: i.replays,
    watches: [{ informer: i.sandboxes, map: (o) => replaysOwning(o) }],
    reconcile: replayReconciler(ctx),
  });

  controllers.evaluationRun = make('evaluationRun', {
    for: i.evaluationRuns,
    watches: [
      { informer: i.evaluationAttempts, map: (o) => ownersOfKind(o, 'EvaluationRun') },
      {
        informer: i.reservations,
        map: (o) => keysOf(informers.evaluationRuns.byIndex(Indexes.runByReservation, keyOfNs(o))),
      },
    ],
    reconcile: runReconciler(ctx),
  });
  controllers.evaluationAttempt = make('evaluationAttempt', {
    for: i.evaluationAttempts,
    watches: [
      {
        informer: i.sandboxes,
        map: (o) => [...ownersOfKind(o, 'EvaluationAttempt'), ...waitingAttempts(informers)],
      },
      { informer: i.vms, map: () => waitingAttempts(informers) },
      {
        informer: i.evaluationRuns,
        map: (o) => keysOf(informers.evaluationAttempts.byIndex(Indexes.attemptByRun, keyOfNs(o))),
      },
    ],
    reconcile: attemptReconciler(ctx),
  });

  // Every cache synced before any controller reconciles: reconcilers read kinds they do not watch.
  await Promise.all((Object.values(informers) as Informer[]).map((inf) => inf.start()));
  await Promise.all(Object.values(controllers).map((c) => c.start()));
  const local = opts.localMini ?? opts.drivers.linux !== undefined;
  if (local) {
    const mini = await ensureLocalMini(opts.store, local === true ? {} : local);
    logger.info({ mini: mini.metadata.name }, 'this machine is registered as a Mac');
  }
  // Leftovers of writes and deletes a crash cut short: at start, then hourly.
  const sweep = async () => {
    try {
      const r = await sweepBlobs(ctx.blobs, ownerInStore(opts.store), { now: Date.now() });
      if (r.temps.length + r.orphans.length > 0) logger.info(r, 'blob directory swept');
    } catch (err) {
      logger.warn({ err }, 'blob sweep failed');
    }
  };
  await sweep();
  const sweepTimer = setInterval(() => void sweep(), BLOB_SWEEP_INTERVAL_MS);
  sweepTimer.unref();
  logger.info({ drivers: Object.keys(opts.drivers) }, 'operator started');

  let stopped: Promise<void> | undefined;
  return {
    informers,
    controllers,
    metrics,
    stop() {
      stopped ??= (async () => {
        clearInterval(sweepTimer);
        await Promise.all(Object.values(controllers).map((c) => c.stop()));
        for (const inf of Object.values(informers) as Informer[]) inf.stop();
      })();
      return stopped;
    },
  };
}

function optional(v: string | undefined): string[] {
  return v === undefined ? [] : [v];
}

function keyOfNs(o: AnyResource): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

function keysOf(objs: AnyResource[]): string[] {
  return objs.map(keyOfNs);
}

function claimsOf(vm: VM): string[] {
  return [...new Set([vm.spec.sandbox, vm.status?.sandbox].filter((s): s is string => s !== undefined))];
}

function sandboxesOfReservation(informers: Informers, r: Reservation): string[] {
  return keysOf(informers.sandboxes.byIndex(Indexes.sandboxByReservation, keyOfNs(r)));
}

function snapshotsOfSource(informers: Informers, sandbox: string): string[] {
  return (informers.snapshots.byIndex(Indexes.snapshotBySource, sandbox) as Snapshot[])
    .filter((s) => s.status?.phase !== 'ready' && s.status?.phase !== 'failed')
    .map(keyOfNs);
}

/** The owners of a kind named by an object's owner references (`namespace/name`). */
function ownersOfKind(o: AnyResource, kind: string): string[] {
  return (o.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === kind)
    .map((r) => `${o.metadata.namespace ?? ''}/${r.name}`);
}

/** Attempts waiting for a VM: a VM or sandbox changing may be the room they wait for. */
function waitingAttempts(informers: Informers): string[] {
  return keysOf(
    informers.evaluationAttempts.list().filter((a) => (a.status?.phase ?? 'waiting') === 'waiting'),
  );
}

/** The Replay that owns a sandbox (a replay's sandbox booting, failing or going away). */
function replaysOwning(o: AnyResource): string[] {
  return (o.metadata.ownerReferences ?? [])
    .filter((r) => r.kind === 'Replay')
    .map((r) => `${o.metadata.namespace ?? ''}/${r.name}`);
}

function pendingReservations(informers: Informers): string[] {
  return keysOf(informers.reservations.list().filter((r) => (r.status?.phase ?? 'pending') === 'pending'));
}
