// SshClient.run's deadline against a server that goes silent mid-command, as a guest that powers off
// while its connection is open does (its end of the TCP connection gone without a FIN): the close the
// client sends at the deadline is never confirmed. ssh2's own server stands for sshd; a relay in
// front of it goes silent on demand (it keeps both sockets open and passes nothing on).
import { createConnection, createServer, type Server as NetServer, type Socket } from 'node:net';
import { Server as SshServer } from 'ssh2';
import { afterEach, expect, it } from 'vitest';
import { CONFIRM_CLOSE_MS, SshClient } from './ssh-client.ts';
import { generateSshKey } from './sshd.ts';

const listening: (NetServer | SshServer)[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(
    listening.splice(0).map((s) => new Promise<void>((resolve) => (s as NetServer).close(() => resolve()))),
  );
});

async function listen(server: NetServer | SshServer): Promise<number> {
  listening.push(server);
  await new Promise<void>((resolve) => (server as NetServer).listen(0, '127.0.0.1', () => resolve()));
  return ((server as NetServer).address() as { port: number }).port;
}

/** An SSH server whose exec requests start a command that never ends; `onExec` hears each one. */
async function endlessSshd(hostKey: string, onExec: () => void): Promise<number> {
  const server = new SshServer({ hostKeys: [hostKey] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => ctx.accept());
    client.on('ready', () => {
      client.on('session', (accept) => {
        accept().on('exec', (acceptExec) => {
          acceptExec();
          onExec();
        });
      });
    });
  });
  return listen(server);
}

/** A TCP relay to `port` that, once `silence()` is called, passes nothing on either way. */
async function relay(port: number): Promise<{ port: number; silence: () => void }> {
  let silent = false;
  const server = createServer((inbound) => {
    const outbound = createConnection(port, '127.0.0.1');
    sockets.push(inbound, outbound);
    inbound.on('data', (d: Buffer) => !silent && outbound.write(d));
    outbound.on('data', (d: Buffer) => !silent && inbound.write(d));
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  return { port: await listen(server), silence: () => (silent = true) };
}

it(
  'ends a call at its deadline (and the unconfirmed close after it) when the server goes silent mid-command',
  async () => {
    const hostKey = generateSshKey('silent');
    let silence = (): void => undefined;
    // Silent once the exec's confirmation has passed the relay (the command runs).
    const sshdPort = await endlessSshd(hostKey.privateKey, () => setTimeout(() => silence(), 100));
    const r = await relay(sshdPort);
    silence = r.silence;
    const ssh = new SshClient(() => ({
      host: '127.0.0.1',
      port: r.port,
      username: 'x',
      privateKey: generateSshKey('x').privateKey,
      hostKey: hostKey.publicKey,
    }));
    try {
      // Without the unconfirmed close's own end, only the keepalive (45 s and more) would end it.
      const result = await ssh.run('sleep infinity', { deadlineMs: 1000 });
      expect(result).toMatchObject({ deadlineHit: true, code: -1 });
    } finally {
      ssh.close();
    }
  },
  1000 + CONFIRM_CLOSE_MS + 10_000,
);
