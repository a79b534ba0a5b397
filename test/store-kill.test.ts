// The SQLite store across processes: an acknowledged write survives kill -9 of its process, and a
// conditional update raced by two processes on one file has exactly one winner.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnyResource } from '../crds/index.ts';
import { openSqliteStore } from '../store/sqlite-store.ts';
import { waitFor } from './support/wait.ts';

const WRITER = join(import.meta.dirname, 'fixtures', 'store-writer.ts');

const children: ChildProcessWithoutNullStreams[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbay-kill-'));
  dirs.push(dir);
  return join(dir, 'store.sqlite');
}

/** Starts the writer fixture with the test runner's Node (24); `lines` receives its stdout lines. */
function startWriter(args: string[], onLine: (line: string) => void): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: 'pipe' });
  children.push(child);
  createInterface({ input: child.stdout }).on('line', onLine);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', (code) => {
    if (code !== null && code !== 0) onLine(`exited ${code}: ${stderr}`);
  });
  return child;
}

function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Waits until `predicate` holds; fails when a writer exits on an error or after `ms`. */
async function until(
  lines: () => string[],
  predicate: () => boolean,
  what: string,
  ms = 30_000,
): Promise<void> {
  await waitFor(
    () => {
      const failure = lines().find((l) => l.startsWith('exited '));
      if (failure) throw new Error(`writer ${failure}`);
      return predicate();
    },
    what,
    ms,
  );
}

describe('sqlite store across processes', () => {
  it('keeps every acknowledged write after kill -9 of the writing process', async () => {
    const file = tempFile();
    const acknowledged: string[] = [];
    const writer = startWriter(['write', file], (line) => acknowledged.push(line));
    await until(
      () => acknowledged,
      () => acknowledged.length >= 300,
      '300 acknowledged writes',
    );
    writer.kill('SIGKILL');
    await exited(writer);
    expect(writer.signalCode).toBe('SIGKILL');

    const store = await openSqliteStore({ file });
    try {
      const names = new Set(
        (await store.list('Task', { namespace: 'acct' })).items.map((t) => t.metadata.name),
      );
      const lost = acknowledged.filter((name) => !names.has(name));
      expect(lost).toEqual([]);
      expect(names.size).toBeGreaterThanOrEqual(acknowledged.length);
      // The file is healthy: it takes writes and resourceVersions continue after the last one.
      const { resourceVersion } = await store.list('Task');
      const next: AnyResource = await store.create({
        apiVersion: 'sandbay.io/v1alpha1',
        kind: 'Task',
        metadata: { name: 'after-kill', namespace: 'acct' },
        spec: { instruction: 'still works' },
      });
      expect(Number(next.metadata.resourceVersion)).toBe(Number(resourceVersion) + 1);
    } finally {
      await store.close();
    }
  });

  it('lets exactly one of two processes win each conditional update of one VM', async () => {
    const file = tempFile();
    const store = await openSqliteStore({ file });
    const rounds = 20;
    const lines: Record<'a' | 'b', string[]> = { a: [], b: [] };
    const procs = {
      a: startWriter(['claim', file, 'acct/sb-a'], (l) => lines.a.push(l)),
      b: startWriter(['claim', file, 'acct/sb-b'], (l) => lines.b.push(l)),
    };
    const send = (line: string): void => {
      procs.a.stdin.write(`${line}\n`);
      procs.b.stdin.write(`${line}\n`);
    };
    const all = (): string[] => [...lines.a, ...lines.b];
    const outcomes = (vm: string): string[] =>
      all().filter((l) => l.startsWith(`won ${vm}`) || l.startsWith(`lost ${vm}`));
    try {
      for (let i = 0; i < rounds; i++) {
        const vm = `vm-${i}`;
        await store.create({
          apiVersion: 'sandbay.io/v1alpha1',
          kind: 'VM',
          metadata: { name: vm },
          spec: { mini: 'mini-1', slot: 0, cpu: 4, memoryGiB: 8, image: 'base', diskGiB: 64 },
        });
        send(`get ${vm}`);
        await until(all, () => all().filter((l) => l === `got ${vm}`).length === 2, `both read ${vm}`);
        send(`claim ${vm}`);
        await until(all, () => outcomes(vm).length === 2, `both claims of ${vm} answered`);
        expect(outcomes(vm).filter((l) => l.startsWith('won'))).toHaveLength(1);
        expect(outcomes(vm).filter((l) => l.startsWith('lost'))).toEqual([`lost ${vm} Conflict`]);
        const winner = lines.a.includes(`won ${vm}`) ? 'acct/sb-a' : 'acct/sb-b';
        const stored = await store.get({ kind: 'VM', name: vm });
        expect((stored?.spec as { sandbox?: string }).sandbox).toBe(winner);
      }
    } finally {
      procs.a.stdin.end();
      procs.b.stdin.end();
      await Promise.all([exited(procs.a), exited(procs.b)]);
      await store.close();
    }
  });
});
