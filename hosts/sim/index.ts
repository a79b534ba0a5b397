// The sim host driver: a full in-memory implementation of the driver contract, with fault injection.
export {
  createSimDriver,
  type SimControls,
  type SimDriver,
  type SimHostView,
  type SimVmView,
} from './create-driver.ts';
export type { SimClock, SimDriverOptions, SimHostOverride, SimTimings } from './options.ts';
export { DEFAULT_TIMINGS } from './options.ts';
export type { FailNextOptions, SimOp } from './faults.ts';
