// @sandbay/sdk: what the package exports.
export { Client, type ClientOptions, type CreateOptions, type ReserveOptions } from './client.ts';
export {
  Sandbox,
  DEFAULT_EXEC_TIMEOUT_S,
  DEFAULT_KEEPALIVE_MS,
  type EvaluationOptions,
  type ViewerLink,
} from './sandbox.ts';
export { Accessibility, Display, Keyboard, Mouse, Recordings, Screenshot } from './controls.ts';
export type { Button, ScrollDirection } from './controls.ts';
export { Tasks } from './tasks.ts';
export { EvaluationRuns } from './evaluation-runs.ts';
export { ClipboardGroup, type Clipboard } from './clipboard.ts';
export { ExecStream, type ExecEvent, type ExecStreamOptions, type ExecStreamResult } from './exec-stream.ts';
export { SandbayConnectionError, SandbayError, SandbayTimeoutError } from './errors.ts';
export { readTar, type TarEntry } from './tar.ts';
export { readEvents, type ServerEvent } from './events.ts';
export type * from './types.ts';
export type { paths, components } from './generated/openapi.ts';
