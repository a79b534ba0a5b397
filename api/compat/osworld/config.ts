// OSWorld's `config` (its SetupController's steps, desktop_env/controllers/setup.py, run by the
// in-VM server) as sandbay setup steps. Each step maps one to one where sandbay does the same
// thing; any other step refuses the task, naming it and why.
//
// What each step does there, and here:
// - `download {files: [{url, path}]}`: the harness fetches the URL and uploads it to `path`; here
//   the control plane fetches and streams it in (docs/evaluation.md, "Who fetches a URL").
// - `launch {command, shell}`: `Popen` in the background, no wait; here `launch` with `wait_for:
//   false`. (A program that does not exist fails the setup here; OSWorld logs it and goes on.)
// - `execute`/`command {command, shell, until}`: run (exit code ignored); with `until`, again every
//   0.3 s until the condition holds; here `command` with `expect`, `attempts` and `interval_ms`.
// - `open {path}`: the default app, then a wait (up to 30 min) for a window whose title contains the
//   file's name or its name without the extension; here `open` waiting for the latter.
// - `sleep {seconds}`: `sleep`.
// - `activate_window` / `close_window {window_name, strict, by_class}`: on Linux the server runs
//   `wmctrl -a` / `-c` (with `-F` strict, `-x` by class) and ignores how it went; here that command.
// - `tidy_desktop` / `act`: OSWorld's controller raises NotImplementedError; refused here by decision,
//   not given a meaning of sandbay's own (docs/evaluation.md, "OSWorld steps that refuse the task").
import path from 'node:path';
import type { CommandStep, SetupStep } from '../../../crds/index.ts';
import { homePath, isObject, refuse, type ImportOptions } from '../imported-task.ts';
import { launchCommand, serverCommand, withPlaceholders } from './commands.ts';

export const SUPPORTED_CONFIG_STEPS = [
  'download',
  'launch',
  'execute',
  'command',
  'open',
  'sleep',
  'activate_window',
  'close_window',
] as const;

/** Why the steps sandbay does not take are refused (the rest: "not supported"). */
const UNSUPPORTED: Record<string, string> = {
  chrome_open_tabs: "drives Chrome through its DevTools port (CDP), which sandbay's setup steps do not use",
  chrome_close_tabs: "drives Chrome through its DevTools port (CDP), which sandbay's setup steps do not use",
  login: "signs in through Chrome's DevTools port (CDP), which sandbay's setup steps do not use",
  update_browse_history: "rewrites Chrome's history database on the harness host",
  googledrive: "needs the harness's Google Drive credentials",
  google_sheet_from_template: "needs the harness's Google account",
  google_doc_from_template: "needs the harness's Google account",
  upload_file: "uploads a file from the harness host's disk (upload it as a blob and use `download`)",
  execute_with_verification: 'checks windows through the OSWorld server, which sandbay does not run',
  change_wallpaper:
    "sets Ubuntu GNOME's wallpaper (gsettings); no setup step kind sets a wallpaper, and the guests run XFCE or macOS",
  tidy_desktop: "raises NotImplementedError in OSWorld's own setup controller: no OSWorld run can use it",
  act: "raises NotImplementedError in OSWorld's own setup controller: no OSWorld run can use it",
  replay: 'replays an OSWorld trajectory file from the harness host',
  proxy: "configures the harness's proxy pool",
};

/** OSWorld's `until` loop runs the command again every 0.3 s. */
const UNTIL_INTERVAL_MS = 300;
/** OSWorld's `until` loop has no deadline of its own; here it stops at the step's. */
const UNTIL_TIMEOUT_S = 600;
/** OSWorld waits up to 30 minutes for an opened file's window; the setup's 10 minutes bound it here. */
const OPEN_TIMEOUT_S = 600;

function params(step: Record<string, unknown>, where: string): Record<string, unknown> {
  const p = step.parameters ?? {};
  if (!isObject(p)) refuse(`${where}: \`parameters\` is not an object`);
  return p;
}

function known(p: Record<string, unknown>, names: string[], where: string): void {
  const extra = Object.keys(p).filter((k) => !names.includes(k));
  if (extra.length > 0)
    refuse(`${where}: parameter ${extra.map((k) => `\`${k}\``).join(', ')} is not supported`);
}

function str(p: Record<string, unknown>, name: string, where: string): string {
  const v = p[name];
  if (typeof v !== 'string' || v === '') refuse(`${where}: \`${name}\` must be a non-empty string`);
  return v;
}

