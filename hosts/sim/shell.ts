// The sim guest's shell: a small, deterministic interpreter over the VM's in-memory disk. It knows a
// handful of commands (echo, printf, cat, ls, pwd, cd, mkdir, touch, rm, test, hostname, whoami,
// uname, true, false, exit, sleep; read, tty and `stty size` for streams; `serve PORT [DIR]`, an
// HTTP server of the disk in the background) joined by `;`, `&&`, `||`, `&` (run without waiting,
// its output dropped), with `>` / `>>` / `>&2` redirection. Anything else answers 127 "command not found",
// as a shell would: the sim runs no real programs.
import { posix } from 'node:path';
import type { ExecResult } from '../driver.ts';
import { HOME, guestPath, type SimDisk } from './disk.ts';

type Token = { word: string } | { op: ';' | '&&' | '||' | '>' | '>>' | '>&2' | '|' | '&' };

export interface ShellContext {
  disk: SimDisk;
  hostname: string;
  /** Waits `ms` of the driver's clock; resolves false if the exec's timeout came first. */
  sleep(ms: number): Promise<boolean>;
  /** A streaming exec's output: each command's output goes here as it finishes, not into the result. */
  write?(stream: 'stdout' | 'stderr', text: string): void;
  /** A streaming exec's standard input (none: commands read an empty input). */
  stdin?: ShellInput;
  /** The terminal's size, under a pty. */
  tty?: () => { cols: number; rows: number };
  /** Starts an HTTP server of `dir` on `port` of the VM; an error line when it cannot. */
  serve?(port: number, dir: string): string | undefined;
}

export interface ShellInput {
  /** The next line without its newline; undefined at the end of the input. */
  line(): Promise<string | undefined>;
  /** Everything up to the end of the input. */
  all(): Promise<string>;
}

export class ShellSyntaxError extends Error {}

