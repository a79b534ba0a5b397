// `sandbay server` as its own process (plain Node 24, as `npm start` runs it) on the linux driver,
// on ports the system picks, for tests that use it as a user would; and its stop, which also throws
// away the VMs it leaves (a stopped server keeps their disks for its next start).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLinuxDriver } from '../../hosts/linux/index.ts';

const BIN = join(import.meta.dirname, '..', '..', 'cli', 'bin.ts');

export interface ServerProcess {
  child: ChildProcess;
  dataDir: string;
  url: string;
  adminUrl: string;
}

/** Starts the server; resolves once it logs that it is serving (its stdout is a pipe: JSON lines). */
export function startServerProcess(
  dataDir: string,
  timeoutMs = 60_000,
  hostDriver: 'linux' | 'sim' = 'linux',
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [BIN, 'server', '--data-dir', dataDir, '--port', '0', '--admin-port', '0', '--host-driver', hostDriver],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${out}\n${err}`));
    }, timeoutMs);
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      for (const line of out.split('\n')) {
        if (!line.includes('sandbay is serving')) continue;
        const log = JSON.parse(line) as { url: string; adminUrl: string };
        clearTimeout(timer);
        resolve({ child, dataDir, url: log.url, adminUrl: log.adminUrl });
        return;
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}\n${err}`));
    });
  });
}

/** Stops the server (SIGTERM: it powers its VMs off), then deletes the VMs it kept. */
export async function stopServerProcess(s: ServerProcess): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    const exited = new Promise((resolve) => s.child.once('exit', resolve));
    s.child.kill('SIGTERM');
    await exited;
  }
  // Every linux Mac it ran (its own `local` and any applied through the admin API).
  const hostsDir = join(s.dataDir, 'linux', 'hosts');
  const names = existsSync(hostsDir) ? readdirSync(hostsDir) : [];
  const driver = createLinuxDriver({ dataDir: join(s.dataDir, 'linux'), discardOnClose: true });
  for (const name of names) {
    const host = driver.host({ name, address: '127.0.0.1', model: 'm4' });
    for (const vm of await host.listVms()) await host.deleteVm(vm.name);
  }
  await driver.close();
}

/** The admin key the server wrote at its first start. */
export async function adminKeyOf(s: ServerProcess): Promise<string> {
  return (await readFile(join(s.dataDir, 'admin.key'), 'utf8')).trim();
}

/** Registers a Mac through the admin listener's Kubernetes API, as an operator's `kubectl apply` does. */
export async function applyMini(
  s: ServerProcess,
  name: string,
  spec: { address: string; model: string; driver: string },
): Promise<void> {
  const res = await fetch(`${s.adminUrl}/apis/sandbay.io/v1alpha1/minis`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminKeyOf(s)}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'sandbay.io/v1alpha1',
      kind: 'Mini',
      metadata: { name },
      spec: { ...spec, schedulable: true },
    }),
  });
  if (res.status !== 201) throw new Error(`mini ${name}: ${res.status} ${await res.text()}`);
}

/** Creates an account with `sandbay accounts create` (the CLI, as an operator does); its API key. */
export async function createAccountKey(s: ServerProcess, name: string, creditCents: number): Promise<string> {
  const out = execFileSync(
    process.execPath,
    [BIN, 'accounts', 'create', name, '--credit-cents', String(creditCents)],
    {
      env: { ...process.env, SANDBAY_URL: s.adminUrl, SANDBAY_ADMIN_KEY: await adminKeyOf(s) },
      encoding: 'utf8',
    },
  );
  const key = /api key:\s+(\S+)/.exec(out)?.[1];
  if (!key) throw new Error(`accounts create printed no key:\n${out}`);
  return key;
}
