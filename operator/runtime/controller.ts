// A controller wires informers to a work queue and a reconcile function, like controller-runtime:
// every change of the primary kind queues its key; changes of related kinds (owned objects, or
// objects that point at the primary) queue the keys a map function names. The reconcile reads the
// world through caches and returns `{ requeueAfterMs }` while it waits on time or the outside world.
import type { AnyResource } from '../../crds/index.ts';
import { keyOf } from '../../store/store.ts';
import type { Clock } from './clock.ts';
import type { Informer } from './informer.ts';
import { silentLogger, type Logger } from './logger.ts';
import type { ControllerMetrics } from './metrics.ts';
import { WorkQueue, type BackoffOptions, type ProcessResult } from './workqueue.ts';

export type ReconcileResult = ProcessResult;
export type ReconcileFn = (key: string) => Promise<ReconcileResult | void>;

export interface WatchSpec {
  informer: Informer;
  /** Keys of the primary objects a change of this object concerns. */
  map: (obj: AnyResource) => string[];
  /**
   * Queue the keys this long after the first change of a series instead of at once
   * (`WorkQueue.addCoalesced`): for a reconcile that is costly and not on any request's path, which
   * a burst of changes would otherwise run once per change, in the middle of the burst.
   */
  coalesceMs?: number;
}

export interface ControllerOptions {
  name: string;
  /** The primary kind: each of its objects is one key. */
  for: Informer;
  watches?: WatchSpec[];
  reconcile: ReconcileFn;
  concurrency?: number;
  backoff?: BackoffOptions;
  clock?: Clock;
  /** Clock of retry backoff (default: `clock`); see WorkQueueOptions. */
  backoffClock?: Clock;
  logger?: Logger;
  /** Where the controller's reconcile and queue metrics go (controller-runtime's names). */
  metrics?: ControllerMetrics;
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly #opts: ControllerOptions;
  #started = false;

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.#opts = opts;
    const logger = opts.logger ?? silentLogger;
    this.queue = new WorkQueue({
      name: opts.name,
      process: (key) => opts.reconcile(key),
      ...(opts.concurrency !== undefined && { concurrency: opts.concurrency }),
      ...(opts.backoff !== undefined && { backoff: opts.backoff }),
      ...(opts.clock !== undefined && { clock: opts.clock }),
      ...(opts.backoffClock !== undefined && { backoffClock: opts.backoffClock }),
      logger,
      // No reconcile runs before every cache it reads has synced (controller-runtime's
      // WaitForCacheSync): a reconcile on a half-filled cache would act on objects it cannot see.
      paused: true,
      ...(opts.metrics && { observer: opts.metrics.observer(opts.name) }),
    });
    opts.metrics?.track(this.queue);
  }

  /** Registers handlers, starts the informers (idempotent), and once all have synced starts reconciling. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const { for: primary, watches = [] } = this.#opts;
    primary.addEventHandler({
      onAdd: (obj) => this.enqueue(keyOf(obj.metadata)),
      onUpdate: (_old, obj) => this.enqueue(keyOf(obj.metadata)),
      onDelete: (obj) => this.enqueue(keyOf(obj.metadata)),
    });
    for (const w of watches) {
      const enqueue = (keys: Iterable<string>) => this.#enqueueAll(keys, w.coalesceMs);
      w.informer.addEventHandler({
        onAdd: (obj) => enqueue(w.map(obj)),
        onUpdate: (old, obj) => enqueue(new Set([...w.map(old), ...w.map(obj)])),
        onDelete: (obj) => enqueue(w.map(obj)),
      });
    }
    await Promise.all([primary.start(), ...watches.map((w) => w.informer.start())]);
    this.queue.resume();
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Stops taking work and waits for reconciles in flight. */
  stop(): Promise<void> {
    return this.queue.shutdown();
  }

  #enqueueAll(keys: Iterable<string>, coalesceMs: number | undefined): void {
    for (const key of keys) {
      if (coalesceMs === undefined) this.queue.add(key);
      else this.queue.addCoalesced(key, coalesceMs);
    }
  }
}

/** Maps an object to the keys of its owners of `ownerKind` (its ownerReferences). */
export function ownerKeys(ownerKind: string, ownerScope: 'Cluster' | 'Namespaced') {
  return (obj: AnyResource): string[] =>
    (obj.metadata.ownerReferences ?? [])
      .filter((ref) => ref.kind === ownerKind)
      .map((ref) =>
        ownerScope === 'Namespaced' && obj.metadata.namespace
          ? `${obj.metadata.namespace}/${ref.name}`
          : ref.name,
      );
}
