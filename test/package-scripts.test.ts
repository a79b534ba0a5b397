// The npm scripts as a user runs them: every script that starts a file with Node names a file that
// exists (`npm run bench` once named a bench/run.ts that did not), and `npm run bench` runs the
// benchmarks it lists (one short real bench here, its table passed through).
import { access, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCHES } from '../bench/run.ts';
import { runProcess } from './support/process.ts';

const ROOT = join(import.meta.dirname, '..');
const { scripts } = (await import('../package.json', { with: { type: 'json' } })).default as {
  scripts: Record<string, string>;
};

describe('npm scripts', () => {
  it('name files that exist', async () => {
    const files = Object.values(scripts).flatMap((cmd) =>
      [...cmd.matchAll(/(?:^|&&\s*)node\s+(?:--\S+\s+)*(\S+\.ts)/g)].map((m) => m[1]!),
    );
    expect(files).toContain('bench/run.ts');
    for (const file of files) await expect(access(join(ROOT, file)), file).resolves.toBeUndefined();
  });

  it('bench: lists every bench entry point, refuses an unknown one and runs the ones named', async () => {
    // Entry points are the benches with a usage line (`node bench/x.ts`); the rest are their helpers.
    const entries: string[] = [];
    for (const f of await readdir(join(ROOT, 'bench'))) {
      if (!f.endsWith('.ts') || f === 'run.ts' || f === 'leader-child.ts') continue;
      if (/^\/\/ +node (--\S+ )*bench\//m.test(await readFile(join(ROOT, 'bench', f), 'utf8')))
        entries.push(f.slice(0, -3));
    }
    expect(Object.keys(BENCHES).sort()).toEqual(expect.arrayContaining(entries.sort()));

    const list = await runProcess('npm', ['run', '--silent', 'bench', '--', '--list'], { cwd: ROOT });
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(Object.keys(BENCHES));

    const unknown = await runProcess('npm', ['run', '--silent', 'bench', '--', 'nope'], { cwd: ROOT });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown bench: nope');

    const run = await runProcess('npm', ['run', '--silent', 'bench', '--', 'collector'], { cwd: ROOT });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('## bench/collector.ts');
    expect(run.stdout).toMatch(/^\|.*\|$/m);
  });
});
