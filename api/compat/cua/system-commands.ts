// Cua's shell, file and accessibility commands on sandbay's Guest: `run_command` is the exec route's
// call, file bytes go through the file routes' putFile/getFile, and the questions Cua asks of a path
// (exists, size, list, mkdir, rm) are short commands through the same exec, run as the VM user in
// the VM user's shell. Answers carry the fields Cua's handlers return (computer_server/handlers/
// generic.py, base.py): `stdout`/`stderr`/`return_code`, `content`, `content_b64`, `exists`,
// `files`, `size`.
import { randomBytes } from 'node:crypto';
import Type from 'typebox';
import type { Guest } from '../../../hosts/driver.ts';
import { Nullable } from '../../schemas/common.ts';
import { MAX_EXEC_TIMEOUT_S } from '../../schemas/sandboxes.ts';
import { CuaParamError, PROTOCOL_VERSION, command, type CuaCommand } from './protocol.ts';
import { quoted, readRange, shellPath, shellStep } from './vm-paths.ts';

/** Cua's run_command has no timeout unless asked; sandbay's exec route's default bounds it. */
const DEFAULT_RUN_TIMEOUT_S = 120;

const Path = Type.String({
  minLength: 1,
  maxLength: 4096,
  description: 'A path in the VM (relative: from home; `~` works).',
});
const PathOnly = Type.Object({ path: Path });

/** A command about one path: its answer from the exit status of a short shell step. */
function pathCommand(run: (guest: Guest, path: string) => Promise<Record<string, unknown>>): CuaCommand {
  return command(PathOnly, (guest, p) => run(guest, shellPath(p.path)));
}

/** Whether `test -<flag>` holds: exit 0 yes, 1 no, anything else the step's error. */
async function holds(guest: Guest, flag: 'f' | 'd', path: string): Promise<boolean> {
  const r = await shellStep(guest, `test -${flag} ${path}`, [0, 1]);
  return r.return_code === 0;
}

/**
 * Appends by uploading beside the file and `cat >>` in the VM: the SDK writes files over 5 MB as
 * 1 MB chunks, each after the first with `append: true`.
 */
async function append(guest: Guest, path: string, data: Buffer): Promise<void> {
  const target = shellPath(path);
  const temp = `${path}.sandbay-append-${randomBytes(6).toString('hex')}`;
  await guest.putFile(temp, data);
  const t = shellPath(temp);
  await shellStep(guest, `cat ${t} >> ${target}; s=$?; rm -f ${t}; exit $s`);
}

export const SYSTEM_COMMANDS: Record<string, CuaCommand> = {
  // Asked first by the SDK's wait_for_ready: answered once the sandbox's guest is found (it runs).
  version: command(Type.Object({}), async () => ({ protocol: PROTOCOL_VERSION, package: 'sandbay' })),

  run_command: command(
    Type.Object({
      command: Type.String({ minLength: 1, maxLength: 1_000_000, description: 'A shell command line.' }),
      timeout: Type.Optional(
        Nullable(
          Type.Number({
            exclusiveMinimum: 0,
            maximum: MAX_EXEC_TIMEOUT_S,
            description: 'Seconds (default 120).',
          }),
        ),
      ),
    }),
    async (guest, p) => {
      const timeoutS = p.timeout ?? DEFAULT_RUN_TIMEOUT_S;
      const r = await guest.exec(p.command, { timeoutMs: Math.ceil(timeoutS * 1000) });
      // Cua's answer to a command its timeout killed.
      if (r.timed_out)
        return {
          success: false,
          stdout: r.stdout,
          stderr: `Command timed out after ${timeoutS}s`,
          return_code: -1,
        };
      return { stdout: r.stdout, stderr: r.stderr, return_code: r.return_code };
    },
  ),
  launch: command(
    Type.Object({
      app: Type.String({
        minLength: 1,
        maxLength: 4096,
        description: 'A command line, or a program when args are given.',
      }),
      args: Type.Optional(
        Type.Union([Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 256 }), Type.Null()], {
          description: 'Arguments: `app` is then a program, run without a shell.',
        }),
      ),
    }),
    async (guest, p) => {
      // Cua runs `app` through a shell without args and as a program with them; either way it keeps
      // running after the answer, which carries its pid.
      const line = p.args ? [p.app, ...p.args].map(quoted).join(' ') : `sh -c ${quoted(p.app)}`;
      const r = await shellStep(guest, `nohup ${line} >/dev/null 2>&1 </dev/null & echo $!`);
      return { pid: Number(r.stdout.trim()) };
    },
  ),

  read_text: command(PathOnly, async (guest, p) => {
    const bytes = await readRange(guest, p.path, 0, null);
    try {
      return { content: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
    } catch {
      throw new CuaParamError(`${p.path} is not UTF-8 text: read it with read_bytes`);
    }
  }),
  write_text: command(
    Type.Object({ path: Path, content: Type.String({ description: 'The text, written as UTF-8.' }) }),
    async (guest, p) => {
      await guest.putFile(p.path, Buffer.from(p.content, 'utf8'));
      return {};
    },
  ),
  read_bytes: command(
    Type.Object({
      path: Path,
      offset: Type.Optional(Type.Integer({ minimum: 0, description: 'First byte (default 0).' })),
      length: Type.Optional(
        Nullable(Type.Integer({ minimum: 0, description: 'Bytes (default: to the end).' })),
      ),
    }),
    async (guest, p) => ({
      content_b64: (await readRange(guest, p.path, p.offset ?? 0, p.length ?? null)).toString('base64'),
    }),
  ),
  write_bytes: command(
    Type.Object({
      path: Path,
      content_b64: Type.String({ description: 'The bytes, base64.' }),
      append: Type.Optional(Type.Boolean({ description: 'true: append to the file (default false).' })),
    }),
    async (guest, p) => {
      const data = Buffer.from(p.content_b64, 'base64');
      if (p.append) await append(guest, p.path, data);
      else await guest.putFile(p.path, data);
      return {};
    },
  ),
  get_file_size: pathCommand(async (guest, path) => {
    const r = await shellStep(guest, `wc -c < ${path}`);
    return { size: Number(r.stdout.trim()) };
  }),
  file_exists: pathCommand(async (guest, path) => ({ exists: await holds(guest, 'f', path) })),
  directory_exists: pathCommand(async (guest, path) => ({ exists: await holds(guest, 'd', path) })),
  list_dir: pathCommand(async (guest, path) => {
    const r = await shellStep(guest, `find -H ${path} -mindepth 1 -maxdepth 1 -print0`);
    const files = r.stdout
      .split('\0')
      .filter((entry) => entry !== '')
      .map((entry) => entry.slice(entry.lastIndexOf('/') + 1));
    return { files };
  }),
  create_dir: pathCommand(async (guest, path) => {
    await shellStep(guest, `mkdir -p ${path}`);
    return {};
  }),
  delete_file: pathCommand(async (guest, path) => {
    await shellStep(guest, `rm ${path}`);
    return {};
  }),
  delete_dir: pathCommand(async (guest, path) => {
    await shellStep(guest, `rmdir ${path}`);
    return {};
  }),

  get_accessibility_tree: command(Type.Object({}), async (guest) => ({ windows: await guest.windows() })),
};
