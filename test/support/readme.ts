// Running the README's walkthrough as a new user pastes it: its `sh` blocks, in order, into one bash
// (so the variables one block sets reach the next). Used by test/readme-walkthrough.test.ts and
// scripts/readme-screenshots.ts. `port` replaces the README's `localhost:8080` with a server's own.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where the blocks run: `scratch/checkout`, a checkout as a user has it (the repository's
 * node_modules/ and cli/, linked) whose data/ is the server's data dir. Returns its path.
 */
export async function readmeCheckout(root: string, scratch: string, serverDataDir: string): Promise<string> {
  const work = join(scratch, 'checkout');
  await mkdir(work);
  await symlink(join(root, 'node_modules'), join(work, 'node_modules'));
  await symlink(join(root, 'cli'), join(work, 'cli'));
  await symlink(serverDataDir, join(work, 'data'));
  return work;
}

/** The fenced `sh` blocks of the README's walkthrough section, in order. */
export function walkthroughBlocks(readme: string, port?: string): string[] {
  const start = readme.indexOf('## Walkthrough');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const blocks = [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
  return port === undefined ? blocks : blocks.map((b) => b.replaceAll('localhost:8080', `localhost:${port}`));
}

/** One bash process fed block after block; each block's output and exit status come back. */
export class Shell {
  readonly #bash: ChildProcessWithoutNullStreams;
  #out = '';
  #err = '';
  #waiter: (() => void) | undefined;
  #n = 0;
  #exited: string | undefined;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.#bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env });
    this.#bash.stdout.on('data', (c: Buffer) => ((this.#out += c.toString()), this.#waiter?.()));
    this.#bash.stderr.on('data', (c: Buffer) => (this.#err += c.toString()));
    this.#bash.on('exit', (code, signal) => {
      this.#exited = `bash exited (${signal ?? code}): ${this.#err}`;
      this.#waiter?.();
    });
  }

  /** Runs `block` as pasted text; resolves with what it printed once its last command has returned. */
  async run(block: string): Promise<{ stdout: string; stderr: string; status: number }> {
    const marker = `__readme_step_${++this.#n}__`;
    this.#out = '';
    this.#err = '';
    this.#bash.stdin.write(`${block}\necho "${marker} $?"\n`);
    const done = new RegExp(`${marker} (\\d+)\\n`);
    for (;;) {
      const m = done.exec(this.#out);
      if (m) return { stdout: this.#out.slice(0, m.index), stderr: this.#err, status: Number(m[1]) };
      if (this.#exited !== undefined) throw new Error(this.#exited);
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  close(): void {
    this.#bash.stdin.end();
    this.#bash.kill();
  }
}
