// One port, two protocols: the admin listener answers plain HTTP (the CLI, scripts, client-node) and
// HTTPS (kubectl and client-go, which send a bearer token only over TLS). The first byte of a
// connection tells them apart: a TLS ClientHello starts with 0x16, an HTTP request with a letter.
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TlsMaterial } from './admin-tls.ts';

const TLS_HANDSHAKE = 0x16;
const FIRST_BYTE_TIMEOUT_MS = 30_000;

export interface DualListener {
  port: number;
  /** `http://host:port` and `https://host:port`: the same listener. */
  httpUrl: string;
  httpsUrl: string;
  close(): Promise<void>;
}

/** Serves a ready Fastify app over HTTP and HTTPS on one port. */
export async function listenHttpAndHttps(
  app: FastifyInstance,
  opts: { port: number; host: string; tls: TlsMaterial },
): Promise<DualListener> {
  await app.ready();
  const httpServer = app.server;
  const httpsServer = createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key });
  // Decrypted requests go to the app exactly as plain ones do.
  httpsServer.on('request', (req, res) => httpServer.emit('request', req, res));
  httpsServer.on('upgrade', (req, socket, head) => httpServer.emit('upgrade', req, socket, head));
  httpsServer.on('tlsClientError', (_err, socket) => socket.destroy());

  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    // As node:http's own servers do: a response is not held back waiting for the client's ACK
    // (Nagle's algorithm against delayed ACKs cost ~40 ms per write request over TLS).
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // Until the first byte the HTTP servers' own timeouts do not apply: a silent client is dropped here.
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once('data', (first) => {
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) {
        // The TLS socket takes over the handle and reads the unshifted bytes itself; resuming the
        // plain socket here would hand them to nobody.
        httpsServer.emit('connection', socket);
      } else {
        httpServer.emit('connection', socket);
        socket.resume();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    port: address.port,
    httpUrl: `http://${host}:${address.port}`,
    httpsUrl: `https://${host}:${address.port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close(); // ends open watches (the app's preClose hook)
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
