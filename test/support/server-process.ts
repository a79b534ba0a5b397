// `sandbay server` as its own process (plain Node 24, as `npm start` runs it) on the linux driver,
// on ports the system picks, for tests that use it as a user would; and its stop, which also throws
// away the VMs it leaves (a stopped server keeps their disks for its next start).
import { spawn, type ChildProcess } from 'node:child_process';
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
  const driver = createLinuxDriver({ dataDir: join(s.dataDir, 'linux'), discardOnClose: true });
  const host = driver.host({ name: 'local', address: '127.0.0.1', model: 'm4' });
  for (const vm of await host.listVms()) await host.deleteVm(vm.name);
  await driver.close();
}
