// Run inside a test's network namespace: for each `LISTEN=CONNECT` argument, listens on LISTEN and
// pipes every connection to CONNECT. Each side is a port (127.0.0.1:PORT in the namespace) or a Unix
// socket path (a socket is reachable from every namespace, so its other end can be outside). Says
// `READY` once listening; ends with its parent (stdin closes).
//
//   ip netns exec NS node test/support/netns-relay.ts 8080=/tmp/x/8080.sock …
//     a test browser's loopback port reaching the machine (test/support/browser.ts)
//   nsenter --net=/run/netns/NS node test/support/netns-relay.ts /tmp/x/api.sock=41234 …
//     the test reaching a server that listens only inside (test/support/egress-world.ts)
import { createConnection, createServer } from 'node:net';
import { joinSockets } from './pipe.ts';

/** A port on the namespace's loopback, or a Unix socket path: as listen and connect both take it. */
function endpoint(side: string): { host: string; port: number } | { path: string } {
  return /^\d+$/.test(side) ? { host: '127.0.0.1', port: Number(side) } : { path: side };
}

const pairs = process.argv.slice(2).map((arg) => {
  const [listen, connect] = arg.split('=');
  if (!listen || !connect) throw new Error(`expected LISTEN=CONNECT, got ${arg}`);
  return { listen: endpoint(listen), connect: endpoint(connect) };
});

await Promise.all(
  pairs.map(
    ({ listen, connect }) =>
      new Promise<void>((resolve, reject) => {
        const server = createServer((client) => joinSockets(client, createConnection(connect)));
        server.once('error', reject);
        server.listen(listen, () => resolve());
      }),
  ),
);
process.stdout.write('READY\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
