// The package as users install it: `npm pack` (which builds dist/ through prepack), the tarball
// installed into a temp prefix as `npm i -g` does, and its `sandbay` bin run from there on this
// Node 24, with shell completion generated and used by a real bash.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess, type ProcessRun } from './support/process.ts';

const ROOT = join(import.meta.dirname, '..');
const { version } = (await import('../package.json', { with: { type: 'json' } })).default;

let dir: string;
let bin: string;
/** This Node 24 first on PATH, as on a machine where it is the installed Node. */
let env: NodeJS.ProcessEnv;

function check(run: ProcessRun, what: string): ProcessRun {
  if (run.code !== 0) throw new Error(`${what} exited ${run.code}: ${run.stderr.slice(-2000)}`);
  return run;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbay-package-'));
  env = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    XDG_CACHE_HOME: join(dir, 'cache'),
    HOME: join(dir, 'home'),
    npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? '/root', '.npm'),
  };
  const pack = check(
    await runProcess('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env }),
    'npm pack',
  );
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as { filename: string }[];
  if (!packed) throw new Error(`npm pack reported no tarball: ${pack.stdout}`);
  const prefix = join(dir, 'prefix');
  check(
    await runProcess(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        join(dir, packed.filename),
      ],
      { cwd: dir, env },
    ),
    'npm install --global',
  );
  bin = join(prefix, 'bin', 'sandbay');
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('runs `sandbay version` from the install', async () => {
    const run = check(await runProcess(bin, ['version'], { env }), 'sandbay version');
    expect(run.stdout).toContain(`sandbay/${version} `);
    expect(run.stdout).toContain(`node-${process.version}`);
  });

  it('lists its commands in `sandbay --help`', async () => {
    const run = check(await runProcess(bin, ['--help'], { env }), 'sandbay --help');
    for (const command of [
      'server',
      'apply',
      'get',
      'describe',
      'delete',
      'accounts',
      'autocomplete',
      'version',
    ]) {
      expect(run.stdout).toMatch(new RegExp(`^\\s+${command}\\s`, 'm'));
    }
  });

  it('completes command names in bash', async () => {
    check(await runProcess(bin, ['autocomplete', '--refresh-cache'], { env }), 'sandbay autocomplete');
    const setup = check(
      await runProcess(bin, ['autocomplete', 'script', 'bash'], { env }),
      'autocomplete script',
    );
    const complete = (line: string[]): Promise<ProcessRun> =>
      runProcess(
        'bash',
        [
          '-c',
          `${setup.stdout.trim()}\nCOMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _sandbay_autocomplete; echo "\${COMPREPLY[@]}"`,
          'bash',
          ...line,
        ],
        { env },
      );
    expect(check(await complete(['sandbay', 'ge']), 'bash completion').stdout.trim()).toBe('get');
    expect(check(await complete(['sandbay', 'get', '--wa']), 'bash completion').stdout.trim()).toBe(
      '--watch',
    );
  });
});
