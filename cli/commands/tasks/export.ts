import { mkdir, readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Args, Command, Flags } from '@oclif/core';
import * as tar from 'tar';

/** `sandbay tasks export TASK --harbor DIR`: the task's Harbor task directory, unpacked into DIR. */
export default class TasksExport extends Command {
  static override summary = 'Write a recorded task as a Harbor task directory.';
  static override description =
    'Fetches GET /v1/me/tasks/TASK/harbor (a .tar.gz of task.toml, instruction.md, environment/, ' +
    'tests/test.sh and solution/) and unpacks it into DIR, which must be empty or not exist. The key: ' +
    'SANDBAY_API_KEY (an account key). The customer API: --url, else SANDBAY_URL.';
  static override examples = ['SANDBAY_API_KEY=… <%= config.bin %> tasks export note --harbor ./harbor/note'];

  static override args = {
    task: Args.string({ description: 'the task id', required: true }),
  };

  static override flags = {
    harbor: Flags.string({ description: 'the directory to write the Harbor task into', required: true }),
    url: Flags.string({ description: 'the customer API (default: SANDBAY_URL, else http://127.0.0.1:8080)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TasksExport);
    const apiKey = process.env.SANDBAY_API_KEY;
    if (!apiKey) this.error('set SANDBAY_API_KEY (an account key)');
    const base = (flags.url ?? process.env.SANDBAY_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    const dir = flags.harbor;
    const existing = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    if (existing.length > 0) this.error(`${dir} is not empty: a task directory is written into an empty one`);

    const res = await fetch(`${base}/v1/me/tasks/${encodeURIComponent(args.task)}/harbor`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if (!res.ok || !res.body) {
      const body = (await res.json().catch(() => ({}))) as { error?: string; message?: string };
      this.error(`${res.status} ${body.error ?? res.statusText}: ${body.message ?? ''}`.trim());
    }
    await mkdir(dir, { recursive: true });
    // node-tar keeps entries inside DIR (no absolute paths, no `..`) and keeps their modes.
    await pipeline(Readable.fromWeb(res.body), tar.x({ cwd: dir, strict: true }));
    const written = await readdir(dir, { recursive: true });
    process.stdout.write(`wrote ${dir}: ${written.sort().join(', ')}\n`);
  }

  protected override async catch(err: Error): Promise<void> {
    process.stderr.write(`error: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
