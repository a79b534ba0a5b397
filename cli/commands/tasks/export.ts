import { mkdir, readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Args, Flags } from '@oclif/core';
import * as tar from 'tar';
import { CustomerApi, CustomerCommand, urlFlag } from '../shared/customer-api.ts';

/** `sandbay tasks export TASK --harbor DIR`: the task's Harbor task directory, unpacked into DIR. */
export default class TasksExport extends CustomerCommand {
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
    url: urlFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TasksExport);
    const api = new CustomerApi(this, flags.url);
    const dir = flags.harbor;
    const existing = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    if (existing.length > 0) this.error(`${dir} is not empty: a task directory is written into an empty one`);

    const res = await api.call('GET', `/v1/me/tasks/${encodeURIComponent(args.task)}/harbor`);
    if (!res.body) this.error('the server answered no archive');
    await mkdir(dir, { recursive: true });
    // node-tar keeps entries inside DIR (no absolute paths, no `..`) and keeps their modes.
    await pipeline(Readable.fromWeb(res.body), tar.x({ cwd: dir, strict: true }));
    const written = await readdir(dir, { recursive: true });
    process.stdout.write(`wrote ${dir}: ${written.sort().join(', ')}\n`);
  }
}
