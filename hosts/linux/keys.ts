// Key names of the API (written for macOS) → X11 keysyms. Pure: no connection, no state.
//
// `cmd` maps to Control: agent actions written for macOS (cmd+c, cmd+v, cmd+s, cmd+a, cmd+z, cmd+t)
// mean copy, paste, save, select all, undo, new tab, which are Control shortcuts on a Linux desktop.
// The Super key stays reachable as `super` / `win` / `meta`. `delete` is the macOS delete key, which
// erases backwards (BackSpace); forward delete is `forwarddelete` / `del`. See docs/linux-keys.md.
import { createRequire } from 'node:module';
import { DriverError } from '../driver.ts';
import { splitHotkey } from '../hotkey.ts';

export const XK = {
  BackSpace: 0xff08,
  Tab: 0xff09,
  Return: 0xff0d,
  Escape: 0xff1b,
  Delete: 0xffff,
  Shift_L: 0xffe1,
  Control_L: 0xffe3,
  Alt_L: 0xffe9,
  Super_L: 0xffeb,
} as const;

/** Modifier names (lower case) → the keysym held for them. */
const MODIFIERS: Record<string, number> = {
  cmd: XK.Control_L,
  command: XK.Control_L,
  '⌘': XK.Control_L,
  ctrl: XK.Control_L,
  control: XK.Control_L,
  '⌃': XK.Control_L,
  alt: XK.Alt_L,
  option: XK.Alt_L,
  opt: XK.Alt_L,
  '⌥': XK.Alt_L,
  shift: XK.Shift_L,
  '⇧': XK.Shift_L,
  super: XK.Super_L,
  win: XK.Super_L,
  windows: XK.Super_L,
  meta: XK.Super_L,
};

/** Named keys (lower case, `-`, `_` and spaces removed) → keysym. */
const NAMED: Record<string, number> = {
  return: XK.Return,
  enter: XK.Return,
  tab: XK.Tab,
  esc: XK.Escape,
  escape: XK.Escape,
  space: 0x20,
  spacebar: 0x20,
  backspace: XK.BackSpace,
  delete: XK.BackSpace,
  forwarddelete: XK.Delete,
  del: XK.Delete,
  insert: 0xff63,
  home: 0xff50,
  end: 0xff57,
  pageup: 0xff55,
  pgup: 0xff55,
  pagedown: 0xff56,
  pgdn: 0xff56,
  left: 0xff51,
  up: 0xff52,
  right: 0xff53,
  down: 0xff54,
  arrowleft: 0xff51,
  arrowup: 0xff52,
  arrowright: 0xff53,
  arrowdown: 0xff54,
  leftarrow: 0xff51,
  uparrow: 0xff52,
  rightarrow: 0xff53,
  downarrow: 0xff54,
  capslock: 0xffe5,
  numlock: 0xff7f,
  scrolllock: 0xff14,
  printscreen: 0xff61,
  print: 0xff61,
  pause: 0xff13,
  menu: 0xff67,
  plus: 0x2b,
  minus: 0x2d,
  volumeup: 0x1008ff13,
  volumedown: 0x1008ff11,
  mute: 0x1008ff12,
  volumemute: 0x1008ff12,
};

let xNames: Record<string, { code: number }> | undefined;

/** X keysym names (`KP_Enter`, `Page_Up`, `eacute`) from the x11 package's copy of keysymdef.h. */
function xKeysymByName(name: string): number | undefined {
  xNames ??= createRequire(import.meta.url)('x11/lib/keysyms.js') as Record<string, { code: number }>;
  return xNames[`XK_${name}`]?.code;
}

/** The keysym that types one Unicode code point (Latin-1 directly, the rest as 0x01000000 + code point). */
export function keysymForCodePoint(cp: number): number {
  if (cp === 0x0a || cp === 0x0d) return XK.Return;
  if (cp === 0x09) return XK.Tab;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
    throw new DriverError(
      'invalid_argument',
      `cannot type control character U+${cp.toString(16).padStart(4, '0')}`,
    );
  }
  if (cp <= 0xff) return cp;
  return 0x01000000 + cp;
}

/** The keysyms that type `text`, one per keystroke (CRLF is one Return). Validates all before typing any. */
export function keysymsForText(text: string): number[] {
  const out: number[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string;
    if (ch === '\r' && chars[i + 1] === '\n') continue;
    out.push(keysymForCodePoint(ch.codePointAt(0) as number));
  }
  return out;
}

export function isModifierName(name: string): boolean {
  return MODIFIERS[name.trim().toLowerCase()] !== undefined;
}

/** The keysym of a modifier name (`cmd`, `ctrl`, `alt`/`option`, `shift`, `super`). */
export function modifierKeysym(name: string): number {
  const ks = MODIFIERS[name.trim().toLowerCase()];
  if (ks === undefined) {
    throw new DriverError(
      'invalid_argument',
      `unknown modifier "${name}" (cmd, ctrl, alt, option, shift, super)`,
    );
  }
  return ks;
}

/**
 * The keysym of one key name: a modifier, a named key (`return`, `f5`, `pageup`), a single character
 * (`a`, `A`, `é`, `+`), or an X keysym name (`KP_Enter`). `foldCase` lower-cases a single ASCII letter,
 * so that `cmd+C` means cmd+c rather than cmd+shift+c.
 */
export function keysymForName(name: string, foldCase = false): number {
  if (typeof name !== 'string' || name.length === 0)
    throw new DriverError('invalid_argument', 'empty key name');
  const chars = [...name];
  if (chars.length === 1) {
    const ch = foldCase && /^[A-Z]$/.test(name) ? name.toLowerCase() : name;
    const mod = MODIFIERS[ch];
    return mod ?? keysymForCodePoint(ch.codePointAt(0) as number);
  }
  const key = name.trim().toLowerCase();
  const mod = MODIFIERS[key];
  if (mod !== undefined) return mod;
  const compact = key.replace(/[\s_-]/g, '');
  const named = NAMED[compact];
  if (named !== undefined) return named;
  const f = /^f([1-9]|1\d|2[0-4])$/.exec(compact);
  if (f?.[1]) return 0xffbe + Number(f[1]) - 1;
  const x = xKeysymByName(name.trim());
  if (x !== undefined) return x;
  throw new DriverError('invalid_argument', `unknown key "${name}"`);
}

/** What one key press does: hold `held` in order, press and release `key`, release `held` in reverse. */
export interface Chord {
  held: number[];
  key: number;
}

/** `press(key, modifiers)`: the key with its modifiers held. */
export function chordFor(key: string, modifiers: string[] = []): Chord {
  if (!Array.isArray(modifiers))
    throw new DriverError('invalid_argument', 'modifiers must be an array of names');
  const held = unique(modifiers.map(modifierKeysym));
  return { held, key: keysymForName(key, held.length > 0) };
}

/** `hotkey("cmd+shift+t")`: every key but the last is held, the last is pressed. `ctrl++` ends in `+`. */
export function parseHotkey(keys: string): Chord {
  const names = splitHotkey(keys);
  const held = unique(names.slice(0, -1).map((n) => keysymForName(n, true)));
  return { held, key: keysymForName(names[names.length - 1] as string, held.length > 0) };
}

function unique(list: number[]): number[] {
  return [...new Set(list)];
}
