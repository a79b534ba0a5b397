// The reconciler runtime: informers, a work queue and controllers, in the manner of controller-runtime.
export { Informer, type EventHandler, type IndexFn, type InformerOptions } from './informer.ts';
export {
  WorkQueue,
  backoffDelay,
  DEFAULT_BACKOFF,
  type BackoffOptions,
  type ProcessResult,
  type RunOutcome,
  type WorkQueueObserver,
  type WorkQueueOptions,
} from './workqueue.ts';
export {
  Controller,
  ownerKeys,
  type ControllerOptions,
  type ReconcileFn,
  type ReconcileResult,
  type WatchSpec,
} from './controller.ts';
export { Client } from './client.ts';
export { ControllerMetrics } from './metrics.ts';
export { FakeClock, systemClock, type Clock, type Timer } from './clock.ts';
export { TerminalError, isTerminalError } from './errors.ts';
export { silentLogger, type Logger } from './logger.ts';
export { compareResourceVersions } from './resource-version.ts';
