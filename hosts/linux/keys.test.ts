import { describe, expect, it } from 'vitest';
import { chordFor, keysymForName, keysymsForText, parseHotkey, XK } from './keys.ts';

describe('key names', () => {
  it('maps cmd to Control so that macOS shortcuts (cmd+c, cmd+v) copy and paste on Linux', () => {
    expect(parseHotkey('cmd+c')).toEqual({ held: [XK.Control_L], key: 0x63 });
    expect(chordFor('v', ['cmd'])).toEqual({ held: [XK.Control_L], key: 0x76 });
    expect(chordFor('v', ['command'])).toEqual(chordFor('v', ['ctrl']));
  });

  it('maps option to Alt and keeps Super reachable as super/win/meta', () => {
    expect(chordFor('tab', ['option'])).toEqual({ held: [XK.Alt_L], key: XK.Tab });
    expect(keysymForName('super')).toBe(XK.Super_L);
    expect(keysymForName('win')).toBe(XK.Super_L);
  });

  it('names return/enter, esc, arrows, F-keys and the macOS delete key', () => {
    expect(keysymForName('return')).toBe(XK.Return);
    expect(keysymForName('Enter')).toBe(XK.Return);
    expect(keysymForName('esc')).toBe(XK.Escape);
    expect(keysymForName('up')).toBe(0xff52);
    expect(keysymForName('ArrowLeft')).toBe(0xff51);
    expect(keysymForName('page_down')).toBe(0xff56);
    expect(keysymForName('f1')).toBe(0xffbe);
    expect(keysymForName('F12')).toBe(0xffc9);
    expect(keysymForName('delete')).toBe(XK.BackSpace);
    expect(keysymForName('forwarddelete')).toBe(XK.Delete);
  });

  it('accepts X keysym names as a fallback', () => {
    expect(keysymForName('KP_Enter')).toBe(0xff8d);
  });

  it('holds every key but the last of a hotkey, and reads ctrl++ as ctrl and plus', () => {
    expect(parseHotkey('cmd+shift+t')).toEqual({ held: [XK.Control_L, XK.Shift_L], key: 0x74 });
    expect(parseHotkey('ctrl++')).toEqual({ held: [XK.Control_L], key: 0x2b });
    expect(parseHotkey('a+b')).toEqual({ held: [0x61], key: 0x62 });
  });

  it('reads an upper-case letter after a modifier as the letter itself (cmd+C is cmd+c)', () => {
    expect(parseHotkey('cmd+C')).toEqual(parseHotkey('cmd+c'));
    expect(keysymForName('A')).toBe(0x41);
  });

  it('types Latin-1 directly, other Unicode as 0x01000000 + code point, newline as Return', () => {
    expect(keysymsForText('aé✓😀\r\n\t')).toEqual([0x61, 0xe9, 0x01002713, 0x0101f600, XK.Return, XK.Tab]);
  });

  it('rejects unknown keys, unknown modifiers, malformed hotkeys and control characters', () => {
    expect(() => keysymForName('nosuchkey')).toThrow(/unknown key/);
    expect(() => chordFor('a', ['hyper'])).toThrow(/unknown modifier/);
    expect(() => parseHotkey('cmd++c')).toThrow(/malformed/);
    expect(() => parseHotkey('')).toThrow(/empty/);
    expect(() => keysymsForText('a\u0007b')).toThrow(/control character/);
  });
});
