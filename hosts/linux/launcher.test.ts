// The process launcher: the driver's programs forked by a small process of its own, with run()'s and
// the tracker's contracts unchanged (outputs, exit codes, deadlines, missing binaries, piped fds).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { LaunchedChild, launcherPid } from './launcher.ts';
import { processLives } from './proc.ts';
import { ProcessTracker, TrackedProcess, run, spawnThroughLauncher } from './runner.ts';
import { waitFor } from '../../test/support/wait.ts';

spawnThroughLauncher();
const tracker = new ProcessTracker();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-launcher-'));
afterAll(async () => {
  await tracker.killAll();
  rmSync(dir, { recursive: true, force: true });
});

const parentOf = (pid: number) =>
  Number(/^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

describe('the process launcher', () => {
  it('runs commands as run() always did: output, input, exit codes, deadlines, missing binaries', async () => {
    expect(await run('sh', ['-c', 'echo out; echo err >&2'])).toEqual({ stdout: 'out\n', stderr: 'err\n' });
    expect((await run('cat', [], { input: Buffer.from('piped') })).stdout).toBe('piped');
    await expect(run('sh', ['-c', 'echo why >&2; exit 3'])).rejects.toMatchObject({
      code: 'command_failed',
      message: 'sh: why',
    });
    await expect(run('no-such-binary-here', [])).rejects.toMatchObject({ code: 'missing_tool' });
    const t0 = Date.now();
    await expect(run('sleep', ['30'], { timeoutMs: 200 })).rejects.toMatchObject({ code: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(5000);
    const ac = new AbortController();
    const aborted = run('sleep', ['30'], { signal: ac.signal });
    ac.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    // A large output comes back whole.
    expect((await run('head', ['-c', '3000000', '/dev/zero'])).stdout.length).toBe(3_000_000);
  });

  it('starts long-running programs as its children: their pid, piped fds, log file and exit', async () => {
    const launcher = await launcherPid();
    expect(launcher).toBeGreaterThan(0);
    expect(launcher).not.toBe(process.pid);
    const logFile = join(dir, 'prog.log');
    const p = await tracker.start('sh', ['-c', 'echo 7 >&3; echo said >&2; exec sleep 30'], {
      extraFds: 1,
      logFile,
      label: 'prog',
    });
    expect(parentOf(p.pid)).toBe(launcher);
    const fd3 = p.child?.stdio[3] as Readable;
    const first = await new Promise<string>((resolve) =>
      fd3.once('data', (b: Buffer) => resolve(b.toString())),
    );
    expect(first).toBe('7\n');
    await waitFor(() => readFileSync(logFile, 'utf8') === 'said\n', 'the log line');
    expect(p.reason).toBe('said');
    p.kill();
    expect(await p.exited).toBe('SIGKILL');
    expect(processLives(p.pid)).toBe(false);

    const piped = await tracker.start('sh', ['-c', 'echo on stderr >&2; exit 4']);
    expect(await piped.exited).toBe(4);
    await waitFor(() => piped.reason === 'on stderr', 'stderr through the launcher');
    await expect(tracker.start('no-such-binary-here', [])).rejects.toMatchObject({ code: 'missing_tool' });
  });

  it('keeps an exit that came before anyone listened, and output written after it', async () => {
    // A program that exits at once: the launcher's "spawned" and "exit" replies can arrive in one
    // read, so its exit is over before the tracker's object for it exists. Made so here on purpose.
    const early = new LaunchedChild(false, 0);
    early.finish(3, null);
    expect(await new TrackedProcess('early', 1, early).exited).toBe(3);
    for (let i = 0; i < 20; i++) {
      const quick = await tracker.start('sh', ['-c', 'exit 5']);
      expect(await quick.exited).toBe(5);
    }
    // Its last words, and what a child it left behind writes after its exit, still come.
    const p = await tracker.start('sh', [
      '-c',
      '(sleep 0.3; echo from the child >&2) & echo last words >&2; exit 2',
    ]);
    expect(await p.exited).toBe(2);
    await waitFor(() => p.recentLines(2) === 'last words | from the child', 'output after the exit');
  });

  it('outlives nothing: a killed launcher fails no later call, and what it started is still watched', async () => {
    const first = await launcherPid();
    const p = await tracker.start('sleep', ['30']);
    process.kill(first!, 'SIGKILL');
    await waitFor(() => !processLives(first!), 'the launcher gone');
    // The program it started lives on (as a VM's programs outlive a crashed server), watched by pid.
    expect(processLives(p.pid)).toBe(true);
    expect((await run('echo', ['again'])).stdout).toBe('again\n');
    const second = await launcherPid();
    expect(second).not.toBe(first);
    process.kill(p.pid, 'SIGKILL');
    await p.exited;
  });

  it('a call sent while the launcher dies, before its exit is seen here, goes to the next launcher', async () => {
    // Whichever the parent sees first, the send's EPIPE or the launcher's exit, the call is answered
    // by a new launcher: calls at once after the kill, and after the pid is gone, ten times over.
    for (let round = 0; round < 10; round++) {
      const pid = await launcherPid();
      process.kill(pid!, 'SIGKILL');
      const atOnce = run('echo', ['at once']);
      await waitFor(() => !processLives(pid!), 'the launcher gone');
      const afterwards = await Promise.all([run('echo', ['after']), run('echo', ['and after'])]);
      expect((await atOnce).stdout).toBe('at once\n');
      expect(afterwards.map((r) => r.stdout)).toEqual(['after\n', 'and after\n']);
    }
  });
});
