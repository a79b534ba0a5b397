// The SSH proxy's stream as a fuzz target: the relay (api/ws/relay.ts) between a real WebSocket
// client and a real TCP peer in the place of the VM's sshd, over loopback, as upgrade.ts runs it.
// The proxy reads nothing of SSH, so whatever either side sends (an SSH banner, packets, junk,
// empty messages, messages up to the WebSocket limit) must arrive byte for byte on the other side,
// and the session must end (the relay's promise settles) once the VM side closes.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import fc from 'fast-check';
import { WebSocket, WebSocketServer } from 'ws';
import { connectVm } from '../../../api/ws/connect.ts';
import { relay, toBuffer } from '../../../api/ws/relay.ts';
import { MAX_MESSAGE_BYTES } from '../../../api/ws/upgrade.ts';
import type { CaseOutcome, FuzzCase, FuzzTarget } from './runner.ts';

/** A session whose both ends have sent everything ends well within this. */
const SESSION_MS = 10_000;

/** One message or TCP write: small packets mostly, now and then a large one (a file over scp). */
const PIECE = fc.oneof(
  { weight: 6, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.constant(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 0, max: MAX_MESSAGE_BYTES }), fc.nat(255)).map(([n, seed]) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
      return b;
    }),
  },
);

async function relayCase(toVm: Buffer[], toClient: Buffer[]): Promise<CaseOutcome> {
  const started = performance.now();
  const expectedAtVm = Buffer.concat(toVm);
  const expectedAtClient = Buffer.concat(toClient);
  const atVm: Buffer[] = [];
  const atClient: Buffer[] = [];
  let relayDone: Promise<string> = Promise.resolve('no session');
  const peers = new Set<Socket>();

  // The VM's side answers once it has everything the client sent, then closes (as sshd does on exit).
  const vmServer = createTcpServer((socket) => {
    peers.add(socket);
    let got = 0;
    const answer = () => {
      for (const b of toClient) socket.write(b);
      socket.end();
    };
    socket.on('data', (d: Buffer) => {
      atVm.push(d);
      got += d.length;
      if (got === expectedAtVm.length) answer();
    });
    socket.on('error', () => {});
    if (expectedAtVm.length === 0) answer();
  });
  await new Promise<void>((resolve) => vmServer.listen(0, '127.0.0.1', resolve));
  const vmPort = (vmServer.address() as { port: number }).port;

  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: MAX_MESSAGE_BYTES,
  });
  const http = createHttpServer();
  http.on('upgrade', (req, socket, head) => {
    relayDone = connectVm('127.0.0.1', vmPort).then(
      (vm) =>
        new Promise<WebSocket>((resolve) => wss.handleUpgrade(req, socket, head, resolve))
          .then((ws) => relay(vm, ws, {}))
          .then(() => 'ended'),
      (err: Error) => `connect failed: ${err.message}`,
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as { port: number }).port;

  let timer: NodeJS.Timeout | undefined;
  const client = new WebSocket(`ws://127.0.0.1:${port}/`, { perMessageDeflate: false });
  const closed = new Promise<string>((resolve) => {
    client.on('open', () => {
      for (const b of toVm) client.send(b, { binary: true });
    });
    client.on('message', (d: Buffer | ArrayBuffer | Buffer[]) => atClient.push(toBuffer(d)));
    client.on('close', (code) => resolve(String(code)));
    client.on('error', () => {});
  });
  const outcome = await Promise.race([
    Promise.all([closed, closed.then(() => relayDone)]).then(([code, done]) => `${code} ${done}`),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('hang'), SESSION_MS))),
  ]);
  clearTimeout(timer);
  client.terminate();
  for (const s of peers) s.destroy();
  for (const c of wss.clients) c.terminate();
  await new Promise<void>((resolve) => vmServer.close(() => resolve()));
  await new Promise<void>((resolve) => http.close(() => resolve()));

  const problems: string[] = [];
  if (outcome !== '1000 ended') problems.push(`the session ended as "${outcome}", not "1000 ended"`);
  if (!Buffer.concat(atVm).equals(expectedAtVm))
    problems.push(
      `the VM got ${Buffer.concat(atVm).length} bytes, not the ${expectedAtVm.length} sent, or others`,
    );
  if (!Buffer.concat(atClient).equals(expectedAtClient))
    problems.push(
      `the client got ${Buffer.concat(atClient).length} bytes, not the ${expectedAtClient.length} sent, or others`,
    );
  const sizes = (bs: Buffer[]) => bs.map((b) => b.length).join(',');
  return {
    ms: performance.now() - started,
    outcome: outcome === '1000 ended' ? 'relayed' : outcome,
    problems,
    sent: `to VM [${sizes(toVm)}], to client [${sizes(toClient)}]`,
  };
}

export function relayTarget(): FuzzTarget {
  const name = 'ssh relay (relay)';
  return {
    name,
    cases: fc
      .tuple(fc.array(PIECE, { maxLength: 8 }), fc.array(PIECE, { maxLength: 8 }))
      .map(([toVm, toClient]): FuzzCase => ({
        run: () => relayCase(toVm, toClient),
        [fc.toStringMethod]: () =>
          `${name} to VM [${toVm.map((b) => b.length).join(',')}] to client [${toClient.map((b) => b.length).join(',')}]`,
      })),
  };
}