export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let word: string | undefined;
  const flush = () => {
    if (word !== undefined) tokens.push({ word });
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new ShellSyntaxError(`unterminated ${c}`);
      const body = line.slice(i + 1, end);
      word = (word ?? '') + (c === '"' ? body.replace(/\\(["\\$`])/g, '$1') : body);
      i = end;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      flush();
    } else if (c === ';' || c === '|' || c === '&' || c === '>') {
      flush();
      const two = line.slice(i, i + 2);
      if (line.slice(i, i + 3) === '>&2') {
        tokens.push({ op: '>&2' });
        i += 2;
      } else if (two === '&&' || two === '||' || two === '>>') {
        tokens.push({ op: two });
        i++;
      } else tokens.push({ op: c as ';' | '|' | '&' | '>' });
    } else word = (word ?? '') + c;
  }
  flush();
  return tokens;
}

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs a command line; `timedOut` is set when a `sleep` outlived the exec's timeout. */
export async function runShell(line: string, ctx: ShellContext): Promise<ExecResult> {
  let tokens: Token[];
  try {
    tokens = tokenize(line);
  } catch (e) {
    return {
      stdout: '',
      stderr: `sim: syntax error: ${(e as Error).message}\n`,
      return_code: 2,
      timed_out: false,
    };
  }
  const state = { cwd: HOME, stdout: '', stderr: '', code: 0 };
  let i = 0;
  let skip = false;
  while (i < tokens.length) {
    const words: string[] = [];
    let redirect: { append: boolean; path: string } | undefined;
    let toStderr = false;
    for (; i < tokens.length && 'word' in tokens[i]!; i++) words.push((tokens[i] as { word: string }).word);
    const op = tokens[i] as { op: string } | undefined;
    if (op?.op === '>&2') {
      toStderr = true;
      i++;
    } else if (op && (op.op === '>' || op.op === '>>')) {
      const target = tokens[i + 1];
      if (!target || !('word' in target)) return syntaxError('redirection without a file');
      redirect = { append: op.op === '>>', path: target.word };
      i += 2;
    }
    const sep = tokens[i] as { op: string } | undefined;
    if (sep?.op === '|') return syntaxError('pipes are not supported by the sim shell');
    i++;
    if (!skip && words.length > 0 && sep?.op === '&') {
      // In the background: not waited for, its output dropped, its status not the shell's.
      const { disk, hostname, sleep } = ctx;
      const quiet: ShellContext = { disk, hostname, sleep, ...(ctx.serve && { serve: ctx.serve }) };
      void runCommand(words, { cwd: state.cwd }, quiet).catch(() => undefined);
    } else if (!skip && words.length > 0) {
      const out = await runCommand(words, state, ctx);
      if (out === 'timeout')
        return { stdout: state.stdout, stderr: state.stderr, return_code: 124, timed_out: true };
      if (toStderr) Object.assign(out, { stdout: '', stderr: out.stderr + out.stdout });
      if (redirect) {
        const error = redirectTo(
          resolvePath(state.cwd, redirect.path),
          redirect.append,
          out.stdout,
          ctx.disk,
        );
        if (error) Object.assign(out, { stderr: out.stderr + error, code: 1 });
      } else if (ctx.write) ctx.write('stdout', out.stdout);
      else state.stdout += out.stdout;
      if (ctx.write) ctx.write('stderr', out.stderr);
      else state.stderr += out.stderr;
      state.code = out.code;
      if (words[0] === 'exit') break;
    }
    skip = (sep?.op === '&&' && state.code !== 0) || (sep?.op === '||' && state.code === 0);
  }
  return { stdout: state.stdout, stderr: state.stderr, return_code: state.code, timed_out: false };
}

function resolvePath(cwd: string, p: string): string {
  return p.startsWith('~') ? guestPath(p) : posix.resolve(cwd, p);
}

/** Writes a command's output to a file; returns the shell's error line if it cannot. */
function redirectTo(path: string, append: boolean, text: string, disk: SimDisk): string | undefined {
  try {
    const previous = append && disk.files.has(path) ? disk.read(path) : Buffer.alloc(0);
    disk.write(path, Buffer.concat([previous, Buffer.from(text)]));
    return undefined;
  } catch (e) {
    return `sim: ${path}: ${(e as Error).message}\n`;
  }
}

function syntaxError(message: string): ExecResult {
  return { stdout: '', stderr: `sim: ${message}\n`, return_code: 2, timed_out: false };
}

const ok = (stdout = ''): Out => ({ stdout, stderr: '', code: 0 });
const fail = (stderr: string, code = 1): Out => ({ stdout: '', stderr: `${stderr}\n`, code });

async function runCommand(
  words: string[],
  state: { cwd: string },
  ctx: ShellContext,
): Promise<Out | 'timeout'> {
  const [name, ...args] = words as [string, ...string[]];
  const resolve = (p: string) => resolvePath(state.cwd, p);
  const disk = ctx.disk;
  try {
    switch (name) {
      case 'echo':
        return args[0] === '-n' ? ok(args.slice(1).join(' ')) : ok(`${args.join(' ')}\n`);
      case 'printf':
        return ok(printf(args[0] ?? '', args.slice(1)));
      case 'cat':
        if (args.length === 0) return ok((await ctx.stdin?.all()) ?? '');
        return ok(args.map((a) => disk.read(resolve(a)).toString('utf8')).join(''));
      case 'read':
        return (await ctx.stdin?.line()) === undefined ? fail('', 1) : ok();
      case 'tty':
        return ctx.tty ? ok('/dev/pts/0\n') : fail('not a tty');
      case 'stty': {
        if (args[0] !== 'size') return fail(`stty: invalid argument '${args[0] ?? ''}'`);
        if (!ctx.tty) return fail("stty: 'standard input': Inappropriate ioctl for device");
        const { rows, cols } = ctx.tty();
        return ok(`${rows} ${cols}\n`);
      }
      case 'serve': {
        const port = Number(args[0]);
        if (!ctx.serve) return fail('serve: no network in this sim VM');
        if (!Number.isInteger(port) || port < 1 || port > 65535)
          return fail(`serve: bad port '${args[0] ?? ''}'`);
        const error = ctx.serve(port, resolve(args[1] ?? '.'));
        return error ? fail(`serve: ${error}`) : ok();
      }
      case 'ls':
        return ok(
          (args.length ? args : ['.'])
            .flatMap((a) => disk.list(resolve(a)))
            .map((n) => `${n}\n`)
            .join(''),
        );
      case 'pwd':
        return ok(`${state.cwd}\n`);
      case 'cd': {
        const dir = resolve(args[0] ?? HOME);
        if (!disk.isDir(dir)) return fail(`cd: ${args[0]}: No such file or directory`);
        state.cwd = dir;
        return ok();
      }
      case 'mkdir':
        for (const a of args.filter((a) => a !== '-p')) disk.mkdirp(resolve(a));
        return ok();
      case 'touch':
        for (const a of args) if (!disk.files.has(resolve(a))) disk.write(resolve(a), Buffer.alloc(0));
        return ok();
      case 'rm': {
        const force = args.some((a) => /^-\w*f/.test(a));
        for (const a of args.filter((a) => !a.startsWith('-'))) {
          if (!disk.remove(resolve(a)) && !force) return fail(`rm: ${a}: No such file or directory`);
        }
        return ok();
      }
      case 'test':
      case '[':
        return testCommand(
          args.filter((a) => a !== ']'),
          resolve,
          disk,
        );
      case 'hostname':
        return ok(`${ctx.hostname}\n`);
      case 'whoami':
        return ok('sandbay\n');
      case 'uname':
        return ok('sandbay-sim\n');
      case 'true':
        return ok();
      case 'false':
        return fail('', 1);
      case 'exit':
        return { stdout: '', stderr: '', code: Number.parseInt(args[0] ?? '0', 10) & 255 };
      case 'sleep': {
        const seconds = Number(args[0]);
        if (!Number.isFinite(seconds) || seconds < 0)
          return fail(`sleep: invalid time interval '${args[0]}'`);
        return (await ctx.sleep(seconds * 1000)) ? ok() : 'timeout';
      }
      default:
        return fail(`sim: command not found: ${name}`, 127);
    }
  } catch (e) {
    return fail(`${name}: ${(e as Error).message}`);
  }
}

function testCommand(args: string[], resolve: (p: string) => string, disk: SimDisk): Out {
  const [flag, path] = args;
  if (path === undefined) return { stdout: '', stderr: '', code: flag ? 0 : 1 };
  const p = resolve(path);
  const yes =
    flag === '-f' ? disk.files.has(p) : flag === '-d' ? disk.isDir(p) : disk.files.has(p) || disk.isDir(p);
  return { stdout: '', stderr: '', code: yes ? 0 : 1 };
}

function printf(format: string, args: string[]): string {
  let n = 0;
  return format
    .replace(/%s/g, () => args[n++] ?? '')
    .replace(/\\n/g, '\n')
    .replace(/\\t/g, '\t');
}
