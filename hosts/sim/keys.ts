// Key names the sim accepts: the API's macOS-flavoured names, checked the way the linux driver checks
// them (unknown keys and modifiers are an `invalid_argument`), without mapping them to anything.
import { DriverError } from '../driver.ts';
import { splitHotkey } from '../hotkey.ts';

const MODIFIERS = new Set([
  'cmd',
  'command',
  '⌘',
  'ctrl',
  'control',
  '⌃',
  'alt',
  'option',
  'opt',
  '⌥',
  'shift',
  '⇧',
  'super',
  'win',
  'windows',
  'meta',
  'fn',
]);

const NAMED = new Set([
  'return',
  'enter',
  'tab',
  'escape',
  'esc',
  'space',
  'delete',
  'backspace',
  'forwarddelete',
  'del',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  'capslock',
  'insert',
  'help',
  'arrowup',
  'arrowdown',
  'arrowleft',
  'arrowright',
  'volumeup',
  'volumedown',
  'mute',
]);

function checkModifier(name: unknown): void {
  if (typeof name !== 'string' || !MODIFIERS.has(name.trim().toLowerCase())) {
    throw new DriverError(
      'invalid_argument',
      `unknown modifier "${String(name)}" (cmd, ctrl, alt, option, shift, super)`,
    );
  }
}

function checkKeyName(name: unknown): void {
  if (typeof name !== 'string' || name.length === 0)
    throw new DriverError('invalid_argument', 'empty key name');
  if ([...name].length === 1) return checkText(name);
  const key = name
    .trim()
    .toLowerCase()
    .replace(/[\s_-]/g, '');
  if (MODIFIERS.has(key) || NAMED.has(key) || /^f([1-9]|1\d|2[0-4])$/.test(key)) return;
  throw new DriverError('invalid_argument', `unknown key "${name}"`);
}

export function checkText(text: unknown): void {
  if (typeof text !== 'string') throw new DriverError('invalid_argument', 'text must be a string');
  // eslint-disable-next-line no-control-regex -- tab, newline and carriage return are typeable; other controls are not
  const bad = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.exec(text);
  if (bad) {
    const cp = bad[0].codePointAt(0)!.toString(16).padStart(4, '0');
    throw new DriverError('invalid_argument', `cannot type control character U+${cp}`);
  }
}

/** `press(key, modifiers)`. */
export function checkKey(key: unknown, modifiers: unknown): void {
  if (!Array.isArray(modifiers))
    throw new DriverError('invalid_argument', 'modifiers must be an array of names');
  modifiers.forEach(checkModifier);
  checkKeyName(key);
}

/** `hotkey("cmd+shift+t")`; `ctrl++` ends in `+`. */
export function checkHotkey(keys: unknown): void {
  splitHotkey(keys).forEach(checkKeyName);
}
