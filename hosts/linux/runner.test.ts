import { describe, expect, it } from 'vitest';
import { DriverError } from '../driver.ts';
import { processLives } from './proc.ts';
import { ProcessTracker, run } from './runner.ts';

describe('runner', () => {
  it('returns the output of a command that succeeds', async () => {
    expect(await run('sh', ['-c', 'echo out; echo err >&2'])).toEqual({ stdout: 'out\n', stderr: 'err\n' });
  });

  it('turns a missing binary into missing_tool naming the command', async () => {
    await expect(run('no-such-binary-sandbay', [])).rejects.toMatchObject({
      code: 'missing_tool',
      command: 'no-such-binary-sandbay',
    });
  });

  it('turns a non-zero exit into command_failed with the first stderr line', async () => {
    const e = await run('sh', ['-c', 'echo; echo "  first line " >&2; echo second >&2; exit 3']).catch(
      (x) => x,
    );
    expect(e).toBeInstanceOf(DriverError);
    expect(e).toMatchObject({ code: 'command_failed', command: 'sh', message: 'sh: first line' });
  });

  it('passes arguments verbatim, never through a shell', async () => {
    const tricky = '$(touch /tmp/sandbay-pwned); `id` && echo "x"';
    expect((await run('printf', ['%s', tricky])).stdout).toBe(tricky);
  });

  it('survives a command that exits without reading its input', async () => {
    const unheard: unknown[] = [];
    const record = (e: unknown) => unheard.push(e);
    process.on('uncaughtException', record);
    try {
      // More than a pipe holds, so the write is still going when `true` exits.
      expect(await run('true', [], { input: Buffer.alloc(8 * 1024 * 1024) })).toEqual({
        stdout: '',
        stderr: '',
      });
      await expect(run('false', [], { input: Buffer.alloc(8 * 1024 * 1024) })).rejects.toMatchObject({
        code: 'command_failed',
      });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('uncaughtException', record);
    }
    expect(unheard).toEqual([]);
  });

  it('kills a command that overruns its deadline', async () => {
    await expect(run('sleep', ['5'], { timeoutMs: 50 })).rejects.toMatchObject({
      code: 'timeout',
      command: 'sleep',
    });
  });

  it('rejects a cancelled call with the abort reason, not a DriverError', async () => {
    const ac = new AbortController();
    const p = run('sleep', ['5'], { signal: ac.signal });
    ac.abort(new Error('cancelled'));
    const e = await p.catch((x) => x);
    expect(e).not.toBeInstanceOf(DriverError);
    expect(e.message).toBe('cancelled');
  });

  it('tracks long-running processes by PID and kills them all', async () => {
    const tracker = new ProcessTracker();
    const procs = await Promise.all([tracker.start('sleep', ['30']), tracker.start('sleep', ['30'])]);
    expect(procs.every((p) => processLives(p.pid))).toBe(true);
    expect(tracker.size).toBe(2);
    await tracker.killAll();
    expect(procs.some((p) => processLives(p.pid))).toBe(false);
    expect(tracker.size).toBe(0);
    await expect(tracker.start('no-such-binary-sandbay', [])).rejects.toMatchObject({ code: 'missing_tool' });
  });
});
