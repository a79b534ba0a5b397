// Chromium for tests, in a network namespace of its own. Chromium watches the machine's interfaces
// and addresses over netlink and, when they change, fails every request in flight with
// ERR_NETWORK_CHANGED; the linux driver adds and removes a veth link with an address for every VM it
// boots and deletes, so a page loading while another suite's VM came or went lost its scripts (seen
// in full runs: noVNC's modules failed, the live view stayed "connecting"). In its own namespace
// Chromium sees only a loopback that never changes. It still reaches the servers under test at the
// same URLs: for each port, a bridge listens on 127.0.0.1:PORT inside the namespace and pipes to a
// Unix socket whose end in the machine's namespace connects to 127.0.0.1:PORT. Nothing else is
// reachable from the namespace.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser } from 'playwright-core';
import { browserNamespaceName } from './browser-namespace.ts';
import { joinSockets } from './pipe.ts';

/** The flags every test browser runs with: no GPU, no network call of its own. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface IsolatedBrowser {
  browser: Browser;
  /** Closes the browser, the bridges and the namespace. */
  close(): Promise<void>;
}

/** Launches Chromium in a fresh network namespace that reaches 127.0.0.1:`ports` of this machine. */
export async function launchIsolatedChromium(ports: number[]): Promise<IsolatedBrowser> {
  const ns = browserNamespaceName();
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-browser-'));
  const servers: Server[] = [];
  let bridge: ChildProcess | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close().catch(() => undefined);
    bridge?.kill('SIGKILL');
    for (const s of servers) s.close();
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // never made
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    execFileSync('ip', ['netns', 'add', ns]);
    execFileSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    const args: string[] = [];
    for (const port of ports) {
      const socket = join(dir, `${port}.sock`);
      const server = createServer((inbound) => joinSockets(inbound, createConnection(port, '127.0.0.1')));
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
      servers.push(server);
      args.push(`${port}=${socket}`);
    }
    bridge = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, join(import.meta.dirname, 'netns-relay.ts'), ...args],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: bridge!.stdout! });
      lines.on('line', (line) => line === 'READY' && resolve());
      bridge!.once('exit', (code) => reject(new Error(`the namespace's bridge exited (${code})`)));
    });
    const launcher = join(dir, 'chromium');
    await writeFile(launcher, `#!/bin/sh\nexec ip netns exec ${ns} /usr/bin/chromium "$@"\n`);
    await chmod(launcher, 0o755);
    browser = await chromium.launch({ executablePath: launcher, args: CHROMIUM_ARGS });
    return { browser, close };
  } catch (err) {
    await close();
    throw err;
  }
}
