// A machine of its own for the egress tests, inside two network namespaces the test makes and
// removes: `machine`, where `sandbay server` runs with outbound NAT (IPv4 forwarding is turned on in
// that namespace only, never on the real machine), and `internet`, the only place its uplink leads:
// an HTTP server per web address and a DNS server (fake-internet.ts). The machine namespace has no
// default route, only the uplink's /24, so whatever a VM sends to any other address has nowhere to
// go; nothing leaves the real machine. The test reaches the server's listeners through Unix
// sockets (netns-relay.ts), at loopback addresses of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../hosts/linux/runner.ts';
import { WORLD } from './egress-world-layout.ts';
import { joinSockets } from './pipe.ts';
import { startServerProcess, stopServerProcess, type ServerProcess } from './server-process.ts';

export { WORLD };

const HERE = import.meta.dirname;

export interface EgressWorld {
  machine: string;
  internet: string;
  server: ServerProcess;
  /** The customer and admin APIs as the test reaches them (loopback of the real machine). */
  url: string;
  adminUrl: string;
  /** Every name the internet's DNS server was asked, in order. */
  dnsQuestions: string[];
  dir: string;
  close(): Promise<void>;
}

const ip = (...args: string[]) => run('ip', args);

/** Starts a helper script inside `netns`; resolves once it says READY. */
async function helperIn(netns: string, script: string, args: string[], onLine: (l: string) => void) {
  const child = spawn(
    'nsenter',
    [`--net=/run/netns/${netns}`, process.execPath, join(HERE, script), ...args],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line === 'READY') resolve();
        else onLine(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${err}`)));
  });
  return child;
}

/** A loopback listener of the real machine whose connections go to `socket` (a helper's, inside). */
function listenTo(socket: string): Promise<{ server: Server; url: string }> {
  const server = createServer((client) => joinSockets(client, createConnection(socket)));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}` });
    }),
  );
}

export async function startEgressWorld(): Promise<EgressWorld> {
  const tag = randomBytes(4).toString('hex');
  const machine = `sbtest-egm-${tag}`;
  const internet = `sbtest-egi-${tag}`;
  const dir = await mkdtemp(join(tmpdir(), 'sandbay-egress-'));
  const children: ChildProcess[] = [];
  const listeners: Server[] = [];
  let server: ServerProcess | undefined;
  const close = async () => {
    if (server) await stopServerProcess(server);
    for (const l of listeners) l.close();
    for (const c of children) c.stdin?.end();
    await Promise.all(children.map((c) => c.exitCode === null && new Promise((r) => c.once('exit', r))));
    await ip('netns', 'del', machine).catch(() => undefined);
    await ip('netns', 'del', internet).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await ip('netns', 'add', machine);
    await ip('netns', 'add', internet);
    await ip('-n', machine, 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', internet);
    await run('ip', ['-n', machine, '-b', '-'], {
      input: ['link set lo up', `addr add ${WORLD.uplink}/24 dev up0`, 'link set up0 up', ''].join('\n'),
    });
    const addresses = [WORLD.internet, WORLD.dns, ...Object.keys(WORLD.web)];
    await run('ip', ['-n', internet, '-b', '-'], {
      input: [
        'link set lo up',
        ...addresses.map((a) => `addr add ${a}/24 dev eth0`),
        'link set eth0 up',
        '',
      ].join('\n'),
    });
    // Forwarding in the machine namespace only (its own sysctl): the VMs' way to the internet namespace.
    await run('nsenter', [`--net=/run/netns/${machine}`, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    const dnsQuestions: string[] = [];
    children.push(
      await helperIn(internet, 'fake-internet.ts', [], (line) => {
        if (line.startsWith('DNS ')) dnsQuestions.push(line.slice(4));
      }),
    );
    server = await startServerProcess(join(dir, 'data'), 60_000, {
      netns: machine,
      args: ['--vm-outbound-nat', '--vm-dns', WORLD.dns],
    });
    const port = (u: string) => new URL(u).port;
    const apiSock = join(dir, 'api.sock');
    const adminSock = join(dir, 'admin.sock');
    children.push(
      await helperIn(
        machine,
        'netns-relay.ts',
        [`${apiSock}=${port(server.url)}`, `${adminSock}=${port(server.adminUrl)}`],
        () => {},
      ),
    );
    const api = await listenTo(apiSock);
    const admin = await listenTo(adminSock);
    listeners.push(api.server, admin.server);
    return { machine, internet, server, url: api.url, adminUrl: admin.url, dnsQuestions, dir, close };
  } catch (err) {
    await close();
    throw err;
  }
}
