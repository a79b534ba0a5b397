// Cua's key names → sandbay's (docs/linux-keys.md). Cua's SDK sends the values of its `Key` enum
// (`enter`, `esc`, `pagedown`, `del`, `cmd`, `option`, `win`, `f1`, …, after its own `Key.from_string`
// folded `return`, `escape`, `page_down`, `delete`, `command`), single characters, and anything else
// as given; its servers look the name up in pynput's `Key` (`page_down`, `caps_lock`, `alt_l`, …).
// sandbay's key parser already reads all of those but the few below, where pynput's meaning differs
// from sandbay's or pynput names a side of a modifier. `cmd` stays `cmd`: on a Mac it is Command, and
// the linux driver holds Control for it, as for every macOS shortcut (docs/linux-keys.md).

/** pynput's names whose sandbay name differs (lower case). */
const PYNPUT_NAMES: Record<string, string> = {
  // pynput's `delete` is the forward delete key; sandbay's `delete` is the macOS delete key (BackSpace).
  delete: 'del',
  // Left and right modifiers: sandbay holds the left one for both.
  alt_l: 'alt',
  alt_r: 'alt',
  ctrl_l: 'ctrl',
  ctrl_r: 'ctrl',
  shift_l: 'shift',
  shift_r: 'shift',
  cmd_l: 'cmd',
  cmd_r: 'cmd',
  alt_gr: 'ISO_Level3_Shift',
  media_volume_up: 'volumeup',
  media_volume_down: 'volumedown',
  media_volume_mute: 'mute',
};

/** The sandbay name of one key Cua sent. */
export function sandbayKey(key: string): string {
  return key.length > 1 ? (PYNPUT_NAMES[key.toLowerCase()] ?? key) : key;
}

/**
 * Cua's hotkey (a list: all but the last held, the last pressed) as sandbay's `a+b+c`. Only the last
 * key may be `+` (sandbay's `ctrl++`); a name with a `+` inside is not a key.
 */
export function sandbayHotkey(keys: string[]): string {
  keys.forEach((key, i) => {
    if (key.includes('+') && !(key === '+' && i === keys.length - 1))
      throw new RangeError(`params/keys/${i}: "${key}" is not a key name (only the last key may be "+")`);
  });
  return keys.map(sandbayKey).join('+');
}
