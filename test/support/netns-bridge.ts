// Run inside a test browser's network namespace (test/support/browser.ts): listens on 127.0.0.1:PORT
// there for each `PORT=SOCKET` argument and pipes every connection to the Unix socket SOCKET, whose
// other end (in the machine's namespace) connects to 127.0.0.1:PORT. Says `READY` once listening.
//
//   ip netns exec NS node test/support/netns-bridge.ts 8080=/tmp/x/8080.sock …
import { createConnection, createServer } from 'node:net';

const pairs = process.argv.slice(2).map((arg) => {
  const [port, socket] = arg.split('=');
  if (!port || !socket || !/^\d+$/.test(port)) throw new Error(`expected PORT=SOCKET, got ${arg}`);
  return { port: Number(port), socket };
});

await Promise.all(
  pairs.map(
    ({ port, socket }) =>
      new Promise<void>((resolve, reject) => {
        const server = createServer((client) => {
          const upstream = createConnection(socket);
          client.pipe(upstream).pipe(client);
          const end = () => (client.destroy(), upstream.destroy());
          client.on('error', end).on('close', end);
          upstream.on('error', end).on('close', end);
        });
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      }),
  ),
);
process.stdout.write('READY\n');
// Ends with its parent: stdin closes when the test process goes away.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
