// Run inside a test's "internet" network namespace (test/support/egress-world.ts): an HTTP server
// on each web address, answering its own name, and a DNS server (UDP and TCP) that knows the
// world's names. Prints `READY` once listening and `DNS <name>` for every question it is asked;
// ends when its stdin closes (its test went away).
//
//   nsenter --net=/run/netns/NS node test/support/fake-internet.ts
import { createSocket } from 'node:dgram';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import dnsPacket from 'dns-packet';
import { WORLD } from './egress-world-layout.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);

function answer(query: Buffer): Buffer {
  const q = dnsPacket.decode(query);
  const question = q.questions?.[0];
  const name = question?.name.toLowerCase() ?? '';
  say(`DNS ${name}`);
  const address = WORLD.names[name];
  const known = address !== undefined;
  return dnsPacket.encode({
    type: 'response',
    id: q.id ?? 0,
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (known ? 0 : 3),
    questions: q.questions ?? [],
    answers:
      known && question?.type === 'A' ? [{ type: 'A', name: question.name, ttl: 30, data: address }] : [],
  });
}

const listening: Promise<void>[] = [];
for (const [address, body] of Object.entries(WORLD.web)) {
  const server = createHttpServer((_req, res) => res.end(body));
  // A connection a test keeps open across a policy change stays open on this side.
  server.keepAliveTimeout = 120_000;
  listening.push(new Promise((resolve) => server.listen(80, address, resolve)));
}
const udp = createSocket('udp4');
udp.on('message', (msg, from) => udp.send(answer(msg), from.port, from.address));
listening.push(new Promise((resolve) => udp.bind(53, WORLD.dns, resolve)));
const tcp = createTcpServer((socket) => {
  let buf = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
      const out = answer(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      buf = buf.subarray(2 + buf.readUInt16BE(0));
      const len = Buffer.alloc(2);
      len.writeUInt16BE(out.length);
      socket.write(Buffer.concat([len, out]));
    }
  });
});
listening.push(new Promise((resolve) => tcp.listen(53, WORLD.dns, resolve)));
await Promise.all(listening);
say('READY');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
