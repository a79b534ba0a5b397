// Crash safety: a process running the store and the operator on the sim driver is killed with
// SIGKILL at random moments during a storm of creates and deletes, then restarted. After the last
// restart: no VM is claimed twice, no VM leaked (host and store agree, every claim has its
// sandbox), the pools are back to their profile, and every sandbox the client saw running (and did
// not delete) is still there and running. How the sim Macs outlive the crash: test/crash-child.ts.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHILD = path.join(import.meta.dirname, 'crash-child.ts');
const NODE = process.execPath;
const KILLS = 6;

interface Report {
  vms: { name: string; mini: string; claim: string | null; phase: string | null; deleting: boolean }[];
  sandboxes: { name: string; phase: string; reason: string | null; vm: string | null; deleting: boolean }[];
  minis: { name: string; address: string; profile: number }[];
  hosts: Record<string, { name: string; state: string; cpu: number; memoryGiB: number }[]>;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'sandbay-crash-'));
});
afterAll(async () => {
  if (process.env.CRASH_KEEP) return;
  await rm(dir, { recursive: true, force: true });
});

/** Runs the child; `onLine` sees each stdout line; resolves with its exit once it ends. */
function runChild(mode: 'storm' | 'check', onLine: (line: string, kill: () => void) => void) {
  const child = spawn(NODE, [CHILD, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const kill = () => child.kill('SIGKILL');
  createInterface({ input: child.stdout }).on('line', (line) => onLine(line, kill));
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
}

function checkInvariants(report: Report) {
  const claims = report.vms.flatMap((vm) => (vm.claim ? [vm.claim] : []));
  expect(new Set(claims).size, 'no VM claimed twice, no sandbox holding two VMs').toBe(claims.length);
  const sandboxes = new Set(report.sandboxes.map((s) => `acme/${s.name}`));
  for (const claim of claims) expect(sandboxes.has(claim), `claim ${claim} has its sandbox`).toBe(true);
  for (const m of report.minis) {
    const onHost = (report.hosts[m.address] ?? []).map((v) => v.name).sort();
    const inStore = report.vms
      .filter((vm) => vm.mini === m.name)
      .map((vm) => vm.name)
      .sort();
    expect(onHost, `host ${m.name} and store agree`).toEqual(inStore);
    const running = (report.hosts[m.address] ?? []).filter((v) => v.state === 'running');
    expect(running.reduce((s, v) => s + v.cpu, 0)).toBeLessThanOrEqual(10);
    expect(running.reduce((s, v) => s + v.memoryGiB, 0)).toBeLessThanOrEqual(16);
  }
}

describe('crash', () => {
  it(
    'after SIGKILLs in a create/delete storm: nothing double-claimed or leaked, pools back, every acknowledged sandbox present',
    { timeout: 240_000 },
    async () => {
      const acked = new Set<string>();
      const deleted = new Set<string>();
      for (let round = 0; round < KILLS; round++) {
        // A random moment: after 0.2–1.5 s of storm, measured from the child being ready.
        const after = 200 + Math.floor(Math.random() * 1300);
        let timer: NodeJS.Timeout | undefined;
        const exit = await runChild('storm', (line, kill) => {
          if (line === 'READY') timer = setTimeout(kill, after);
          const [tag, name] = line.split(' ');
          if (tag === 'ACK') acked.add(name!);
          if (tag === 'DELETING') deleted.add(name!);
        });
        clearTimeout(timer);
        expect(exit.signal, `round ${round} died by our SIGKILL, not by itself: ${exit.stderr}`).toBe(
          'SIGKILL',
        );
      }
      expect(acked.size).toBeGreaterThan(0);

      let report: Report | undefined;
      let final: Report | undefined;
      const exit = await runChild('check', (line) => {
        if (line.startsWith('REPORT ')) report = JSON.parse(line.slice(7)) as Report;
        if (line.startsWith('FINAL ')) final = JSON.parse(line.slice(6)) as Report;
      });
      expect(exit.code, exit.stderr).toBe(0);

      checkInvariants(report!);
      const present = new Map(report!.sandboxes.map((s) => [s.name, s]));
      for (const name of acked) {
        if (deleted.has(name)) continue;
        expect(
          present.get(name)?.phase,
          `acknowledged sandbox ${name}: ${JSON.stringify(present.get(name))}`,
        ).toBe('running');
      }
      const unsettled = report!.sandboxes.filter((s) => s.phase === 'pending' || s.phase === 'booting');
      expect(JSON.stringify(unsettled), 'every sandbox placed (running or failed)').toBe('[]');

      checkInvariants(final!);
      expect(final!.sandboxes).toHaveLength(0);
      for (const m of final!.minis) {
        const vms = final!.vms.filter((vm) => vm.mini === m.name);
        expect(vms.length, `pool of ${m.name} back to its profile`).toBe(m.profile);
        expect(vms.every((vm) => vm.phase === 'warm' && !vm.claim && !vm.deleting)).toBe(true);
        expect(final!.hosts[m.address]!.every((v) => v.state === 'running')).toBe(true);
      }
    },
  );
});