function download(p: Record<string, unknown>, where: string): SetupStep[] {
  known(p, ['files'], where);
  const files = p.files;
  if (!Array.isArray(files) || files.length === 0) refuse(`${where}: \`files\` must be a non-empty list`);
  return files.map((f, i) => {
    if (!isObject(f)) refuse(`${where}: files[${i}] is not an object`);
    return {
      type: 'download',
      url: str(f, 'url', `${where} files[${i}]`),
      path: homePath(str(f, 'path', `${where} files[${i}]`)),
    };
  });
}

function execute(p: Record<string, unknown>, options: ImportOptions, where: string): CommandStep {
  known(p, ['command', 'shell', 'until'], where);
  const command = serverCommand(withPlaceholders(p.command, options, where), p.shell, where);
  const until = p.until ?? {};
  if (!isObject(until)) refuse(`${where}: \`until\` is not an object`);
  const conditions = Object.keys(until);
  // Without `until` the server's answer is not looked at: any exit code will do.
  if (conditions.length === 0) return { type: 'command', command, expect: { exit_code: null } };
  if (conditions.length > 1)
    refuse(
      `${where}: \`until\` with several conditions (${conditions.join(', ')}) ends when either holds; a command step's \`expect\` needs all of its fields`,
    );
  const [condition] = conditions as [string];
  const value = until[condition];
  const expect =
    condition === 'returncode' && Number.isInteger(value)
      ? { exit_code: value as number }
      : condition === 'stdout' && typeof value === 'string'
        ? { exit_code: null, stdout_contains: value }
        : condition === 'stderr' && typeof value === 'string'
          ? { exit_code: null, stderr_contains: value }
          : refuse(`${where}: \`until.${condition}\` is not supported (returncode, stdout or stderr)`);
  return {
    type: 'command',
    command,
    expect,
    attempts: 10_000,
    interval_ms: UNTIL_INTERVAL_MS,
    timeout_s: UNTIL_TIMEOUT_S,
  };
}

function open(p: Record<string, unknown>, where: string): SetupStep {
  known(p, ['path'], where);
  const file = homePath(str(p, 'path', where));
  const base = path.posix.basename(file);
  const stem = base.includes('.') ? base.slice(0, base.lastIndexOf('.')) || base : base;
  // A title containing the file's name contains its stem: the stem is the whole of OSWorld's test.
  return { type: 'open', path: file, wait_for: { name_contains: stem }, timeout_s: OPEN_TIMEOUT_S };
}

function windowCommand(p: Record<string, unknown>, action: 'a' | 'c', where: string): SetupStep {
  known(p, ['window_name', 'strict', 'by_class'], where);
  const flags = `-${p.by_class ? 'x' : ''}${p.strict ? 'F' : ''}${action}`;
  return {
    type: 'command',
    command: ['wmctrl', flags, str(p, 'window_name', where)],
    expect: { exit_code: null },
  };
}

function sleep(p: Record<string, unknown>, where: string): SetupStep {
  known(p, ['seconds'], where);
  const seconds = p.seconds;
  if (typeof seconds !== 'number' || !(seconds >= 0 && seconds <= 3600))
    refuse(`${where}: \`seconds\` must be a number from 0 to 3600`);
  return { type: 'sleep', seconds };
}

/** One OSWorld step as sandbay steps (a download of several files is several). */
export function configStep(
  step: unknown,
  index: number,
  options: ImportOptions,
  what = 'config',
): SetupStep[] {
  if (!isObject(step) || typeof step.type !== 'string') refuse(`${what} step ${index} has no \`type\``);
  const type = step.type;
  const where = `${what} step ${index} (${type})`;
  const p = params(step, where);
  switch (type) {
    case 'download':
      return download(p, where);
    case 'launch':
      known(p, ['command', 'shell'], where);
      return [{ type: 'launch', command: launchCommand(p.command, p.shell, where), wait_for: false }];
    case 'execute':
    case 'command':
      return [execute(p, options, where)];
    case 'open':
      return [open(p, where)];
    case 'sleep':
      return [sleep(p, where)];
    case 'activate_window':
      return [windowCommand(p, 'a', where)];
    case 'close_window':
      return [windowCommand(p, 'c', where)];
  }
  return refuse(
    `${where} ${UNSUPPORTED[type] ?? 'is not supported'} (supported: ${SUPPORTED_CONFIG_STEPS.join(', ')})`,
  );
}

/** OSWorld's `config` as setup steps. */
export function configSteps(config: unknown, options: ImportOptions): SetupStep[] {
  if (config === undefined || config === null) return [];
  if (!Array.isArray(config)) refuse('`config` is not a list of steps');
  return config.flatMap((step, i) => configStep(step, i, options));
}
