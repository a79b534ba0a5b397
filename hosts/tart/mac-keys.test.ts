// The tart driver's keymap against what Tart's VNC server takes (docs/mac.md, "Keys").
import { describe, expect, it } from 'vitest';
import { hasMacKey, macChordFor, macParseHotkey, macTypePlan, PASTE_CHORD } from './mac-keys.ts';

const SHIFT = 0xffe1;
const CONTROL = 0xffe3;
const COMMAND = 0xffe9; // Alt_L
const OPTION = 0xffe7; // Meta_L

describe('the Mac keymap of the tart driver', () => {
  it('sends Command as Alt_L, Option as Meta_L, Control as Control_L: hotkey names are the Mac’s keys', () => {
    expect(macParseHotkey('cmd+c')).toEqual({ held: [COMMAND], key: 0x63 });
    expect(macParseHotkey('command+shift+t')).toEqual({ held: [COMMAND, SHIFT], key: 0x74 });
    expect(macParseHotkey('alt+x')).toEqual({ held: [OPTION], key: 0x78 });
    expect(macParseHotkey('option+x')).toEqual(macParseHotkey('alt+x'));
    expect(macParseHotkey('ctrl+a')).toEqual({ held: [CONTROL], key: 0x61 });
    expect(macParseHotkey('super+space')).toEqual({ held: [COMMAND], key: 0x20 });
    // cmd+C means cmd+c (not cmd+shift+c), as on the other drivers.
    expect(macParseHotkey('cmd+C')).toEqual({ held: [COMMAND], key: 0x63 });
    expect(macChordFor('v', ['cmd'])).toEqual(PASTE_CHORD);
  });

  it('holds Shift itself for upper case and the shifted symbols of the US layout', () => {
    expect(macChordFor('A')).toEqual({ held: [SHIFT], key: 0x41 });
    expect(macChordFor('_')).toEqual({ held: [SHIFT], key: 0x5f });
    expect(macChordFor('&', ['cmd'])).toEqual({ held: [COMMAND, SHIFT], key: 0x26 });
    expect(macChordFor('-')).toEqual({ held: [], key: 0x2d });
    expect(macParseHotkey('cmd+?')).toEqual({ held: [COMMAND, SHIFT], key: 0x3f });
    expect(macChordFor('return')).toEqual({ held: [], key: 0xff0d });
  });

  it('refuses a key name no key of a US Mac keyboard types, and an unknown modifier', () => {
    expect(() => macChordFor('é')).toThrow(/type it as text/);
    expect(() => macChordFor('a', ['hyper'])).toThrow(/unknown modifier/);
  });

  it('types every printable ASCII character as a keystroke and pastes runs of other text', () => {
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    const [keys, ...rest] = macTypePlan(ascii);
    expect(rest).toEqual([]);
    expect('keys' in keys! && keys.keys.length).toBe(95);
    expect([...ascii].every(hasMacKey)).toBe(true);
    expect(macTypePlan('Grüße\r\n✓')).toEqual([
      {
        keys: [
          { held: [SHIFT], key: 0x47 },
          { held: [], key: 0x72 },
        ],
      },
      { paste: 'üß' },
      {
        keys: [
          { held: [], key: 0x65 },
          { held: [], key: 0xff0d },
        ],
      },
      { paste: '✓' },
    ]);
    expect(() => macTypePlan('a\u0007')).toThrow(/control character U\+0007/);
  });
});
