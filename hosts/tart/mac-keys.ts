// The tart driver's keymap: key names and text → RFB keysyms for Tart's VNC server
// (Virtualization.framework's, `--vnc-experimental`). That server presses the *physical key* a
// keysym names on a US Mac keyboard and adds no modifier of its own (docs/mac.md, "Keys"), so:
// - Command is sent as Alt_L and Option as Meta_L, as Cirrus Labs' image templates and Cua's lume
//   send them; Control is Control_L, Shift is Shift_L. The spec's hotkey names mean the Mac's keys:
//   `cmd+c` is Command-C (copy on a Mac), `ctrl+c` is Control-C, `alt`/`option` is Option.
//   `super`/`win`/`meta` are the key in the Windows key's place on a Mac keyboard: Command.
// - Every character of the US layout is its key, with Shift held for upper case and the shifted
//   symbols (`A`, `_`, `&`, `?`…): explicit, as packer's VNC driver types (Shift, then the character's
//   own keysym), which is right whether the server maps the keysym to its key or takes it literally.
// - A character with no key on that keyboard (é, —, ✓, any non-ASCII text) cannot be typed as a key
//   (the server drops its keysym): type() pastes it through the guest's clipboard instead
//   (guest.ts: pbcopy over SSH, Command-V, the clipboard restored).
import { DriverError } from '../driver.ts';
import { splitHotkey } from '../hotkey.ts';
import { keysymForName, XK, type Chord } from '../linux/keys.ts';

export const MAC_KEYSYM = {
  Shift_L: XK.Shift_L,
  Control_L: XK.Control_L,
  /** Command. */
  Alt_L: XK.Alt_L,
  /** Option. */
  Meta_L: 0xffe7,
} as const;

const MODIFIERS: Record<string, number> = {
  cmd: MAC_KEYSYM.Alt_L,
  command: MAC_KEYSYM.Alt_L,
  '⌘': MAC_KEYSYM.Alt_L,
  super: MAC_KEYSYM.Alt_L,
  win: MAC_KEYSYM.Alt_L,
  windows: MAC_KEYSYM.Alt_L,
  meta: MAC_KEYSYM.Alt_L,
  ctrl: MAC_KEYSYM.Control_L,
  control: MAC_KEYSYM.Control_L,
  '⌃': MAC_KEYSYM.Control_L,
  alt: MAC_KEYSYM.Meta_L,
  option: MAC_KEYSYM.Meta_L,
  opt: MAC_KEYSYM.Meta_L,
  '⌥': MAC_KEYSYM.Meta_L,
  shift: MAC_KEYSYM.Shift_L,
  '⇧': MAC_KEYSYM.Shift_L,
};

/** The characters the US layout types with Shift held. */
const SHIFTED = new Set('~!@#$%^&*()_+{}|:"<>?ABCDEFGHIJKLMNOPQRSTUVWXYZ');

/** Whether `ch` has a key on a US Mac keyboard (printable ASCII, Return, Tab). */
export function hasMacKey(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  return ch.length === 1 && ((cp >= 0x20 && cp <= 0x7e) || ch === '\n' || ch === '\t');
}

/** The keystroke that types `ch` (which hasMacKey): its key, with Shift when the layout needs it. */
function keystroke(ch: string): Chord {
  if (ch === '\n') return { held: [], key: XK.Return };
  if (ch === '\t') return { held: [], key: XK.Tab };
  return { held: SHIFTED.has(ch) ? [MAC_KEYSYM.Shift_L] : [], key: ch.charCodeAt(0) };
}

function modifier(name: string): number | undefined {
  return MODIFIERS[name.trim().toLowerCase()];
}

/** One key name (not a modifier) as a chord of its own: `a`, `A` (Shift+a), `?`, `return`, `f5`. */
function keyChord(name: string, foldCase: boolean): Chord {
  const mod = modifier(name);
  if (mod !== undefined) return { held: [], key: mod };
  if ([...name].length === 1) {
    const ch = foldCase && /^[A-Z]$/.test(name) ? name.toLowerCase() : name;
    if (!hasMacKey(ch)) {
      throw new DriverError(
        'invalid_argument',
        `no key of a Mac's US keyboard types ${JSON.stringify(ch)}: type it as text instead`,
      );
    }
    return keystroke(ch);
  }
  return { held: [], key: keysymForName(name) };
}

/** `press(key, modifiers)`: the key with its modifiers (and Shift, for a shifted character) held. */
export function macChordFor(key: string, modifiers: string[] = []): Chord {
  if (!Array.isArray(modifiers))
    throw new DriverError('invalid_argument', 'modifiers must be an array of names');
  const held = modifiers.map((m) => {
    const ks = modifier(m);
    if (ks === undefined) {
      throw new DriverError('invalid_argument', `unknown modifier "${m}" (cmd, ctrl, alt, option, shift)`);
    }
    return ks;
  });
  const k = keyChord(key, held.length > 0);
  return { held: unique([...held, ...k.held]), key: k.key };
}

/** `hotkey("cmd+shift+t")`: every key but the last held, the last pressed. `ctrl++` ends in `+`. */
export function macParseHotkey(keys: string): Chord {
  const names = splitHotkey(keys);
  const held = names.slice(0, -1).flatMap((n) => {
    const k = keyChord(n, true);
    return [...k.held, k.key];
  });
  const last = keyChord(names[names.length - 1]!, held.length > 0);
  return { held: unique([...held, ...last.held]), key: last.key };
}

/** How type() enters text: runs of keystrokes, and runs pasted through the clipboard. */
export type TypeStep = { keys: Chord[] } | { paste: string };

/** The steps that type `text` (CR, LF and CRLF are one Return); other control characters but tab are refused. */
export function macTypePlan(text: string): TypeStep[] {
  const steps: TypeStep[] = [];
  const chars = [...text.replaceAll('\r\n', '\n').replaceAll('\r', '\n')];
  for (const ch of chars) {
    const cp = ch.codePointAt(0)!;
    if ((cp < 0x20 && ch !== '\n' && ch !== '\t') || (cp >= 0x7f && cp < 0xa0)) {
      throw new DriverError(
        'invalid_argument',
        `cannot type control character U+${cp.toString(16).padStart(4, '0')}`,
      );
    }
    const last = steps[steps.length - 1];
    if (hasMacKey(ch)) {
      if (last && 'keys' in last) last.keys.push(keystroke(ch));
      else steps.push({ keys: [keystroke(ch)] });
    } else if (last && 'paste' in last) last.paste += ch;
    else steps.push({ paste: ch });
  }
  return steps;
}

/** Command-V: what pastes the clipboard on a Mac. */
export const PASTE_CHORD: Chord = { held: [MAC_KEYSYM.Alt_L], key: 'v'.charCodeAt(0) };

function unique(list: number[]): number[] {
  return [...new Set(list)];
}
