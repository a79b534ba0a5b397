// Tart's failures as DriverErrors, from its exit code and its message (Sources/tart/VMStorageHelper.swift:
// exit 2 for a missing VM, one not running or already running; 1 for everything else). A message this
// table does not know stays a `command_failed` naming the command and quoting Tart's text, never a guess.
import { DriverError, type DriverErrorCode } from '../driver.ts';

interface Rule {
  test: RegExp;
  code: DriverErrorCode;
  /** What an operator should do, appended to Tart's own message. */
  hint?: string;
}

const RULES: Rule[] = [
  { test: /^the specified VM ".*" does not exist/, code: 'not_found' },
  { test: /^VM ".*" is not running/, code: 'invalid_argument' },
  { test: /^VM ".*" is already running!/, code: 'invalid_argument' },
  { test: /^VM ".*" is running/, code: 'invalid_argument' },
  {
    test: /^The number of VMs exceeds the system limit/,
    code: 'capacity',
    hint: "Apple's licence allows two macOS VMs per Mac",
  },
  {
    test: /keychain|SecKeychain|errSec/i,
    code: 'command_failed',
    hint: "unlock the Mac's login keychain (auto-login, or `security unlock-keychain` over SSH)",
  },
  {
    test: /^no IP address found/,
    code: 'timeout',
    hint: 'the guest did not get a DHCP lease; check its network and the DHCP lease time on the Mac',
  },
  { test: /should be larger than the current disk size|VM should have/, code: 'invalid_argument' },
  { test: /^Error: /, code: 'invalid_argument' },
  {
    test: /command not found|tart: not found|No such file or directory.*tart/,
    code: 'missing_tool',
    hint: 'install Tart on the Mac and put it on PATH',
  },
];

/** The error for a `tart …` command that exited `exitCode` with `stderr`. */
export function tartError(command: string, exitCode: number, stderr: string, stdout = ''): DriverError {
  const text = (stderr.trim() || stdout.trim()).split('\n')[0]?.trim() ?? '';
  if (exitCode === 127) {
    return new DriverError('missing_tool', `${command}: tart is not installed on the Mac (${text})`, command);
  }
  for (const r of RULES) {
    if (r.test.test(text)) {
      return new DriverError(r.code, `${command}: ${text}${r.hint ? ` (${r.hint})` : ''}`, command);
    }
  }
  return new DriverError('command_failed', `${command}: exit ${exitCode}: ${text || '(no output)'}`, command);
}

/** Output the driver cannot read: an error naming the command and quoting what came back. */
export function unexpectedOutput(command: string, what: string, text: string): DriverError {
  const shown = text.length > 300 ? `${text.slice(0, 300)}…` : text;
  return new DriverError('command_failed', `${command}: ${what}: ${JSON.stringify(shown)}`, command);
}
