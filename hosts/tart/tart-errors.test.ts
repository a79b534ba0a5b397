// Tart's messages (as cirruslabs/tart prints them) map to DriverError codes; text the driver does not
// know is quoted, not guessed; JSON without the fields it reads is refused.
import { describe, expect, it } from 'vitest';
import { tartError } from './tart-errors.ts';
import { parseGet, parseIp, parseList, parseVncLine } from './tart-json.ts';

describe('tart errors', () => {
  it.each([
    [2, 'the specified VM "v1" does not exist', 'not_found'],
    [2, 'VM "v1" is not running', 'invalid_argument'],
    [2, 'VM "v1" is already running!', 'invalid_argument'],
    [1, 'VM "v1" is running', 'invalid_argument'],
    [1, 'The number of VMs exceeds the system limit (other running VMs: a, b)', 'capacity'],
    [1, 'SecKeychainUnlock failed: errSecInteractionNotAllowed', 'command_failed'],
    [127, 'sh: tart: command not found', 'missing_tool'],
    [64, "Error: Missing expected argument '<name>'", 'invalid_argument'],
  ])('exit %i "%s" → %s', (code, text, expected) => {
    const e = tartError('tart run', code, `${text}\n`);
    expect(e.code).toBe(expected);
    expect(e.message).toContain(text);
    expect(e.command).toBe('tart run');
  });

  it('says what to do about the licence limit and the keychain', () => {
    expect(tartError('tart run', 1, 'The number of VMs exceeds the system limit').message).toMatch(
      /two macOS VMs/,
    );
    expect(tartError('tart run', 1, 'keychain locked').message).toMatch(/unlock-keychain/);
  });

  it('quotes a message it does not know', () => {
    expect(tartError('tart clone', 1, 'something new happened\nmore')).toMatchObject({
      code: 'command_failed',
      message: 'tart clone: exit 1: something new happened',
    });
  });
});

describe('tart output', () => {
  it('reads list, get, ip and the VNC line as Tart prints them', () => {
    expect(
      parseList(
        '[\n  {\n    "Source" : "local",\n    "Name" : "a",\n    "Disk" : 64,\n    "Running" : true,\n    "State" : "running"\n  }\n]',
      ),
    ).toEqual([{ Source: 'local', Name: 'a', Disk: 64, Running: true, State: 'running' }]);
    expect(
      parseGet('{ "CPU" : 4, "Memory" : 8192, "Display" : "1280x800px", "Running" : false }'),
    ).toMatchObject({ CPU: 4 });
    expect(parseIp('192.168.64.7\n')).toBe('192.168.64.7');
    expect(parseVncLine('VNC server is running at vnc://:able-acid-acorn-also@127.0.0.1:61234\n')).toEqual({
      password: 'able-acid-acorn-also',
      host: '127.0.0.1',
      port: 61234,
    });
  });

  it('refuses what it cannot read, naming the command and quoting the text', () => {
    expect(() => parseList('{"vms": []}')).toThrow(/tart list: .*"\{\\"vms\\": \[\]\}"/);
    expect(() => parseGet('not json')).toThrow(/tart get: not JSON: "not json"/);
    expect(() => parseIp('no IP yet')).toThrow(/tart ip: not an IPv4 address/);
    expect(parseVncLine('Opening vnc://127.0.0.1:5900...')).toBeUndefined();
  });
});
