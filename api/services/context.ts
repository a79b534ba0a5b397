// What every route of the customer API is given: the store, the host drivers (data plane), the
// clock, and the few API-wide helpers built from them. Provided through the app, never imported.
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DriverKind } from '../../crds/index.ts';
import type { Driver } from '../../hosts/driver.ts';
import type { Clock } from '../../operator/runtime/clock.ts';
import type { Store } from '../../store/store.ts';
import type { ReplicaIdentity } from '../replica-lease.ts';
import type { ViewerTokens } from '../viewer-token.ts';
import type { Collections } from '../collector/registry.ts';
import type { DashboardKeys } from '../dashboard/secrets.ts';
import type { Sessions } from '../dashboard/sessions.ts';
import type { AuthFailureLimiter } from '../auth-failures.ts';
import type { ActivityTracker } from './activity.ts';
import type { CachedReads } from './reads.ts';
import type { BlobQuota, RecordingQuota, SnapshotQuota } from './quota-limits.ts';
import type { UrlFetchPolicy } from '../../operator/evaluation/fetch-url.ts';

export type Drivers = Partial<Record<DriverKind, Driver>>;

/**
 * Hooks an in-process operator may offer, to react at once to what the API writes instead of on
 * its next watch event (the watch alone is enough for correctness).
 */
export interface OperatorHooks {
  /** The API wrote a resource (`kind`, `namespace/name`). */
  written?(kind: string, key: string): void;
}

export interface ApiContext {
  store: Store;
  /** Cached reads of keys, reservations, sandboxes and Macs (see reads.ts for the consistency rules). */
  reads: CachedReads;
  drivers: Drivers;
  clock: Clock;
  viewerTokens: ViewerTokens;
  /** The dashboard's keys: account keys sealed at rest, session cookies signed. */
  dashboardKeys: DashboardKeys;
  sessions: Sessions;
  /** Failed authentications per client address (sign-in counts them too); absent: no limit. */
  authFailures?: AuthFailureLimiter;
  activity: ActivityTracker;
  /** This process's boot; an idempotent request in flight under an earlier boot is released. */
  bootId: string;
  /** This API replica (its id and Lease), which other replicas ask whether its keys are in flight. */
  replica: ReplicaIdentity;
  /** The gateway environment idempotency keys are scoped to. */
  environment: string;
  operatorHooks?: OperatorHooks;
  /** The collector's running collections (viewer input and API calls are recorded into them). */
  collections: Collections;
  /** Aborted when the app closes: long waits end with 503 `server_shutting_down`. */
  shutdown: AbortSignal;
  /** Live Idempotency-Keys an account may hold (default `MAX_RECORDS_PER_ACCOUNT`). */
  idempotencyRecordsPerAccount?: number;
  /** Snapshots an account may keep (count, and bytes before a new capture). Default: see quotas.ts. */
  snapshotQuota?: SnapshotQuota;
  /** Recordings an account's running sandboxes may hold (count; bytes before a new one). */
  recordingQuota?: RecordingQuota;
  /** Uploaded blobs an account may keep (count; bytes before a new one). */
  blobQuota?: BlobQuota;
  /** What URLs `download` setup steps may fetch (default: public addresses only). */
  setupFetch?: UrlFetchPolicy;
}

/** The Fastify instance routes are declared on: schemas typed by the TypeBox type provider. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The options every route plugin gets. */
export interface RouteOptions {
  ctx: ApiContext;
}
