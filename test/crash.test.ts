// Crash safety: a process running the store and the operator on the sim driver is killed with
// SIGKILL at random moments during a storm of creates, deletes, snapshot captures and restores,
// then restarted. After the last restart: no VM is claimed twice, no VM leaked (host and store
// agree, every claim has its sandbox), the pools are back to their profile, every sandbox the
// client saw running (and did not delete) is still there and running, no snapshot is stuck
// capturing, every ready snapshot's artifact is whole (size and digest), and once everything is
// deleted no artifact is left. How the sim Macs outlive the crash: test/crash-child.ts.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CHILD = path.join(import.meta.dirname, 'crash-child.ts');
const NODE = process.execPath;
const KILLS = 6;

interface Report {
  ledger: { amountCents: number; reason: string; reservation?: string }[];
  balanceCents: number | null;
  snapshots: { name: string; phase: string; deleting: boolean; artifactIntact: boolean | null }[];
  snapshotBlobs: string[];
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

/**
 * A child that has not said READY this long after its start is stuck at start: ended by SIGTERM (not
 * the rounds' SIGKILL, so a round's expectation fails) and said so.
 */
const READY_WITHIN_MS = 60_000;

/** Runs the child; `onLine` sees each stdout line; resolves with its exit once it ends. */
function runChild(mode: 'storm' | 'check', onLine: (line: string, kill: () => void) => void) {
  const child = spawn(NODE, [CHILD, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const kill = () => child.kill('SIGKILL');
  const stuck = setTimeout(() => {
    stderr += `\n(the test: no READY within ${READY_WITHIN_MS} ms; terminated)`;
    child.kill('SIGTERM');
  }, READY_WITHIN_MS);
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'READY') clearTimeout(stuck);
    onLine(line, kill);
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(stuck);
      resolve({ code, signal, stderr });
    }),
  );
}

/** What the children's operator log says of stuck sandboxes, their VMs and those VMs' Macs. */
async function logAbout(stuck: Report['sandboxes'], report: Report): Promise<string> {
  if (stuck.length === 0) return '';
  const vms = report.vms.filter((vm) => stuck.some((s) => vm.claim === `acme/${s.name}` || vm.name === s.vm));
  const names = [...stuck.map((s) => s.name), ...vms.flatMap((vm) => [vm.name, vm.mini])];
  const log = await readFile(path.join(dir, 'operator.log'), 'utf8').catch(() => '');
  const lines = log
    .split('\n')
    .filter((l) => names.some((n) => l.includes(`"${n}"`) || l.includes(`/${n}"`)));
  return [
    `VMs: ${JSON.stringify(vms)}`,
    `hosts: ${JSON.stringify(vms.map((vm) => report.hosts[report.minis.find((m) => m.name === vm.mini)?.address ?? '']))}`,
    ...lines.slice(-40),
  ].join('\n');
}

/** The reservation bought once (a crash mid-activation never charges it again), the balance its sum. */
function checkCredit(report: Report) {
  const purchases = report.ledger.filter((e) => e.reason === 'purchase' && e.reservation === 'acme/r1');
  expect(purchases, 'the reservation charged exactly once').toHaveLength(1);
  const spent = report.ledger.filter((e) => e.reason !== 'grant').reduce((s, e) => s + e.amountCents, 0);
  expect(report.balanceCents, 'balance = the seeded credit plus the ledger').toBe(1_000_000_000 + spent);
}

