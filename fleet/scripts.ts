// The preparation scripts (fleet/scripts/*.sh) and the one command line that runs each on a Mac over
// SSH: the script travels as a quoted here-document to /bin/sh, its inputs as quoted assignments, so
// no configured string reaches the remote shell unquoted and nothing has to be copied to the Mac first.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const SCRIPTS = [
  'install-tart',
  'install-softnet',
  'check-session',
  'install-key',
  'check-licence',
  'pull-images',
] as const;
export type ScriptName = (typeof SCRIPTS)[number];

/** Where Homebrew puts tart on Apple silicon and Intel Macs; an SSH session's PATH has neither. */
export const MAC_PATH_PREFIX = '/opt/homebrew/bin:/usr/local/bin';

export function scriptText(name: ScriptName): string {
  return readFileSync(new URL(`./scripts/${name}.sh`, import.meta.url), 'utf8');
}

export function scriptDigest(name: ScriptName): string {
  return createHash('sha256').update(scriptText(name)).digest('hex').slice(0, 16);
}

/** `'…'` with every `'` closed, escaped and reopened: one word for any POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const VAR_NAME = /^[A-Z_][A-Z0-9_]*$/;
const DELIMITER = 'SANDBAY_FLEET_SCRIPT';

/** The command line that runs script `name` with `vars` (PATH gets `pathPrefix` in front). */
export function scriptCommand(
  name: ScriptName,
  vars: Record<string, string>,
  pathPrefix: string = MAC_PATH_PREFIX,
): string {
  const text = scriptText(name);
  if (text.split('\n').includes(DELIMITER)) throw new Error(`${name}.sh contains its own delimiter`);
  const assignments = Object.entries(vars).map(([k, v]) => {
    if (!VAR_NAME.test(k)) throw new Error(`not a variable name: ${k}`);
    return `${k}=${shellQuote(v)}`;
  });
  return [
    `PATH=${shellQuote(pathPrefix)}:"$PATH" ${assignments.join(' ')} /bin/sh -s <<'${DELIMITER}'`,
    text.endsWith('\n') ? text.slice(0, -1) : text,
    DELIMITER,
  ].join('\n');
}
