// A real HTTP proxy in front of a live sandbay that can drop a connection or answer 503 before
// forwarding, to watch the SDK's retry policy from the outside: what reached the server, how often.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FlakyProxy {
  url: string;
  /** The next `n` requests: reset the connection (`reset`) or answer 503 (`503`), without forwarding. */
  failNext(n: number, how: 'reset' | '503'): void;
  /** `METHOD path` (query stripped) of every request that reached the server, in order. */
  forwarded: string[];
  close(): Promise<void>;
}

export async function startFlakyProxy(upstream: string): Promise<FlakyProxy> {
  const target = new URL(upstream);
  let failing = 0;
  let mode: 'reset' | '503' = 'reset';
  const forwarded: string[] = [];
  const server = http.createServer((req, res) => {
    if (failing > 0) {
      failing--;
      if (mode === 'reset') return req.socket.destroy();
      res.writeHead(503, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: 'server_shutting_down', message: 'test' }));
    }
    forwarded.push(`${req.method} ${req.url!.split('?')[0]}`);
    const out = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    failNext(n, how) {
      failing = n;
      mode = how;
    },
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
