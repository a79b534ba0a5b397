// OSWorld's commands as sandbay's: what its in-VM server (desktop_env/server/main.py) makes of a
// `{command, shell}` before running it, written as a GuestCommand that runs the same way here.
//
// - `shell: true`: the string is a shell line (`subprocess.run(…, shell=True)`): kept as a line.
// - otherwise a string is split as Python's `shlex.split` does (the npm `shlex` port), and a list
//   is argv; each argv word starting with `~/` is the user's home (`os.path.expanduser`), so argv
//   with such a word becomes a line whose words are quoted but for that `~/` prefix.
// - `{CLIENT_PASSWORD}`, `{SCREEN_WIDTH}`, `{SCREEN_HEIGHT}` and their `_HALF`s are replaced in
//   setup commands (the setup controller's `replace_screen_env_in_command`), from the import's options.
import { split } from 'shlex';
import type { GuestCommand } from '../../../crds/index.ts';
import { shellQuote } from '../../../hosts/linux/ssh-client.ts';
import { refuse, type ImportOptions } from '../imported-task.ts';

/** OSWorld's default screen (its SetupController), used when the import does not say. */
const DEFAULT_SCREEN = { width: 1920, height: 1080 };

/** Python truthiness of `shell` (tasks write `true`, and some `"true"`). */
export function isShell(shell: unknown): boolean {
  return shell === true || (typeof shell === 'string' && shell !== '') || shell === 1;
}

/** argv as sandbay runs it: plain argv, or a quoted line when a word needs `~/` expanded. */
export function argvCommand(words: string[]): GuestCommand {
  if (!words.some((w) => w.startsWith('~/'))) return words;
  return words.map((w) => (w.startsWith('~/') ? `~/${shellQuote(w.slice(2))}` : shellQuote(w))).join(' ');
}

/**
 * The command of an `execute`/`command` step or a `vm_command_line` getter. `where` names it in a
 * refusal (`config step 2 (execute)`).
 */
export function serverCommand(command: unknown, shell: unknown, where: string): GuestCommand {
  if (typeof command === 'string') {
    if (command === '') refuse(`${where}: the command is empty`);
    if (isShell(shell)) return command;
    let words: string[];
    try {
      words = split(command);
    } catch (err) {
      refuse(`${where}: the command does not split as a shell line: ${(err as Error).message}`);
    }
    if (words.length === 0) refuse(`${where}: the command is empty`);
    return argvCommand(words);
  }
  if (!Array.isArray(command) || command.length === 0 || command.some((w) => typeof w !== 'string'))
    refuse(`${where}: the command is neither a string nor a list of strings`);
  // Popen(list, shell=True) runs the first word as a line and passes the rest to it as $0, $1, …
  if (isShell(shell)) {
    if (command.length === 1) return command[0] as string;
    refuse(`${where}: a list of several words with \`shell: true\` has no equivalent`);
  }
  return argvCommand(command as string[]);
}

/**
 * `launch`'s command: the setup controller splits a string on whitespace (`str.split()`), and adds
 * `--remote-allow-origins=*` to Google Chrome's.
 */
export function launchCommand(command: unknown, shell: unknown, where: string): GuestCommand {
  if (isShell(shell)) return serverCommand(command, shell, where);
  const words =
    typeof command === 'string'
      ? command.split(/\s+/).filter((w) => w !== '')
      : Array.isArray(command)
        ? [...command]
        : undefined;
  if (!words || words.length === 0 || words.some((w) => typeof w !== 'string'))
    refuse(`${where}: the command is neither a string nor a list of strings`);
  if (words[0] === 'google-chrome' && !words.includes('--remote-allow-origins=*'))
    words.push('--remote-allow-origins=*');
  return argvCommand(words as string[]);
}

/** The setup controller's placeholders replaced; refused when one has no value. */
export function withPlaceholders(command: unknown, options: ImportOptions, where: string): unknown {
  const width = options.screen_width ?? DEFAULT_SCREEN.width;
  const height = options.screen_height ?? DEFAULT_SCREEN.height;
  const replace = (s: string) => {
    if (s.includes('{CLIENT_PASSWORD}') && options.client_password === undefined)
      refuse(`${where} uses {CLIENT_PASSWORD}: give options.client_password (the VM user's sudo password)`);
    return s
      .replaceAll('{CLIENT_PASSWORD}', options.client_password ?? '')
      .replaceAll('{SCREEN_WIDTH_HALF}', String(Math.floor(width / 2)))
      .replaceAll('{SCREEN_HEIGHT_HALF}', String(Math.floor(height / 2)))
      .replaceAll('{SCREEN_WIDTH}', String(width))
      .replaceAll('{SCREEN_HEIGHT}', String(height));
  };
  if (typeof command === 'string') return replace(command);
  if (Array.isArray(command)) return command.map((w) => (typeof w === 'string' ? replace(w) : w));
  return command;
}
