// The operator package: what the server, the CLI and tests use of it.
export {
  startOperator,
  type ControllerName,
  type WorkControllerName,
  type StartOperatorOptions,
  type RunningOperator,
} from './start.ts';
export { DEFAULT_SETTINGS, type OperatorSettings } from './context.ts';
export type { LocalMiniOptions } from './mini/local.ts';
export { createBlobStore, type BlobStore, type BlobInfo } from './blob-store.ts';
export { seedRates, readRates } from './seed.ts';
export { setCondition, Reasons, ConditionTypes, Finalizers, SANDBOX_FAILURES } from './conditions.ts';
