// The pure parts of the Cua adapter: the answer's bytes, the command lookup with Cua's aliases and
// suggestions, key names, and how a path reaches the VM's shell.
import { describe, expect, it } from 'vitest';
import { ALIASES, COMMANDS, lookup, refusedParams, unknownCommandSentence } from './commands.ts';
import { sandbayHotkey, sandbayKey } from './keys.ts';
import { answerBytes } from './protocol.ts';
import { shellPath } from './vm-paths.ts';

describe('answerBytes', () => {
  it('writes the same JSON as JSON.stringify, a base64 field spliced in as it is', () => {
    const image = Buffer.from('a screenshot, or any bytes ✓').toString('base64');
    const answer = { success: true, format: 'png', image_data: image, note: 'é "quoted"' };
    const bytes = answerBytes(answer, 'data: ', '\n\n').toString('utf8');
    expect(bytes.startsWith('data: ') && bytes.endsWith('\n\n')).toBe(true);
    expect(JSON.parse(bytes.slice(6, -2))).toEqual(answer);
    expect(JSON.parse(answerBytes({ success: false, error: 'x' }).toString())).toEqual({
      success: false,
      error: 'x',
    });
  });
});

describe('lookup', () => {
  it("resolves Cua's aliases to served commands, and every alias names one", () => {
    expect(lookup('click')).toMatchObject({ name: 'left_click' });
    expect(lookup('exec')).toMatchObject({ name: 'run_command' });
    for (const target of Object.values(ALIASES)) expect(COMMANDS[target]).toBeDefined();
  });

  it("refuses what it does not serve with Cua's sentence and suggestions; a missing command is required", () => {
    expect(lookup('set_clipboard')).toEqual({ refusal: 'Unknown command: set_clipboard' });
    expect(unknownCommandSentence('mouse')).toBe(
      'Unknown command: mouse. Did you mean: move_cursor, mouse_down, mouse_up?',
    );
    expect(lookup(undefined)).toEqual({ refusal: 'Command is required' });
    expect(lookup('__proto__')).toEqual({ refusal: 'Unknown command: __proto__' });
  });

  it('checks params before anything runs, naming the field; unknown fields are ignored', () => {
    const click = COMMANDS.left_click!;
    expect(refusedParams(click, { x: 1, y: 2, extra: true })).toBeUndefined();
    expect(refusedParams(click, { x: null, y: null })).toBeUndefined();
    expect(refusedParams(click, { x: 'a' })).toMatchObject({
      error: 'params/x must be either integer or null',
    });
    expect(refusedParams(click, [1])).toMatchObject({ error: 'params must be an object' });
  });
});

describe('keys', () => {
  it("reads pynput's names where sandbay's differ; the rest pass through", () => {
    expect(sandbayKey('delete')).toBe('del');
    expect(sandbayKey('cmd_r')).toBe('cmd');
    expect(sandbayKey('enter')).toBe('enter');
    expect(sandbayKey('D')).toBe('D');
    expect(sandbayHotkey(['ctrl_l', 'shift', 't'])).toBe('ctrl+shift+t');
    expect(sandbayHotkey(['ctrl', '+'])).toBe('ctrl++');
    expect(() => sandbayHotkey(['ctrl+alt', 'x'])).toThrow(/params\/keys\/0/);
  });
});

describe('shellPath', () => {
  it('quotes a path as one word, `~` meaning the home, a leading dash made relative', () => {
    expect(shellPath("it's here/a b")).toBe(`'it'\\''s here/a b'`);
    expect(shellPath('~')).toBe('"$HOME"');
    expect(shellPath('~/x y')).toBe(`"$HOME"/'x y'`);
    expect(shellPath('-rf')).toBe(`'./-rf'`);
    expect(() => shellPath('a\nb')).toThrow(/control characters/);
  });
});
