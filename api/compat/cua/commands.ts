// The Cua commands sandbay serves, and one message's way through them: the command looked up (its
// aliases as Cua resolves them), its params checked, then run on the sandbox's guest. A command
// sandbay does not serve is an unknown command, as Cua's own server treats the commands its VNC
// backend cannot do: refused with Cua's sentence (`Unknown command: X. Did you mean: …?`) before
// anything is looked up or done.
import type { FastifyBaseLogger } from 'fastify';
import type { Guest } from '../../../hosts/driver.ts';
import { ApiError, toApiError } from '../../errors.ts';
import { INPUT_COMMANDS } from './input-commands.ts';
import { CuaParamError, type CuaAnswer, type CuaCommand } from './protocol.ts';
import { SYSTEM_COMMANDS } from './system-commands.ts';

export const COMMANDS: Readonly<Record<string, CuaCommand>> = { ...INPUT_COMMANDS, ...SYSTEM_COMMANDS };

/** Cua's COMMAND_ALIASES (computer_server/main.py), each naming a command served here. */
export const ALIASES: Readonly<Record<string, string>> = {
  type: 'type_text',
  key: 'press_key',
  tap: 'left_click',
  click: 'left_click',
  shell: 'run_command',
  exec: 'run_command',
  read_file: 'read_text',
  write_file: 'write_text',
  ls: 'list_dir',
  mkdir: 'create_dir',
  rm: 'delete_file',
  rmdir: 'delete_dir',
};

/** Cua's `_suggest_similar_commands`: names sharing the first two letters, or containing the name. */
function suggestions(name: string): string[] {
  const lower = name.toLowerCase();
  return [...Object.keys(COMMANDS), ...Object.keys(ALIASES)]
    .filter((c) => c.toLowerCase().startsWith(lower.slice(0, 2)) || c.toLowerCase().includes(lower))
    .slice(0, 5);
}

/** Cua's refusal of a command its server does not have, naming it. */
export function unknownCommandSentence(name: string): string {
  const similar = suggestions(name);
  return `Unknown command: ${name}${similar.length > 0 ? `. Did you mean: ${similar.join(', ')}?` : ''}`;
}

/**
 * The command a message names (through Cua's aliases), or the sentence refusing it. A message
 * without a command string gets the sentence of Cua's HTTP endpoint, `Command is required`.
 */
export function lookup(name: unknown): { name: string; command: CuaCommand } | { refusal: string } {
  if (typeof name !== 'string' || name === '') return { refusal: 'Command is required' };
  const canonical = Object.hasOwn(ALIASES, name) ? ALIASES[name]! : name;
  const command = Object.hasOwn(COMMANDS, canonical) ? COMMANDS[canonical] : undefined;
  return command ? { name: canonical, command } : { refusal: unknownCommandSentence(name) };
}

/** What a failed command answers: Cua's `{success: false, error}`, with sandbay's code beside it. */
export function failure(err: unknown, log?: FastifyBaseLogger): CuaAnswer {
  if (err instanceof CuaParamError) return { success: false, error: err.message, code: 'invalid_request' };
  const apiErr = toApiError(err);
  if (apiErr.code === 'internal_error') log?.error({ err }, 'cua command failed');
  return { success: false, error: apiErr.message, code: apiErr.code };
}

/** Cua's answer refusing a message's params, if they are wrong: nothing is looked up or done. */
export function refusedParams(command: CuaCommand, params: unknown): CuaAnswer | undefined {
  const problem =
    params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params))
      ? command.check(params ?? {})
      : 'params must be an object';
  return problem === undefined ? undefined : { success: false, error: problem, code: 'invalid_request' };
}

/** Runs a command whose params passed `refusedParams`; never throws: a failure is the answer. */
export async function perform(
  command: CuaCommand,
  params: unknown,
  guest: Guest,
  log?: FastifyBaseLogger,
): Promise<CuaAnswer> {
  try {
    // A handler's own `success: false` wins, as in Cua's `{"success": True, **result}`.
    return { success: true, ...(await command.run(guest, params ?? {})) };
  } catch (err) {
    return failure(err, log);
  }
}

/** The 400 of Cua's HTTP endpoint for a command it does not have: `{detail}`, with sandbay's code. */
export class CuaUnknownCommand extends ApiError {
  constructor(sentence: string) {
    super('cua_unknown_command', sentence);
  }

  override toJSON() {
    return { detail: this.message, error: 'cua_unknown_command' as const, message: this.message };
  }
}
