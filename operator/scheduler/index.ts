// The scheduler: one pure function choosing a VM for a sandbox (or a spec error code), and the pool's
// pure per-Mac plan. No I/O, no clock.
export { schedule, sizeFailure } from './schedule.ts';
export { poolPlan } from './pool-plan.ts';
export { scheduleShortlisted } from './shortlist.ts';
export type { PoolPlan, PoolPlanOptions, CloneAction, CloneReason, DesiredVm } from './pool-plan.ts';
export { scheduleMany } from './schedule-many.ts';
export {
  forkRequest,
  holdsPlace,
  miniView,
  sandboxUse,
  scheduleManyOn,
  scheduleOn,
  scheduleRequest,
  snapshotRequest,
} from './inputs.ts';
export { isScheduleFailure } from './types.ts';
export type {
  MiniView,
  SandboxUse,
  ScheduleChoice,
  ScheduleFailure,
  ScheduleInput,
  ScheduleRequest,
  ScheduleResult,
  Size,
} from './types.ts';
export {
  SCHEDULE_ERRORS,
  SCHEDULE_ERROR_CODES,
  isScheduleErrorCode,
  scheduleErrorStatus,
  type ScheduleErrorCode,
} from './errors.ts';
