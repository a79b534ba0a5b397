import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VmCgroup, detectCgroups } from './cgroups.ts';
import { processLives } from './proc.ts';
import { ProcessTracker, run } from './runner.ts';
import { waitFor } from '../../test/support/wait.ts';

const tracker = new ProcessTracker();
const dir = mkdtempSync(join(tmpdir(), 'sandbay-cg-'));
afterAll(async () => {
  await tracker.killAll();
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
function mountsFile(lines: string[]): string {
  const file = join(dir, `mounts-${++files}`);
  writeFileSync(file, lines.join('\n'));
  return file;
}

describe('VM cgroups', () => {
  it('detects cgroup v1 controllers, and says what is missing', () => {
    const v1 = ['cpu', 'memory', 'pids', 'freezer'].map(
      (c) => `cgroup /sys/fs/cgroup/${c} cgroup rw,${c} 0 0`,
    );
    const found = detectCgroups(mountsFile(v1));
    expect(found).toEqual({
      version: 1,
      mounts: {
        cpu: '/sys/fs/cgroup/cpu',
        memory: '/sys/fs/cgroup/memory',
        pids: '/sys/fs/cgroup/pids',
        freezer: '/sys/fs/cgroup/freezer',
      },
    });
    const partial = detectCgroups(mountsFile(v1.slice(0, 2)));
    expect(partial).toMatchObject({ missing: expect.stringContaining('pids, freezer') });
  });

  it('enforces limits, starts processes inside, and kills all of them at once', async () => {
    const layout = detectCgroups();
    if ('missing' in layout) throw new Error(layout.missing);
    const cg = new VmCgroup(layout, `sandbay/test-${process.pid}`);
    cg.create();
    try {
      cg.setCpuWeight(1);
      expect(cg.cpuWeight()).toBe(1);
      cg.setLimits({ cpu: 1.5, memoryGiB: 2, pidsMax: 64 });
      expect(cg.readLimits()).toEqual({ cpu: 1.5, memoryGiB: 2, pidsMax: 64 });
      expect(cg.cpuWeight()).toBe(100);
      const cmd = cg.wrap('sh', ['-c', 'sleep 30 & sleep 30 & wait']);
      const proc = await tracker.start(cmd.command, cmd.args);
      await waitFor(() => cg.pids().length === 3, 'three processes in the cgroup');
      const members = cg.pids();
      expect(members).toContain(proc.pid);
      const { stdout } = await run('cat', [`/proc/${proc.pid}/cgroup`]);
      expect(stdout).toContain(`:/sandbay/test-${process.pid}`);
      await cg.killAll();
      expect(cg.pids()).toEqual([]);
      await proc.exited;
      expect(members.filter(processLives)).toEqual([]);
    } finally {
      await cg.killAll();
      cg.remove();
    }
    expect(cg.exists()).toBe(false);
  });
});
