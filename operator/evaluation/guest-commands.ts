// The shell lines setup steps and graders run in the guest, built from a step's data. A command
// given as argv has each word quoted; a command given as a string is the tenant's own shell line
// for its own VM (as `POST …/exec` takes it), passed to `sh -c` as one quoted word where it is
// wrapped. Every line here works on a Linux desktop and on macOS: the guest says which (`uname`).
import path from 'node:path';
import type { GuestCommand } from '../../crds/index.ts';
import { shellQuote } from '../../hosts/linux/ssh-client.ts';

/** The command as one shell line. */
export function commandLine(command: GuestCommand): string {
  return typeof command === 'string' ? command : command.map(shellQuote).join(' ');
}

/**
 * Runs a line in the background, detached from the call: in a session of its own where `setsid`
 * exists (Linux: the exec's process group ends with it), under `nohup` otherwise (macOS); its
 * output discarded.
 */
function detached(line: string): string {
  return (
    'if command -v setsid >/dev/null 2>&1; then d=setsid; else d=nohup; fi; ' +
    `("$d" ${line} </dev/null >/dev/null 2>&1 &)`
  );
}

/**
 * Starts the command in the background of the GUI session and returns at once. An argv program
 * that does not exist fails the call (exit 127) instead of leaving the wait for its window to time
 * out.
 */
export function launchLine(command: GuestCommand): string {
  if (typeof command === 'string') return detached(`sh -c ${shellQuote(command)}`);
  const program = shellQuote(command[0]!);
  return (
    `command -v ${program} >/dev/null 2>&1 || { echo "launch: "${program}" not found" >&2; exit 127; }; ` +
    detached(commandLine(command))
  );
}

/** Whether `open` is given a URL (`https://…`, `file:///…`) rather than a path. */
export function isUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(target);
}

/**
 * Opens a file (or URL) with its default application, as a double click would: `open` on macOS,
 * `xdg-open` elsewhere; in the background, since xdg-open may wait for the application to exit.
 * A path that does not exist fails the call (exit 66) rather than a window wait.
 */
export function openLine(target: string): string {
  // A relative path starting with `-` would read as an option.
  const word = shellQuote(!isUrl(target) && target.startsWith('-') ? `./${target}` : target);
  const exists = isUrl(target)
    ? ''
    : `[ -e ${word} ] || { echo "open: no such file: "${word} >&2; exit 66; }; `;
  return (
    `${exists}case "$(uname -s)" in Darwin) o=open ;; *) o=xdg-open ;; esac; ` +
    `command -v "$o" >/dev/null 2>&1 || { echo "open: $o is not installed" >&2; exit 127; }; ` +
    detached(`"$o" ${word}`)
  );
}

/** What an opened file's window is called by default: its file name (OSWorld waits the same way). */
export function openedName(target: string): string | undefined {
  if (isUrl(target)) return undefined;
  return path.posix.basename(target) || undefined;
}

export function removeLine(file: string): string {
  return `rm -f -- ${shellQuote(file)}`;
}

export function chmodLine(file: string): string {
  return `chmod +x -- ${shellQuote(file)}`;
}
