// Run inside a test's network namespace (test/support/egress-world.ts): listens on the Unix socket
// SOCKET for each `SOCKET=PORT` argument and pipes every connection to 127.0.0.1:PORT there, so that
// the test, in the machine's namespace, reaches a server that listens only inside (the reverse of
// netns-bridge.ts). Says `READY` once listening; ends with its parent (stdin closes).
//
//   nsenter --net=/run/netns/NS node test/support/netns-forward.ts /tmp/x/api.sock=41234 …
import { createConnection, createServer } from 'node:net';

const pairs = process.argv.slice(2).map((arg) => {
  const [socket, port] = arg.split('=');
  if (!port || !socket || !/^\d+$/.test(port)) throw new Error(`expected SOCKET=PORT, got ${arg}`);
  return { port: Number(port), socket };
});

await Promise.all(
  pairs.map(
    ({ port, socket }) =>
      new Promise<void>((resolve, reject) => {
        const server = createServer((client) => {
          const upstream = createConnection({ host: '127.0.0.1', port });
          client.pipe(upstream).pipe(client);
          const end = () => (client.destroy(), upstream.destroy());
          client.on('error', end).on('close', end);
          upstream.on('error', end).on('close', end);
        });
        server.once('error', reject);
        server.listen(socket, () => resolve());
      }),
  ),
);
process.stdout.write('READY\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
