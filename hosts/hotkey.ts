// How a hotkey string splits into key names, shared by the drivers so that they read `cmd+shift+t`
// and `ctrl++` alike: keys joined with `+`, a trailing `++` meaning the `+` key itself.
import { DriverError } from './driver.ts';

/** The trimmed key names of `keys`, the last one the key pressed; throws on an empty or malformed hotkey. */
export function splitHotkey(keys: unknown): string[] {
  if (typeof keys !== 'string' || keys.trim() === '')
    throw new DriverError('invalid_argument', 'empty hotkey');
  const parts = keys.endsWith('++') ? [...keys.slice(0, -2).split('+'), '+'] : keys.split('+');
  if (parts.some((p) => p.trim() === '' && p !== '+')) {
    throw new DriverError(
      'invalid_argument',
      `malformed hotkey "${keys}" (keys joined with +, e.g. cmd+shift+t)`,
    );
  }
  return parts.map((p) => (p === '+' ? p : p.trim()));
}