function checkInvariants(report: Report) {
  checkCredit(report);
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
    'after SIGKILLs in a create/delete/snapshot/restore storm: nothing double-claimed or leaked, pools back, every acknowledged sandbox and snapshot present and whole',
    { timeout: 300_000 },
    async () => {
      const acked = new Set<string>();
      const deleted = new Set<string>();
      const restored = new Set<string>();
      const snapsReady = new Set<string>();
      const snapsDeleted = new Set<string>();
      let foundCapturing = 0;
      const track = (line: string) => {
        if (line.startsWith('FOUND '))
          foundCapturing += (JSON.parse(line.slice(6)) as { capturing: number }).capturing;
        const [tag, name] = line.split(' ');
        if (tag === 'ACK') acked.add(name!);
        if (tag === 'DELETING') deleted.add(name!);
        if (tag === 'RESTORED') restored.add(name!);
        if (tag === 'SNAPREADY') snapsReady.add(name!);
        if (tag === 'SNAPDELETING') snapsDeleted.add(name!);
      };
      // Rounds killed at a random moment of the storm: 0.2–1.5 s after the child is ready.
      for (let round = 0; round < KILLS; round++) {
        const after = 200 + Math.floor(Math.random() * 1300);
        let timer: NodeJS.Timeout | undefined;
        const exit = await runChild('storm', (line, kill) => {
          if (line === 'READY') timer = setTimeout(kill, after);
          track(line);
        });
        clearTimeout(timer);
        expect(exit.signal, `round ${round} died by our SIGKILL, not by itself: ${exit.stderr}`).toBe(
          'SIGKILL',
        );
      }
      // Rounds killed inside one kind of operation: 0–40 ms (the sim's host steps take 10–25 ms)
      // after the child starts its 1st–3rd create, delete or restore, or sees its 1st–3rd capture
      // under way.
      for (const op of [
        'create',
        'delete',
        'snapshot',
        'restore',
        'create',
        'delete',
        'snapshot',
        'restore',
      ]) {
        const nth = 1 + Math.floor(Math.random() * 3);
        let seen = 0;
        let timer: NodeJS.Timeout | undefined;
        let bound: NodeJS.Timeout | undefined;
        const exit = await runChild('storm', (line, kill) => {
          // A storm that never gets to the operation ends here, and the expectation below says so.
          if (line === 'READY') bound = setTimeout(kill, 30_000);
          track(line);
          // A snapshot round dies while the capture is under way (status `capturing`).
          const begun =
            op === 'delete'
              ? line.startsWith('DELETING ')
              : op === 'snapshot'
                ? line.startsWith('CAPTURING ')
                : line === `BEGIN ${op}`;
          // A capture lasts ~15–20 ms after `capturing` is written, so a random delay may miss
          // every one; until a restart has found one, a snapshot round kills at once.
          const delay = op === 'snapshot' && foundCapturing === 0 ? 0 : Math.floor(Math.random() * 40);
          if (begun && ++seen === nth) timer = setTimeout(kill, delay);
        });
        clearTimeout(timer);
        clearTimeout(bound);
        expect(exit.signal, `round in a ${op} died by our SIGKILL: ${exit.stderr}`).toBe('SIGKILL');
        expect(seen, `the child began a ${op} before it was killed`).toBeGreaterThanOrEqual(nth);
      }
      expect(acked.size).toBeGreaterThan(0);
      expect(snapsReady.size, 'the storm captured snapshots').toBeGreaterThan(0);
      expect(restored.size, 'the storm restored snapshots').toBeGreaterThan(0);
      expect(foundCapturing, 'a restart found a capture the kill interrupted').toBeGreaterThan(0);

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
      expect(
        JSON.stringify(unsettled),
        `every sandbox placed (running or failed)\n${await logAbout(unsettled, report!)}`,
      ).toBe('[]');
      const snaps = new Map(report!.snapshots.map((s) => [s.name, s]));
      const stuck = report!.snapshots.filter((s) => !['ready', 'failed'].includes(s.phase));
      expect(JSON.stringify(stuck), 'no snapshot stuck capturing').toBe('[]');
      for (const s of report!.snapshots.filter((x) => x.phase === 'ready')) {
        expect(s.artifactIntact, `snapshot ${s.name}: its artifact is whole`).toBe(true);
      }
      for (const name of snapsReady) {
        if (snapsDeleted.has(name)) continue;
        expect(snaps.get(name)?.phase, `acknowledged snapshot ${name}`).toBe('ready');
      }

      checkInvariants(final!);
      expect(final!.sandboxes).toHaveLength(0);
      expect(final!.snapshots).toHaveLength(0);
      expect(final!.snapshotBlobs, 'no artifact outlives its snapshot').toEqual([]);
      for (const m of final!.minis) {
        const vms = final!.vms.filter((vm) => vm.mini === m.name);
        expect(vms.length, `pool of ${m.name} back to its profile`).toBe(m.profile);
        expect(vms.every((vm) => vm.phase === 'warm' && !vm.claim && !vm.deleting)).toBe(true);
        expect(final!.hosts[m.address]!.every((v) => v.state === 'running')).toBe(true);
      }
    },
  );
});
