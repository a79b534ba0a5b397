// exec through the VM's exec agent (exec-agent.ts/.py) on a real desktop: the same guarantees as the
// plain SSH exec (ssh-client-exec.ts), checked by their effect, and the agent's own: a command whose
// shell is the agent's child, a fresh shell per call, the plain way while the agent is gone (the
// tenant may kill it), and the agent back afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LinuxGuest } from './guest.ts';
import { createLinuxDriver, type LinuxDriver } from './index.ts';
import { waitFor } from '../../test/support/wait.ts';

let dataDir: string;
let driver: LinuxDriver;
let guest: LinuxGuest;

/** The program that started a command's shell: `python3` under the agent, `sshd` the plain way. */
const parentOfShell = async () => (await guest.exec('ps -o comm= -p $PPID')).stdout.trim();

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sandbay-exec-agent-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 });
  const host = driver.host({ name: 'agent', address: '127.0.0.1', model: 'm4' });
  await host.createVm({ name: 'a', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  await host.startVm('a');
  guest = host.guest('a') as LinuxGuest;
});

afterAll(async () => {
  await driver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

it('runs a call the plain way while the agent starts, then every call through the agent', async () => {
  expect(await parentOfShell()).toBe('sshd');
  await waitFor(async () => (await parentOfShell()) === 'python3', 'calls through the agent');
});

it('keeps stdout and stderr apart, with the exit code, and a signal as 128 + its number', async () => {
  await waitFor(async () => (await parentOfShell()) === 'python3', 'the agent');
  expect(await guest.exec('echo out; echo err >&2; exit 3')).toEqual({
    stdout: 'out\n',
    stderr: 'err\n',
    return_code: 3,
    timed_out: false,
  });
  expect((await guest.exec('kill -9 $$')).return_code).toBe(137);
});

it('gives each call a fresh shell: no state, no stdin, none of the agent’s own variables', async () => {
  await guest.exec('cd /tmp; export LEFT=1; x=2');
  const r = await guest.exec('pwd; echo "[$LEFT$x]"; cat; set | grep -c __sandbay || true');
  expect(r.stdout).toBe(`${(await guest.exec('echo $HOME')).stdout}[]\n0\n`);
});

it('returns output larger than a pipe holds, whole and in order', async () => {
  const r = await guest.exec('seq 1 200000');
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(200000);
  expect(lines.at(-1)).toBe('200000');
});

it('returns big output whole while other calls come and go', async () => {
  let done = false;
  const big = guest.exec('seq 1 2000000').finally(() => (done = true));
  // Short calls back to back, two at a time, for as long as the big one writes.
  const others = [0, 1].map(async () => {
    while (!done) await guest.exec('true');
  });
  const [r] = await Promise.all([big, ...others]);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(2_000_000);
  expect(lines.at(-1)).toBe('2000000');
});

it('returns when the shell exits; what it put in the background keeps running and writing', async () => {
  const t0 = performance.now();
  const r = await guest.exec('echo now; (sleep 0.5; echo later) & (sleep 600 &) ; exit 0');
  expect(r.stdout).toBe('now\n');
  expect(performance.now() - t0).toBeLessThan(10_000);
  expect((await guest.exec('pgrep -c -f "sleep 600"')).stdout.trim()).toBe('1');
  await guest.exec('pkill -f "sleep 600"; true');
});

it('kills the command and everything it started at the timeout', async () => {
  const r = await guest.exec('sleep 300 & echo started; sleep 300', { timeoutMs: 500 });
  expect(r).toMatchObject({ stdout: 'started\n', return_code: 124, timed_out: true });
  expect((await guest.exec('pgrep -c -f "sleep 300" || true')).stdout.trim()).toBe('0');
});

it('fails a call whose agent the tenant kills, never runs it twice, and comes back', async () => {
  await waitFor(async () => (await parentOfShell()) === 'python3', 'the agent');
  // The command kills its own agent (its shell's parent): the call cannot know its result.
  await expect(guest.exec('touch ~/ran-once; kill -9 $PPID; sleep 1')).rejects.toMatchObject({
    code: 'unreachable',
  });
  expect((await guest.exec('ls ~/ran-once && rm ~/ran-once')).stdout).toContain('ran-once');
  await waitFor(async () => (await parentOfShell()) === 'python3', 'the agent again');
});

it('drops an agent the tenant writes into, and serves calls the plain way', async () => {
  await waitFor(async () => (await parentOfShell()) === 'python3', 'the agent');
  // The agent is the tenant's process: anything of its user may write into its channel.
  await guest
    .exec('for i in $(seq 300); do echo "not the agent $i" > /proc/$PPID/fd/1; done')
    .catch(() => undefined);
  expect(await parentOfShell()).toBe('sshd');
  expect((await guest.exec('echo still')).stdout).toBe('still\n');
});
