// The operator's Prometheus metrics under controller-runtime's and client-go's names, so dashboards
// and alerts written for Kubernetes controllers work unchanged: reconcile counts, errors and times
// per controller, and each work queue's depth, adds, waits, work times and retries (label `name`,
// the controller's name, as controller-runtime sets it).
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RunOutcome, WorkQueue, WorkQueueObserver } from './workqueue.ts';

// controller-runtime's buckets for reconcile time and client-go's for queue times.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10];

export class ControllerMetrics {
  readonly registry: Registry;
  readonly #queues = new Map<string, WorkQueue>();

  readonly #reconciles: Counter<'controller' | 'result'>;
  readonly #errors: Counter<'controller'>;
  readonly #reconcileTime: Histogram<'controller'>;
  readonly #adds: Counter<'name'>;
  readonly #retries: Counter<'name'>;
  readonly #queueTime: Histogram<'name'>;
  readonly #workTime: Histogram<'name'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.#reconciles = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'] as const,
      registers,
    });
    this.#errors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'] as const,
      registers,
    });
    this.#reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'] as const,
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    const queues = this.#queues;
    new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'] as const,
      registers,
      // Read at scrape time: the queue's own length is the truth, no bookkeeping to drift.
      collect() {
        for (const [name, queue] of queues) this.set({ name }, queue.length);
      },
    });
    this.#adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    });
    this.#retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    });
    this.#queueTime = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'] as const,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.#workTime = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'] as const,
      buckets: QUEUE_BUCKETS,
      registers,
    });
  }

  /** The observer a controller's queue reports to; every series exists (at 0) from the start. */
  observer(controller: string): WorkQueueObserver {
    const name = controller;
    const adds = this.#adds.labels({ name });
    const retries = this.#retries.labels({ name });
    const queueTime = this.#queueTime.labels({ name });
    const workTime = this.#workTime.labels({ name });
    const reconcileTime = this.#reconcileTime.labels({ controller });
    const errors = this.#errors.labels({ controller });
    const results = {
      success: this.#reconciles.labels({ controller, result: 'success' }),
      error: this.#reconciles.labels({ controller, result: 'error' }),
      requeue_after: this.#reconciles.labels({ controller, result: 'requeue_after' }),
    } satisfies Record<RunOutcome, unknown>;
    for (const c of [adds, retries, errors, ...Object.values(results)]) c.inc(0);
    return {
      added: () => adds.inc(),
      retried: () => retries.inc(),
      queued: (seconds) => queueTime.observe(seconds),
      processed: (outcome, seconds) => {
        results[outcome].inc();
        if (outcome === 'error') errors.inc();
        reconcileTime.observe(seconds);
        workTime.observe(seconds);
      },
    };
  }

  /** Reports this queue's depth under its name. */
  track(queue: WorkQueue): void {
    this.#queues.set(queue.name, queue);
  }
}
