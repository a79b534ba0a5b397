// What every reconciler of the operator is given: the cached client and its informers (with the
// indexes they look things up by), the clock, the hosts, the blob store, and a way to poke another
// controller when a change it cannot see through its own watches concerns it.
import type {
  Account,
  ApiKey,
  EvaluationAttempt,
  EvaluationRun,
  Mini,
  Rate,
  Replay,
  Reservation,
  Sandbox,
  Snapshot,
  Task,
  VM,
} from '../crds/index.ts';
import type { Store } from '../store/store.ts';
import type { BlobStore } from './blob-store.ts';
import type { UrlFetchPolicy } from './evaluation/fetch-url.ts';
import type { HostRegistry } from './mini/hosts.ts';
import { Client, Informer, type Clock, type Logger } from './runtime/index.ts';

export interface Informers {
  minis: Informer<Mini>;
  vms: Informer<VM>;
  reservations: Informer<Reservation>;
  sandboxes: Informer<Sandbox>;
  snapshots: Informer<Snapshot>;
  apiKeys: Informer<ApiKey>;
  rates: Informer<Rate>;
  accounts: Informer<Account>;
  tasks: Informer<Task>;
  replays: Informer<Replay>;
  evaluationRuns: Informer<EvaluationRun>;
  evaluationAttempts: Informer<EvaluationAttempt>;
}

/** Index names, and the functions behind them. */
export const Indexes = {
  /** VM → its Mini. */
  vmByMini: 'mini',
  /** VM → the sandbox that claimed it (`spec.sandbox`). */
  vmByClaim: 'claim',
  /** Sandbox → `namespace/reservation`. */
  sandboxByReservation: 'reservation',
  /** Sandbox → the Mini it was placed on (`status.mini`). */
  sandboxByMini: 'mini',
  /** Sandbox → the snapshot it restores (`namespace/version`). */
  sandboxBySnapshot: 'snapshot',
  /** Mini → the reservation holding it. */
  miniByReservation: 'reservation',
  /** ApiKey → its reservation (`namespace/name`). */
  keyByReservation: 'reservation',
  /** Snapshot → its source sandbox (`namespace/name`). */
  snapshotBySource: 'source',
  /** EvaluationAttempt → its run (`namespace/name`). */
  attemptByRun: 'run',
  /** EvaluationRun → its reservation (`namespace/name`). */
  runByReservation: 'reservation',
} as const;

/** `namespace/name` of a sandbox's reservation (the API writes the bare name); none for a pool sandbox. */
export function reservationKeyOf(sandbox: Sandbox): string | undefined {
  const r = sandbox.spec.reservation;
  if (r === undefined) return undefined;
  return r.includes('/') ? r : `${sandbox.metadata.namespace ?? ''}/${r}`;
}

export function sandboxKeyOf(sandbox: Sandbox): string {
  return `${sandbox.metadata.namespace ?? ''}/${sandbox.metadata.name}`;
}

export function createInformers(store: Store, logger?: Logger): Informers {
  const inf = <
    T extends
      | Mini
      | VM
      | Reservation
      | Sandbox
      | Snapshot
      | ApiKey
      | Rate
      | Account
      | Task
      | Replay
      | EvaluationRun
      | EvaluationAttempt,
  >(
    kind: string,
  ) => new Informer<T>({ store, kind, ...(logger && { logger }) });
  const informers: Informers = {
    minis: inf<Mini>('Mini'),
    vms: inf<VM>('VM'),
    reservations: inf<Reservation>('Reservation'),
    sandboxes: inf<Sandbox>('Sandbox'),
    snapshots: inf<Snapshot>('Snapshot'),
    apiKeys: inf<ApiKey>('ApiKey'),
    rates: inf<Rate>('Rate'),
    accounts: inf<Account>('Account'),
    tasks: inf<Task>('Task'),
    replays: inf<Replay>('Replay'),
    evaluationRuns: inf<EvaluationRun>('EvaluationRun'),
    evaluationAttempts: inf<EvaluationAttempt>('EvaluationAttempt'),
  };
  informers.vms.addIndex(Indexes.vmByMini, (vm) => [vm.spec.mini]);
  informers.vms.addIndex(Indexes.vmByClaim, (vm) => (vm.spec.sandbox ? [vm.spec.sandbox] : []));
  informers.sandboxes.addIndex(Indexes.sandboxByReservation, (sb) => {
    const r = reservationKeyOf(sb);
    return r === undefined ? [] : [r];
  });
  informers.sandboxes.addIndex(Indexes.sandboxByMini, (sb) => (sb.status?.mini ? [sb.status.mini] : []));
  informers.sandboxes.addIndex(Indexes.sandboxBySnapshot, (sb) =>
    sb.spec.snapshot ? [`${sb.metadata.namespace ?? ''}/${sb.spec.snapshot}`] : [],
  );
  informers.minis.addIndex(Indexes.miniByReservation, (m) =>
    m.status?.reservation ? [m.status.reservation] : [],
  );
  informers.apiKeys.addIndex(Indexes.keyByReservation, (k) =>
    k.spec.reservation ? [k.spec.reservation] : [],
  );
  informers.snapshots.addIndex(Indexes.snapshotBySource, (s) => [
    `${s.metadata.namespace ?? ''}/${s.spec.sourceSandbox}`,
  ]);
  informers.evaluationAttempts.addIndex(Indexes.attemptByRun, (a) => [
    `${a.metadata.namespace ?? ''}/${a.spec.run}`,
  ]);
  informers.evaluationRuns.addIndex(Indexes.runByReservation, (r) => [
    `${r.metadata.namespace ?? ''}/${r.spec.reservation}`,
  ]);
  return informers;
}

/** Cross-controller pokes (a controller's own watches cover most changes; these cover the rest). */
export interface Enqueuers {
  pool(mini: string): void;
  sandbox(key: string): void;
  reservation(key: string): void;
  mini(name: string): void;
  evaluationRun(key: string): void;
  evaluationAttempt(key: string): void;
}

export interface OperatorSettings {
  /** Idle time after which an ephemeral sandbox is destroyed (spec: about 2 minutes). */
  idleTimeoutMs: number;
  /** Host probe period while it answers. */
  heartbeatMs: number;
  /** Host probe period while it does not. */
  probeRetryMs: number;
  /** Consecutive failed probes before a host is marked down. */
  downAfterFailures: number;
  /** A probe slower than this counts as failed. */
  probeTimeoutMs: number;
  /** `status.heartbeat` is rewritten at most this often (the probe itself runs every heartbeatMs). */
  heartbeatWriteMs: number;
  /**
   * What URLs a replay's `download` setup steps may fetch, and which agent endpoints an evaluation
   * run may call (docs/evaluation.md).
   */
  setupFetch: UrlFetchPolicy;
  /**
   * The customer API's address as agents reach it, for evaluation runs written without one
   * (`spec.agent.apiUrl`; the API writes the address a run was created through).
   */
  apiUrl?: string;
}

export const DEFAULT_SETTINGS: OperatorSettings = {
  idleTimeoutMs: 120_000,
  heartbeatMs: 10_000,
  probeRetryMs: 2_000,
  downAfterFailures: 2,
  probeTimeoutMs: 10_000,
  heartbeatWriteMs: 60_000,
  setupFetch: {},
};

export interface OperatorContext {
  store: Store;
  client: Client;
  informers: Informers;
  clock: Clock;
  logger: Logger;
  hosts: HostRegistry;
  blobs: BlobStore;
  settings: OperatorSettings;
  enqueue: Enqueuers;
}
