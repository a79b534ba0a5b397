// What the API and every driver check of a streaming exec's terminal and a forwarded port.
import { DriverError, type PtySize } from './driver.ts';

export const MIN_PORT = 1;
export const MAX_PORT = 65535;
/** A terminal no larger than this (rows and columns); a zero or a huge size is refused. */
export const MAX_PTY_SIDE = 1000;

export function isPort(value: number): boolean {
  return Number.isInteger(value) && value >= MIN_PORT && value <= MAX_PORT;
}

/** A port is an integer from 1 to 65535. */
export function checkPort(port: number): void {
  if (!isPort(port))
    throw new DriverError('invalid_argument', `a port is an integer from ${MIN_PORT} to ${MAX_PORT}`);
}

export function checkPtySize(size: PtySize): void {
  for (const side of [size.cols, size.rows]) {
    if (!Number.isInteger(side) || side < 1 || side > MAX_PTY_SIDE)
      throw new DriverError('invalid_argument', `a terminal is 1 to ${MAX_PTY_SIDE} columns and rows`);
  }
}
