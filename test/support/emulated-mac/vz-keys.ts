// How Virtualization.framework's VNC server (Tart's `--vnc-experimental`) turns an RFB KeyEvent into
// a key of the guest's keyboard, as the emulated Macs model it (docs/mac.md, "What a real Mac does
// that the emulation copies"): the keysym names a *physical key* of a US (ANSI) Mac keyboard, and
// that key is pressed or released as it is. The server adds no Shift and releases none: keysym `A`
// or `a` is the A key (a lower-case `a` unless the client holds Shift), `_` is the minus key, `&`
// the 7 key. Command is `Alt_L`, Option is `Meta_L`; `Super_L` and every keysym with no key of
// its own (é, ✓, any Unicode keysym) do nothing.
//
// The sources: Cua's lume, which drives the same server, types an upper-case letter as Shift + the
// lower-case keysym and a shifted symbol as Shift + its key's unshifted keysym
// (libs/lume/src/VNC/X11Keysyms.swift `charToKeysym`), and says that text sent without Shift comes
// out corrupted for upper case, `_` and `&` (libs/lume/src/Utils/VNCDriver.swift); its chords send
// Command as XK_Alt_L and Option as XK_Meta_L, Super_L "NOT mapped to Command"
// (libs/lume/src/VNC/VNCService.swift); Cirrus Labs' image templates send Command as `<leftAltOn>`
// (0xFFE9 in packer-plugin-sdk's bootcommand/vnc_driver.go): `<leftAltOn><spacebar>` opens
// Spotlight, `<leftAltOn>q` quits (templates/vanilla-tahoe.pkr.hcl).
//
// The guest is a Linux desktop with a US keyboard (Xvfb's default evdev keymap), standing in for
// the Mac's keys: Command is its Super_L key (Mod4, where the guest's apps take Command's shortcuts,
// see guest-env.ts), Option its Alt_L key.

/** X keycodes of the guest's US keyboard (evdev: the Linux key code + 8). */
const KEY = {
  Escape: 9,
  BackSpace: 22,
  Tab: 23,
  Return: 36,
  Control_L: 37,
  Shift_L: 50,
  Shift_R: 62,
  Alt_L: 64,
  space: 65,
  Caps_Lock: 66,
  KP_Enter: 104,
  Control_R: 105,
  Alt_R: 108,
  Home: 110,
  Up: 111,
  Prior: 112,
  Left: 113,
  Right: 114,
  End: 115,
  Down: 116,
  Next: 117,
  Delete: 119,
  Super_L: 133,
  Super_R: 134,
} as const;

/** Each key of the US layout's printable rows: unshifted character, shifted character, keycode. */
const PRINTABLE: [string, string, number][] = [
  ['`', '~', 49],
  ['1', '!', 10],
  ['2', '@', 11],
  ['3', '#', 12],
  ['4', '$', 13],
  ['5', '%', 14],
  ['6', '^', 15],
  ['7', '&', 16],
  ['8', '*', 17],
  ['9', '(', 18],
  ['0', ')', 19],
  ['-', '_', 20],
  ['=', '+', 21],
  ['[', '{', 34],
  [']', '}', 35],
  ['\\', '|', 51],
  [';', ':', 47],
  ["'", '"', 48],
  [',', '<', 59],
  ['.', '>', 60],
  ['/', '?', 61],
  ...[...'qwertyuiop'].map((c, i): [string, string, number] => [c, c.toUpperCase(), 24 + i]),
  ...[...'asdfghjkl'].map((c, i): [string, string, number] => [c, c.toUpperCase(), 38 + i]),
  ...[...'zxcvbnm'].map((c, i): [string, string, number] => [c, c.toUpperCase(), 52 + i]),
];

/** keysym → the guest keycode of the Mac key it names. */
const KEYCODE = new Map<number, number>([
  [0x20, KEY.space],
  ...PRINTABLE.flatMap(([base, shifted, code]): [number, number][] => [
    [base.charCodeAt(0), code],
    [shifted.charCodeAt(0), code],
  ]),
  [0xff08, KEY.BackSpace], // the Mac's delete key
  [0xff09, KEY.Tab],
  [0xff0d, KEY.Return],
  [0xff8d, KEY.KP_Enter],
  [0xff1b, KEY.Escape],
  [0xffff, KEY.Delete], // forward delete
  [0xff50, KEY.Home],
  [0xff51, KEY.Left],
  [0xff52, KEY.Up],
  [0xff53, KEY.Right],
  [0xff54, KEY.Down],
  [0xff55, KEY.Prior],
  [0xff56, KEY.Next],
  [0xff57, KEY.End],
  ...Array.from({ length: 10 }, (_, i): [number, number] => [0xffbe + i, 67 + i]), // F1–F10
  [0xffc8, 95], // F11
  [0xffc9, 96], // F12
  [0xffe1, KEY.Shift_L],
  [0xffe2, KEY.Shift_R],
  [0xffe3, KEY.Control_L],
  [0xffe4, KEY.Control_R],
  [0xffe5, KEY.Caps_Lock],
  [0xffe9, KEY.Super_L], // Alt_L: Command
  [0xffea, KEY.Super_R], // Alt_R: right Command
  [0xffe7, KEY.Alt_L], // Meta_L: Option
  [0xffe8, KEY.Alt_R], // Meta_R: right Option
]);

/** The guest keycode an RFB keysym presses, or undefined: the server does nothing for it. */
export function vzKeycode(keysym: number): number | undefined {
  return KEYCODE.get(keysym);
}
